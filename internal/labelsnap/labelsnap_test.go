package labelsnap

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pprofformat "github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

// parked holds goroutines with and without labels, on shared and own
// stacks, inlined frames and a stack deeper than the profile keeps.
type parked struct {
	block   chan struct{}
	wg      sync.WaitGroup
	started atomic.Int64
}

func park(t *testing.T) *parked {
	p := &parked{block: make(chan struct{})}
	start := func(labels []string, f func()) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.started.Add(1)
			if labels == nil {
				f()
				return
			}
			pprof.Do(context.Background(), pprof.Labels(labels...), func(context.Context) { f() })
		}()
	}
	for i := range 30 {
		start([]string{"tenant", fmt.Sprint(i % 3)}, p.labelledWait) // three label sets, one stack
		start(nil, p.plainWait)
		start([]string{"b", "2", "a", "1"}, p.inlinedWait) // keys sorted on read
	}
	for range 5 {
		start([]string{"job", "deep"}, func() { p.deep(140) })
		start([]string{"empty"}[:0], p.plainWait) // an empty label set is no labels
	}
	for p.started.Load() < 100 {
		runtime.Gosched()
	}
	time.Sleep(10 * time.Millisecond) // from started to parked
	t.Cleanup(func() { close(p.block); p.wg.Wait() })
	return p
}

//go:noinline
func (p *parked) labelledWait() { <-p.block }

//go:noinline
func (p *parked) plainWait() { <-p.block }

func (p *parked) inlinedWait() { p.inlined() } // inlined into the closure

func (p *parked) inlined() { <-p.block }

//go:noinline
func (p *parked) deep(n int) {
	if n == 0 {
		<-p.block
		return
	}
	p.deep(n - 1)
}

// profileKeys renders a goroutine profile's records that run the parked
// goroutines as "stack | labels" → count.
func profileKeys(d *stack.Dump) map[string]int64 {
	out := make(map[string]int64)
	for _, r := range d.Routines {
		var b strings.Builder
		mine := false
		for _, f := range r.Frames() {
			mine = mine || strings.Contains(f.Func, "labelsnap.(*parked)")
			fmt.Fprintf(&b, "%s %s:%d\n", f.Func, f.File, f.Line)
		}
		if !mine {
			continue
		}
		fmt.Fprintf(&b, "| %v", r.Labels)
		out[b.String()] += r.Count
	}
	return out
}

func TestTakeMatchesPprof(t *testing.T) {
	if !supported {
		t.Skipf("layout not known for %s: Take returns ErrUnsupported", runtime.Version())
	}
	park(t)
	tab := stack.NewTable()
	s, err := Take(tab)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	rd := pprofformat.NewReader(&buf, pprofformat.ReadOptions{})
	d, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range rd.Routines() {
		if err != nil {
			t.Fatal(err)
		}
		d.Routines = append(d.Routines, r)
	}
	want, got := profileKeys(d), profileKeys(s.Profile)
	if len(want) != 7 {
		t.Fatalf("runtime/pprof shows %d records of the parked goroutines, want 7:\n%v", len(want), want)
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("record %q: %d goroutines, runtime/pprof says %d", k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d records, runtime/pprof has %d:\n%v", len(got), len(want), got)
	}
	if s.Labelled != 65 {
		t.Errorf("Labelled = %d, want 65", s.Labelled)
	}
	if s.Goroutines < 100 {
		t.Errorf("Goroutines = %d, want the 100 parked and more", s.Goroutines)
	}
}

func TestTakeWithoutLabels(t *testing.T) {
	if !supported {
		t.Skip("layout not known")
	}
	s, err := Take(stack.NewTable())
	if err != nil {
		t.Fatal(err)
	}
	if s.Labelled != 0 || s.Profile != nil || s.Goroutines < 1 {
		t.Errorf("no labelled goroutine: got %+v", s)
	}
}
