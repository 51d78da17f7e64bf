package dedupe

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// AppFrame on a -trimpath binary's dump (testdata/groups: the standard
// library's files carry no GOROOT, "runtime/pprof/pprof.go") skips the
// standard library's frames as it skips the runtime's: the goroutine
// writing the profile is in main.write, under runtime/pprof.
func TestAppFrameTrimpath(t *testing.T) {
	d, err := formats.ReadAll(bytes.NewReader(readGenerated(t, "debug2_go126.txt")), formats.ReadOptions{})
	if err != nil || len(d) != 1 {
		t.Fatal(err)
	}
	seen := false
	for _, r := range d[0].Routines {
		app := AppFrame(r.Stack)
		if app == nil || !strings.HasPrefix(app.Func, "main.") {
			t.Errorf("goroutine %d: AppFrame %v; every goroutine of the program runs main code", r.ID, app)
			continue
		}
		if top := TopFrame(r.Stack); strings.HasPrefix(top.Func, "runtime/pprof.") {
			seen = true
			if app.Func != "main.write" || !strings.HasPrefix(top.File, "runtime/pprof/") {
				t.Errorf("goroutine %d: top %s (%s), AppFrame %s; want main.write under a trimmed runtime/pprof", r.ID, top.Func, top.File, app.Func)
			}
		}
	}
	if !seen {
		t.Error("no goroutine in runtime/pprof")
	}
}

// AppFrame on a real jstack -l of a JVM with two deadlocks:
// JDK-only threads (Reference Handler, Finalizer, Common-Cleaner) have
// none; the program's threads are in its own code (Samp, a class
// of the unnamed package, and its lambdas).
func TestAppFrameJVM(t *testing.T) {
	f, err := os.Open("../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumps) == 0 {
		t.Fatal(err)
	}
	var jdkOnly, apps int
	for _, r := range dumps[0].Routines {
		app := AppFrame(r.Stack)
		if strings.HasPrefix(r.Name, "dl-") && app == nil {
			t.Errorf("%q: no AppFrame", r.Name)
		}
		switch r.Name {
		case "Reference Handler", "Finalizer", "Common-Cleaner":
			jdkOnly++
			if app != nil {
				t.Errorf("%q: AppFrame %s; its frames are all the JDK's", r.Name, app.Func)
			}
		}
		if app != nil && strings.HasPrefix(app.Func, "Samp") {
			apps++
		}
		if app != nil && app.IsStdlib() {
			t.Errorf("%q: AppFrame %s is the JDK's", r.Name, app.Func)
		}
	}
	if jdkOnly != 3 || apps < 9 {
		t.Errorf("%d JDK-only threads, %d in Samp code", jdkOnly, apps)
	}
}
