package dumper

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

// TestCaptureLeakMode captures in leak mode. On a runtime without the
// goroutineleak profile (Go 1.26) the capture fails with ErrNoLeakProfile
// naming Go 1.27, and the endpoint answers mode=leak with 404 saying so.
// WriteFile in leak mode fails the same way and writes nothing.
// On Go 1.27 (GOTOOLCHAIN=go1.27.3 go test ./dumper -run LeakMode) the
// capture holds every goroutine and marks none of the fixture's leaked:
// what they wait on, the fixture still holds. (Leaking goroutines
// in this process would fail its leak check; the leaked ones are tested in
// a child process: cmd/stackdump's TestCaptureLeakMode.)
func TestCaptureLeakMode(t *testing.T) {
	startFixture(t, fixturePerKind)
	d, err := Capture(context.Background(), CaptureOptions{Mode: ModeLeak})
	srv := httptest.NewServer(Handler(HandlerOptions{}))
	defer srv.Close()
	resp, herr := http.Get(srv.URL + "?mode=leak&format=json")
	if herr != nil {
		t.Fatal(herr)
	}
	resp.Body.Close()
	file := filepath.Join(t.TempDir(), "leak.txt")
	ferr := WriteFile(context.Background(), file, FileOptions{Capture: CaptureOptions{Mode: ModeLeak}})
	if pprof.Lookup(LeakProfile) == nil {
		if !errors.Is(ferr, ErrNoLeakProfile) {
			t.Errorf("WriteFile in leak mode on %s: err = %v, want ErrNoLeakProfile", runtime.Version(), ferr)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("WriteFile in leak mode failed but left %s (%v)", file, err)
		}
		if !errors.Is(err, ErrNoLeakProfile) || !strings.Contains(err.Error(), "Go 1.27") || !strings.Contains(err.Error(), runtime.Version()) {
			t.Errorf("leak capture on %s: err = %v, want ErrNoLeakProfile naming Go 1.27 and this runtime", runtime.Version(), err)
		}
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("mode=leak on %s answered %s, want 404", runtime.Version(), resp.Status)
		}
		return
	}
	if err != nil || resp.StatusCode != http.StatusOK || ferr != nil {
		t.Fatalf("leak capture: %v; endpoint answered %s; WriteFile: %v", err, resp.Status, ferr)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), ".parkedRecv(") {
		t.Errorf("WriteFile in leak mode wrote no fixture goroutine:\n%.500s", b)
	}
	checkCaptureMeta(t, d, ModeLeak)
	parked := 0
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if strings.Contains(f.Func, ".parked") {
				parked++
				if r.Leaked {
					t.Errorf("goroutine %d [%s] in %s marked leaked; what it waits on is reachable", r.ID, r.State, f.Func)
				}
				break
			}
		}
	}
	if parked < 6*fixturePerKind {
		t.Errorf("%d fixture goroutines in the leak capture, want %d", parked, 6*fixturePerKind)
	}
}
