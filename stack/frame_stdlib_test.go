package stack_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// stdPackages returns the import paths `go list std` prints: the oracle
// IsStdlib's rule is checked against.
func stdPackages(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Skipf("go list std: %v", err)
	}
	std := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		std[p] = true
	}
	return std
}

// framesOf reads every dump of a file and returns its frames, creators
// included.
func framesOf(t *testing.T, path string) []*stack.Frame {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []*stack.Frame
	for _, d := range dumps {
		for _, r := range d.Routines {
			out = append(out, r.Frames()...)
			if r.CreatedBy != nil {
				out = append(out, r.CreatedBy)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no frames", path)
	}
	return out
}

// IsStdlib on the frames of real Go dumps agrees with `go list std`,
// whether the binary kept its GOROOT paths (the demo service's dump) or
// was built with -trimpath (testdata/groups: "runtime/pprof/pprof.go",
// no GOROOT); runtime frames are standard library too.
func TestFrameIsStdlibGo(t *testing.T) {
	std := stdPackages(t)
	for _, path := range []string{"../testdata/go/demo_go126.txt", "../testdata/groups/debug2_go126.txt", "../testdata/go/labels_go126.txt"} {
		var stdSeen, appSeen int
		trimmed := false
		for _, f := range framesOf(t, path) {
			pkg := f.Package()
			want := std[pkg]
			if got := f.IsStdlib(); got != want {
				t.Errorf("%s: %s (%s) IsStdlib %v; go list std says %v", path, f.Func, f.File, got, want)
			}
			if f.IsRuntime() && !f.IsStdlib() {
				t.Errorf("%s: runtime frame %s is not IsStdlib", path, f.Func)
			}
			if want {
				stdSeen++
				trimmed = trimmed || !strings.HasPrefix(f.File, "/")
			} else {
				appSeen++
			}
		}
		if stdSeen == 0 || appSeen == 0 {
			t.Errorf("%s: %d std frames, %d others: the file does not test both", path, stdSeen, appSeen)
		}
		if path == "../testdata/groups/debug2_go126.txt" && !trimmed {
			t.Errorf("%s: no standard-library frame without GOROOT: not a -trimpath dump", path)
		}
	}
}

// IsStdlib on the frames of real JVM dumps: the JDK's classes are the
// standard library, application classes are not, whatever their first
// package element (jeus, org, io, com.tmax: no dot, like a Go standard
// package) and whether or not the dump names modules.
func TestFrameIsStdlibJVM(t *testing.T) {
	jdk := []string{"java.", "javax.", "jdk.", "sun.", "com.sun."}
	for _, path := range []string{
		"../testdata/corpus/jvm/tda_jdk6_server.log",
		"../testdata/corpus/jvm/tda_jdk11_tomcat.log",
		"../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt",
		"../testdata/corpus/jvm/jthreaddump_complex_extended_jdk25.txt",
	} {
		var stdSeen, appSeen int
		for _, f := range framesOf(t, path) {
			want := false
			for _, p := range jdk {
				want = want || strings.HasPrefix(f.Func, p)
			}
			if got := f.IsStdlib(); got != want {
				t.Errorf("%s: %s (%s, module %q) IsStdlib %v, want %v", path, f.Func, f.File, f.Module, got, want)
			}
			if want {
				stdSeen++
			} else {
				appSeen++
			}
		}
		if stdSeen == 0 || appSeen == 0 {
			t.Errorf("%s: %d JDK frames, %d others: the file does not test both", path, stdSeen, appSeen)
		}
	}
}
