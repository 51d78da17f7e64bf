package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestJVMPackage(t *testing.T) {
	for fn, want := range map[string]string{
		"java.util.concurrent.locks.LockSupport.park":       "java.util.concurrent.locks",
		"java.lang.Thread.run":                              "java.lang",
		"org.apache.tomcat.util.net.NioEndpoint$Poller.run": "org.apache.tomcat.util.net",
		"Main.main":  "",
		"noDotsHere": "",
	} {
		if got := jvmPackage(fn); got != want {
			t.Errorf("jvmPackage(%q) = %q, want %q", fn, got, want)
		}
	}
}

// trimpathInputs reads testdata/go/trimpath_debug2_go126.txt, the
// debug=2 of testdata/gen/stuck built with -trimpath (its standard
// library's files read "net/http/server.go", with no GOROOT; the command
// is in testdata/gen/README.md).
func trimpathInputs(t *testing.T) []Input {
	t.Helper()
	inputs := readCorpus(t, "go/trimpath_debug2_go126.txt")
	if len(inputs) != 1 || inputs[0].Dump.Source.Kind != stack.KindGoTraceback {
		t.Fatalf("%d inputs", len(inputs))
	}
	return inputs
}

// A -trimpath binary's standard library is the standard library: every
// frame of net/http, internal/poll, io or os carries the std flag (the
// flame graph's blue) though its file has no GOROOT, the program's own
// frames do not, and runtime frames carry both flags.
func TestTrimpathStdFrames(t *testing.T) {
	doc := pageData(t, writeReport(t, trimpathInputs(t), Options{}))
	std, app := 0, 0
	for _, row := range doc.Frames {
		fn, file, flags := doc.Strings[row[0]], doc.Strings[row[1]], row[3]
		switch {
		case strings.HasPrefix(fn, "runtime."):
			if flags&flagRuntime == 0 || flags&flagStd == 0 {
				t.Errorf("%s (%s): flags %b, want runtime and std", fn, file, flags)
			}
		case strings.HasPrefix(fn, "net/http.") || strings.HasPrefix(fn, "internal/poll.") || strings.HasPrefix(fn, "io.") || strings.HasPrefix(fn, "os."):
			std++
			if flags&flagStd == 0 || strings.HasPrefix(file, "/") {
				t.Errorf("%s (%s): flags %b, want std for a trimmed path", fn, file, flags)
			}
		case strings.HasPrefix(fn, "main."):
			app++
			if flags&(flagStd|flagRuntime) != 0 {
				t.Errorf("%s (%s): flags %b, want the application's", fn, file, flags)
			}
		}
	}
	if std == 0 || app == 0 {
		t.Fatalf("%d standard-library frames, %d of main", std, app)
	}
}

// In the browser, a group is named by the program's frame past the
// standard library's primitives, by the rule of every table
// (dedupe.PlaceOf), also in a -trimpath binary (whose standard library has
// no GOROOT): the goroutine copying standard input is main.main's, with
// the standard library's call it waits in as detail ("in …"), never a
// standard-library frame with "in main.main" under it as before.
func TestBrowserTrimpathHint(t *testing.T) {
	b := findBrowser(t)
	dom := b.load(t, writeReport(t, trimpathInputs(t), Options{}), "", "")
	rows := groupRows(t, dom)
	mainWaits := 0
	for _, r := range rows {
		for _, p := range []string{"io.", "os.", "internal/poll.", "syscall.", "bufio."} {
			if strings.HasPrefix(r[0], p) {
				t.Errorf("group named by the standard library's %s", r[0])
			}
		}
		if strings.HasPrefix(r[0], "main.") && r[1] != "" {
			mainWaits++
		}
	}
	if mainWaits == 0 {
		t.Errorf("no group is named by main's code with the call it waits in as detail: %q", rows)
	}
}

// groupRows are the page's group rows: the function naming each group
// and the call it waits in ("" when none).
func groupRows(t *testing.T, dom string) [][2]string {
	t.Helper()
	var out [][2]string
	for _, m := range regexp.MustCompile(`<span class="what"><span class="func">([^<]*)</span> <span class="loc">[^<]*</span>(?:<span class="via"> in </span><span class="func wait">([^<]*)</span>)?</span>`).FindAllStringSubmatch(dom, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	if len(out) == 0 {
		t.Fatal("no group rows")
	}
	return out
}

// The group list of a real JVM dump (testdata/corpus: a JDK 25 service
// with parked pool workers, locks and a scheduler) names parked threads by
// the code that parked them, with the JDK's primitive as detail, not by
// Unsafe.park or LockSupport.park, as analyze and watch do.
func TestBrowserGroupNamesJVM(t *testing.T) {
	b := findBrowser(t)
	inputs := readCorpus(t, "corpus/jvm/jthreaddump_complex_extended_jdk25.txt")
	dom := b.load(t, writeReport(t, inputs, Options{}), "", "")
	parkedDetail := 0
	for _, r := range groupRows(t, dom) {
		if strings.Contains(r[0], "Unsafe.park") || strings.Contains(r[0], "LockSupport.park") {
			t.Errorf("group named by the JDK's primitive %s", r[0])
		}
		if strings.Contains(r[1], "park") || strings.Contains(r[1], "take") || strings.Contains(r[1], "await") {
			parkedDetail++
		}
	}
	if parkedDetail == 0 {
		t.Errorf("no parked group shows its primitive as detail: %q", groupRows(t, dom))
	}
}
