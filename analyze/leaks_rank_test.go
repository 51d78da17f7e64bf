package analyze

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

//go:noinline
func rankLarge(ch chan struct{}) { <-ch }

//go:noinline
func rankChurn(ch chan struct{}) { ch <- struct{}{} }

//go:noinline
func rankGrowing(ch chan struct{}) { <-ch }

// rankScene holds this process's goroutines in three shapes, as a loaded
// service shows them:
//   - large: 600 goroutines parked on a channel, started by 6 goroutines
//     that are still alive (a pool of pools: no evidence of a leak);
//   - churn: short-lived requests each leave one goroutine blocked
//     sending, then exit (many parents, all gone: a likely leak in one
//     dump), in numbers that come and go;
//   - growing: one live goroutine starts 60 more receivers at each step.
type rankScene struct {
	stop    chan struct{}
	churn   []chan struct{}
	growing chan struct{}
	grow    chan int
	wg      sync.WaitGroup
}

func newRankScene(t *testing.T) *rankScene {
	s := &rankScene{stop: make(chan struct{}), growing: make(chan struct{}), grow: make(chan int)}
	var started sync.WaitGroup
	for range 6 {
		started.Add(100)
		go func() {
			for range 100 {
				go func() { started.Done(); rankLarge(s.stop) }()
			}
			<-s.stop
		}()
	}
	go func() { // the parent of the growing group, alive throughout
		for n := range s.grow {
			for range n {
				go func() { s.wg.Done(); rankGrowing(s.growing) }()
			}
		}
	}()
	started.Wait()
	t.Cleanup(func() {
		close(s.stop)
		close(s.growing)
		close(s.grow)
		s.setChurn(0)
	})
	return s
}

// setChurn leaves n churn goroutines, each started by a request
// goroutine that exited.
func (s *rankScene) setChurn(n int) {
	for len(s.churn) > n {
		<-s.churn[len(s.churn)-1]
		s.churn = s.churn[:len(s.churn)-1]
	}
	var reqs sync.WaitGroup
	for len(s.churn) < n {
		ch := make(chan struct{})
		s.churn = append(s.churn, ch)
		reqs.Add(1)
		go func() {
			defer reqs.Done()
			go rankChurn(ch)
		}()
	}
	reqs.Wait()
}

// snapshot grows the growing group by grow, sets the churn to churn, and
// takes a runtime.Stack dump once every goroutine is in place.
func (s *rankScene) snapshot(t *testing.T, grow, churn, wantGrowing int) *stack.Dump {
	t.Helper()
	s.wg.Add(grow)
	s.grow <- grow
	s.wg.Wait()
	s.setChurn(churn)
	buf := make([]byte, 8<<20)
	for range 2000 {
		text := string(buf[:runtime.Stack(buf, true)])
		if parked(text, "chan receive", "rankGrowing") == wantGrowing && parked(text, "chan send", "rankChurn") == churn &&
			parked(text, "chan receive", "rankLarge") == 600 && strings.Count(text, ".rankGrowing(") == wantGrowing && strings.Count(text, ".rankChurn(") == churn {
			dumps, err := formats.ReadAll(strings.NewReader(text), formats.ReadOptions{})
			if err != nil || len(dumps) != 1 {
				t.Fatal(err)
			}
			return dumps[0]
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the goroutines never all parked")
	return nil
}

// parked counts the goroutines of text in state at the top of fn.
func parked(text, state, fn string) int {
	return strings.Count(text, "["+state+"]:\n"+"github.com/stackdump/stackdump/analyze."+fn+"(")
}

func suspectAt(s *Summary, fn string) (int, *LeakSuspect) {
	for i := range s.LikelyLeaks {
		if f := s.LikelyLeaks[i].Frame; f != nil && strings.HasSuffix(f.Func, fn) {
			return i, &s.LikelyLeaks[i]
		}
	}
	return -1, nil
}

// Leak suspects are judged and ranked by evidence: in one dump, the 600
// goroutines of six live parents are a pool, not a suspect, while the 60
// of exited parents are a likely leak; across three dumps of the process,
// the group that grew each time comes first (and is a growth finding),
// and the churn that fell between dumps is no suspect any more.
func TestLikelyLeaksRankByEvidence(t *testing.T) {
	scene := newRankScene(t)
	d1 := scene.snapshot(t, 60, 60, 60)

	one := Summarize(d1, nil, Options{})
	_, large := suspectAt(one, ".rankLarge")
	_, churn := suspectAt(one, ".rankChurn")
	if large != nil || churn == nil {
		t.Fatalf("suspects %+v; want the churn group, not the large one", one.LikelyLeaks)
	}
	if churn.Kind != FindingLikelyLeak || churn.Blocked != 60 || churn.ExitedParents != 60 || churn.Growth != nil {
		t.Errorf("churn %+v", churn)
	}

	h := NewLeakHistory()
	opts := Options{History: h}
	Summarize(d1, nil, opts)
	Summarize(scene.snapshot(t, 60, 20, 120), nil, opts)
	last := Summarize(scene.snapshot(t, 60, 50, 180), nil, opts)
	gi, growing := suspectAt(last, ".rankGrowing")
	if gi != 0 || growing.Kind != FindingLikelyLeak || !slices.Equal(growing.Growth, []int64{60, 120, 180}) || growing.Score != 2 ||
		growing.Reasons[0] != "grew across 3 dumps (60 → 120 → 180)" {
		t.Errorf("growing group at %d: %+v; want it first, for its growth", gi, growing)
	}
	if _, churn := suspectAt(last, ".rankChurn"); churn != nil {
		t.Errorf("churn that fell (60 → 20 → 50) still suspect: %+v", churn)
	}
	if _, large := suspectAt(last, ".rankLarge"); large != nil {
		t.Errorf("steady large group flagged: %+v", large)
	}
	var grew []string
	for _, f := range last.Findings {
		if f.Kind == FindingGrowth {
			grew = append(grew, f.Claim)
		}
	}
	if len(grew) != 1 || !strings.Contains(grew[0], "rankGrowing grew from 60 to 180 across 3 dumps") {
		t.Errorf("growth findings %q; want the growing group alone", grew)
	}
	var b strings.Builder
	if err := WriteText(&b, last, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "grew across 3 dumps (60 → 120 → 180)") {
		t.Errorf("text does not say why the growing group is listed:\n%s", b.String())
	}
}
