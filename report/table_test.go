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

// In the browser, a group whose top frame is the standard library's
// names the application frame under it ("in main.main" for the goroutine
// copying standard input), as it does for binaries that keep GOROOT.
func TestBrowserTrimpathHint(t *testing.T) {
	b := findBrowser(t)
	dom := b.load(t, writeReport(t, trimpathInputs(t), Options{}), "", "")
	hints := regexp.MustCompile(`<span class="via"> in </span><span class="func app">([^<]*)</span>`).FindAllStringSubmatch(dom, -1)
	found := false
	for _, h := range hints {
		found = found || h[1] == "main.main"
		// The frames between the top and main.main are the standard
		// library's: none of them is the hint.
		for _, p := range []string{"io.", "os.", "poll.", "syscall."} {
			if strings.HasPrefix(h[1], p) {
				t.Errorf("hint %q is the standard library's", h[1])
			}
		}
	}
	if !found {
		t.Errorf("no group row says \"in main.main\"; hints %q", hints)
	}
}
