package dedupe

import (
	"bytes"
	"io"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// Real goroutines parked in known functions, for profiles taken in-test.

//go:noinline
func parkOnChan(ch chan struct{}) { <-ch }

//go:noinline
func parkInSelect(ch chan struct{}) {
	select {
	case <-ch:
	case <-time.After(time.Hour):
	}
}

//go:noinline
func parkOnMutex(mu *sync.Mutex) { mu.Lock(); mu.Unlock() }

// parkers starts goroutines in each park function and returns a func that
// releases them. It returns once every one is parked, as the goroutine
// profile sees it.
type parkers struct {
	stop chan struct{}
	mu   sync.Mutex
	wg   sync.WaitGroup
}

// parkedCounts is how many goroutines each park function holds.
var parkedCounts = map[string]int64{"parkOnChan": 12, "parkInSelect": 5, "parkOnMutex": 3}

func startParkers(t *testing.T) *parkers {
	p := &parkers{stop: make(chan struct{})}
	p.mu.Lock()
	for name, n := range parkedCounts {
		for range n {
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				switch name {
				case "parkOnChan":
					parkOnChan(p.stop)
				case "parkInSelect":
					parkInSelect(p.stop)
				case "parkOnMutex":
					parkOnMutex(&p.mu)
				}
			}()
		}
	}
	t.Cleanup(func() {
		close(p.stop)
		p.mu.Unlock()
		p.wg.Wait()
	})
	// Wait until the debug=1 profile shows each set parked, as one record.
	for range 1000 {
		if allParked(profile(t, 1)) {
			return p
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("goroutines did not park")
	return nil
}

// allParked reports whether a debug=1 profile has, for each park function,
// one record of all its goroutines.
func allParked(debug1 []byte) bool {
	found := 0
	for _, rec := range strings.Split(string(debug1), "\n\n") {
		count, _, _ := strings.Cut(rec, " @")
		count = count[strings.LastIndexByte(count, '\n')+1:]
		for name, n := range parkedCounts {
			if strings.Contains(rec, "dedupe."+name+"+") && count == strconv.FormatInt(n, 10) {
				found++
			}
		}
	}
	return found == len(parkedCounts)
}

// profile returns the goroutine profile at a debug level.
func profile(t *testing.T, debug int) []byte {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, debug); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readGroups reads the first dump of data and groups it.
func readGroups(t *testing.T, data []byte, opts Options) (*stack.Dump, []*stack.Group) {
	t.Helper()
	rd := formats.NewReader(bytes.NewReader(data), formats.ReadOptions{})
	d, groups, err := GroupNext(rd, opts, func(pe *stack.ParseError) { t.Errorf("parse error: %v", pe) })
	if err == io.EOF {
		t.Fatal("no dump read")
	}
	if err != nil {
		t.Fatal(err)
	}
	return d, groups
}

// parkGroup finds the group whose stack runs through the park function.
func parkGroup(groups []*stack.Group, name string) *stack.Group {
	for _, g := range groups {
		for _, f := range g.Sample.Frames() {
			if strings.HasSuffix(f.Func, "dedupe."+name) {
				return g
			}
		}
	}
	return nil
}

// Real profiles of one process at debug=2, debug=1 and debug=0 (pprof)
// give the same groups and keys at ByStack and ByFunc: the keys skip the
// runtime frames debug=1 hides (runtime.gopark …) and debug=2 hides
// (runtime.goexit, runtime.main).
func TestRealProfilesMatchAcrossFormats(t *testing.T) {
	startParkers(t)
	debug2, debug1, debug0 := profile(t, 2), profile(t, 1), profile(t, 0)
	for _, by := range []By{ByStack, ByFunc} {
		t.Run(by.String(), func(t *testing.T) {
			opts := Options{By: by}
			d2, g2 := readGroups(t, debug2, opts)
			d1, g1 := readGroups(t, debug1, opts)
			for name, n := range parkedCounts {
				a, b := parkGroup(g2, name), parkGroup(g1, name)
				if a == nil || b == nil {
					t.Fatalf("%s: group missing (debug=2 %v, debug=1 %v)", name, a != nil, b != nil)
				}
				if a.Key != b.Key {
					t.Errorf("%s: debug=2 key %s, debug=1 key %s", name, a.Key, b.Key)
				}
				if a.Count != n || b.Count != n {
					t.Errorf("%s: counts %d (debug=2) and %d (debug=1), want %d", name, a.Count, b.Count, n)
				}
				if int64(len(a.IDs)) != n || len(b.IDs) != 0 {
					t.Errorf("%s: %d ids from debug=2, %d from debug=1; want %d and 0", name, len(a.IDs), len(b.IDs), n)
				}
			}
			if sumCounts(g2) != d2.Total || sumCounts(g1) != d1.Total {
				t.Errorf("group counts %d, %d; dump totals %d, %d", sumCounts(g2), sumCounts(g1), d2.Total, d1.Total)
			}
			// Only the goroutine taking the profiles may differ (it
			// called WriteTo from different lines).
			res := Diff(g2, g1)
			for _, e := range res.Entries {
				if !strings.Contains(keyFuncs(e.Group), "dedupe.profile") {
					t.Errorf("debug=2 vs debug=1: %s %+d at %s", e.Change, e.Delta, keyFuncs(e.Group))
				}
			}

			_, g0 := readGroups(t, debug0, opts)
			for name := range parkedCounts {
				if a, c := parkGroup(g2, name), parkGroup(g0, name); c == nil || a.Key != c.Key || a.Count != c.Count {
					t.Errorf("%s: debug=0 group %+v does not match debug=2's", name, c)
				}
			}
		})
	}
}

// keyFuncs lists a group's non-runtime functions, for messages.
func keyFuncs(g *stack.Group) string {
	var fs []string
	for _, f := range g.Sample.Frames() {
		if !isRuntimeFrame(f) {
			fs = append(fs, f.Func)
		}
	}
	return strings.Join(fs, " < ")
}
