package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"runtime"
	rpprof "runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
)

// recordingPprof serves net/http/pprof under /debug/pprof/ (optionally
// refusing debug=1), 404 elsewhere, and records the paths and queries it was asked for.
type recordingPprof struct {
	noCounts bool
	mu       sync.Mutex
	asked    []string
}

func (rp *recordingPprof) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	rp.asked = append(rp.asked, r.URL.Path+"?"+r.URL.RawQuery)
	rp.mu.Unlock()
	if !strings.HasPrefix(r.URL.Path, "/debug/pprof/") || rp.noCounts && r.URL.Path == "/debug/pprof/goroutine" && r.URL.Query().Get("debug") == "1" {
		http.NotFound(w, r) // no stackdump endpoint here
		return
	}
	pprof.Index(w, r)
}

// leakAsked reports whether the goroutineleak profile was requested.
func (rp *recordingPprof) leakAsked() bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for _, a := range rp.asked {
		if strings.Contains(a, "goroutineleak") {
			return true
		}
	}
	return false
}

func (rp *recordingPprof) requests() []string {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]string(nil), rp.asked...)
}

// TestLeakModeBoundPprof captures this process through a real
// net/http/pprof server in ModeLeak with a bound below its goroutines:
// debug=1 is fetched, the capture fails with a *dumper.LeakBoundError
// naming the count and the bound (on a runtime without the leak profile,
// whose net/http/pprof index lists none, with ErrNoLeakProfile naming the
// Go version instead), and goroutineleak is never requested —
// through Open, OpenDocument, and a bare address whose endpoint probe
// answers 404. With the bound lifted (negative), or above the count,
// goroutineleak is requested (404 on Go 1.26: ErrNoLeakProfile).
func TestLeakModeBoundPprof(t *testing.T) {
	parkedInRemoteTest(t, 30)
	for _, open := range []struct {
		name string
		run  func(Target, Options) error
	}{
		{"Open", func(tg Target, o Options) error {
			s, err := Open(context.Background(), tg, o)
			if err == nil {
				s.Close()
			}
			return err
		}},
		{"OpenDocument", func(tg Target, o Options) error {
			doc, err := OpenDocument(context.Background(), tg, o, formats.ReadOptions{})
			if err == nil {
				doc.Close()
			}
			return err
		}},
	} {
		for _, bare := range []bool{false, true} {
			rp := &recordingPprof{}
			srv := httptest.NewServer(rp)
			raw := srv.URL + "/debug/pprof/goroutine"
			if bare {
				raw = strings.TrimPrefix(srv.URL, "http://")
			}
			tg, err := ParseTarget(raw, "")
			if err != nil {
				t.Fatal(err)
			}
			err = open.run(tg, Options{Mode: ModeLeak, LeakMaxGoroutines: 10, Retries: -1})
			var lbe *dumper.LeakBoundError
			if rpprof.Lookup("goroutineleak") == nil {
				// This runtime has no leak profile, and its index says so:
				// the refusal names the Go version, not the bound.
				if !errors.Is(err, ErrNoLeakProfile) || errors.As(err, &lbe) || !strings.Contains(err.Error(), "raising the bound would not help") {
					t.Errorf("%s %s with a bound of 10 on %s: err = %v, want ErrNoLeakProfile and no advice to raise the bound", open.name, raw, runtime.Version(), err)
				}
			} else if !errors.As(err, &lbe) || lbe.Bound != 10 || lbe.Goroutines < 30 || !strings.Contains(err.Error(), "--leak-max-goroutines") {
				t.Errorf("%s %s with a bound of 10: err = %v, want a LeakBoundError counting ≥ 30 goroutines", open.name, raw, err)
			}
			asked := rp.requests()
			if rp.leakAsked() || !strings.Contains(strings.Join(asked, " "), "/debug/pprof/goroutine?debug=1") {
				t.Errorf("%s %s refused, but the target was asked %v; want debug=1 and no goroutineleak", open.name, raw, asked)
			}
			for _, bound := range []int{-1, 1000} {
				rp.mu.Lock()
				rp.asked = nil
				rp.mu.Unlock()
				err := open.run(tg, Options{Mode: ModeLeak, LeakMaxGoroutines: bound, Retries: -1})
				if errors.Is(err, dumper.ErrLeakBound) || !rp.leakAsked() {
					t.Errorf("%s %s with bound %d: err = %v, asked %v; want goroutineleak requested", open.name, raw, bound, err, rp.requests())
				}
				if err != nil && !errors.Is(err, ErrNoLeakProfile) {
					t.Errorf("%s %s with bound %d on %s: %v", open.name, raw, bound, runtime.Version(), err)
				}
			}
			srv.Close()
		}
	}
}

// TestLeakModeUncounted captures in ModeLeak a target that serves
// goroutineleak but refuses debug=1: without a count the capture is
// refused (ErrLeakUncounted) and goroutineleak is not requested, unless
// the bound is lifted.
func TestLeakModeUncounted(t *testing.T) {
	rp := &recordingPprof{noCounts: true}
	srv := httptest.NewServer(rp)
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	_, err := Open(context.Background(), tg, Options{Mode: ModeLeak, Retries: -1})
	if !errors.Is(err, ErrLeakUncounted) || rp.leakAsked() {
		t.Errorf("leak capture of a target without debug=1: err = %v, asked %v; want ErrLeakUncounted and no goroutineleak", err, rp.requests())
	}
	s, err := Open(context.Background(), tg, Options{Mode: ModeLeak, LeakMaxGoroutines: -1, Retries: -1})
	if err == nil {
		s.Close()
	}
	if errors.Is(err, ErrLeakUncounted) || !rp.leakAsked() {
		t.Errorf("leak capture without a bound: err = %v, asked %v; want goroutineleak requested", err, rp.requests())
	}
}
