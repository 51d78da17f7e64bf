package analyze

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// serviceDump is a hand-made service: main, a worker pool idle on a
// channel, a per-request leak whose parents have exited, mutex contention
// in a cache, an old-style WaitGroup waiter, sleepers and goroutines the
// runtime marked leaked. 228 goroutines in 8 groups.
func serviceDump(t testing.TB) *stack.Dump {
	return dumpOf(t, stack.KindGoTraceback, g{id: 1, state: "select", frames: []string{gopark, selectgo, "main.main /app/main.go:40"}},
		g{id: 2, state: "IO wait", frames: []string{gopark, "internal/poll.runtime_pollWait /go/src/runtime/netpoll.go:351", "net/http.(*Server).Serve /go/src/net/http/server.go:3260", goexit},
			creator: "main.main /app/main.go:34", parent: 1},
		g{n: 64, id: 10, state: "chan receive", frames: []string{gopark, chanrecv, "runtime.chanrecv2 /go/src/runtime/chan.go:511", "app.(*Pool).worker /app/pool.go:30", goexit},
			creator: "app.(*Pool).Start /app/pool.go:22", parent: 1},
		g{n: 120, id: 1000, state: "chan send", wait: 3, frames: []string{gopark, chansend1, "app.fetch.func1 /app/fetch.go:51", goexit},
			creator: "app.fetch /app/fetch.go:48", parent: 5000, parents: 120},
		g{n: 30, id: 200, state: "sync.Mutex.Lock", wait: 1, frames: []string{gopark, semacq,
			"sync.runtime_SemacquireMutex /go/src/runtime/sema.go:95", "sync.(*Mutex).lockSlow /go/src/sync/mutex.go:173",
			"sync.(*Mutex).Lock /go/src/sync/mutex.go:92", "app.(*Cache).Get /app/cache.go:17", "app.handle /app/handle.go:9", goexit},
			creator: "net/http.(*Server).Serve /go/src/net/http/server.go:3285", parent: 2},
		g{n: 5, id: 300, state: "semacquire", wait: 12, frames: []string{gopark, semacq, "sync.runtime_Semacquire /go/src/runtime/sema.go:71",
			"sync.(*WaitGroup).Wait /go/src/sync/waitgroup.go:118", "app.batch /app/batch.go:20", goexit},
			creator: "main.main /app/main.go:35", parent: 1},
		g{n: 3, id: 400, state: "sleep", wait: 45, frames: []string{gopark, "time.Sleep /go/src/runtime/time.go:195", "app.ticker /app/tick.go:8", goexit},
			creator: "main.main /app/main.go:36", parent: 1},
		g{n: 4, id: 500, state: "chan receive", leaked: true, frames: []string{gopark, chanrecv1, "app.orphan /app/orphan.go:7", goexit},
			creator: "app.spawn /app/orphan.go:3", parent: 9999},
	)
}

func TestSummaryTotals(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	if s.Total != 228 || s.Groups != 8 || s.Noun != "goroutines" {
		t.Errorf("total %d in %d groups of %s; want 228 in 8 groups of goroutines", s.Total, s.Groups, s.Noun)
	}
	want := []StateCount{{"chan send", 120}, {"chan receive", 68}, {"sync.Mutex.Lock", 30}, {"semacquire", 5}, {"sleep", 3}, {"IO wait", 1}, {"select", 1}}
	if !reflect.DeepEqual(s.States, want) {
		t.Errorf("states\n got %v\nwant %v", s.States, want)
	}
	if len(s.Missing) != 0 || !s.Has("states") {
		t.Errorf("missing %v for a traceback", s.Missing)
	}
}

func TestSummaryTopGroups(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	type row struct {
		count       int64
		state, fn   string
		wmin, wmax  int
		creator     string
		firstID     int64
		line        int
		statesMixed bool
	}
	var got []row
	for _, r := range s.TopGroups {
		got = append(got, row{r.Count, r.State, r.Frame.Func, r.WaitMin, r.WaitMax, r.CreatedBy.Func, r.IDs[0], r.Frame.Line, r.States != nil})
	}
	want := []row{
		{120, "chan send", "app.fetch.func1", 3, 3, "app.fetch", 1000, 51, false},
		{64, "chan receive", "app.(*Pool).worker", 0, 0, "app.(*Pool).Start", 10, 30, false},
		{30, "sync.Mutex.Lock", "app.(*Cache).Get", 1, 1, "net/http.(*Server).Serve", 200, 17, false},
		{5, "semacquire", "app.batch", 12, 12, "main.main", 300, 20, false},
		{4, "chan receive", "app.orphan", 0, 0, "app.spawn", 500, 7, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("top groups\n got %+v\nwant %+v", got, want)
	}
	if ids := s.TopGroups[0].IDs; !slices.Equal(ids, []int64{1000, 1001, 1002, 1003, 1004}) {
		t.Errorf("first ids %v", ids)
	}
}

func TestSummaryTopOption(t *testing.T) {
	s := summarize(serviceDump(t), Options{Top: 2})
	if len(s.TopGroups) != 2 || len(s.Creators) != 2 || len(s.Parents) != 2 || len(s.LongestWaits) != 2 {
		t.Errorf("Top 2: %d groups, %d creators, %d parents, %d waits", len(s.TopGroups), len(s.Creators), len(s.Parents), len(s.LongestWaits))
	}
	s = summarize(serviceDump(t), Options{Top: 100})
	if len(s.TopGroups) != 8 {
		t.Errorf("Top 100: %d groups, want all 8", len(s.TopGroups))
	}
}

func TestSummaryLongestWaits(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	var got []string
	for _, r := range s.LongestWaits {
		got = append(got, minutes(r.WaitMax)+" "+r.Frame.Func)
	}
	want := []string{"45m app.ticker", "12m app.batch", "3m app.fetch.func1", "1m app.(*Cache).Get"}
	if !slices.Equal(got, want) {
		t.Errorf("longest waits %q, want %q", got, want)
	}
}

func TestSummaryPreambleAndWarnings(t *testing.T) {
	d := serviceDump(t)
	for i := range 10 {
		d.Preamble = append(d.Preamble, "line "+itoa(int64(i)))
	}
	for i := range 7 {
		d.Warnings = append(d.Warnings, &stack.ParseError{Line: 10 + i, Offset: int64(100 * i), Msg: "bad frame", Text: "x"})
	}
	d.Truncated = true
	s := summarize(d, Options{})
	if len(s.Preamble) != maxPreamble || s.PreambleLines != 10 || s.Preamble[0] != "line 0" {
		t.Errorf("preamble %q of %d", s.Preamble, s.PreambleLines)
	}
	if s.WarningCount != 7 || len(s.Warnings) != DefaultTop || s.Warnings[1] != (Warning{Line: 11, Offset: 100, Message: "bad frame", Text: "x"}) {
		t.Errorf("warnings %+v of %d", s.Warnings, s.WarningCount)
	}
	if !s.Truncated {
		t.Error("truncation lost")
	}
}

func TestSummaryOfGroupedInput(t *testing.T) {
	d := dumpOf(t, stack.KindGoDebug1, g{count: 700, frames: []string{"app.(*Pool).worker /app/pool.go:30"}},
		g{count: 1500, frames: []string{gopark, chanrecv1, "app.fetch.func1 /app/fetch.go:51"}},
		g{count: 3, frames: []string{"sync.runtime_SemacquireMutex /go/src/runtime/sema.go:95", "sync.(*Mutex).Lock /go/src/sync/mutex.go:92", "app.(*Cache).Get /app/cache.go:17"}},
	)
	s := summarize(d, Options{})
	if s.Total != 2203 || len(s.States) != 0 || s.Has("states") || s.Has("creators") {
		t.Errorf("total %d, states %v, missing %v", s.Total, s.States, s.Missing)
	}
	// Only the stack whose runtime frames show the channel wait is a
	// suspect, flagged by its size alone (a suspect: the input has nothing
	// else to tell it from a pool); debug=1 hides those frames, so the
	// pool's stack says nothing.
	if len(s.LikelyLeaks) != 1 || s.LikelyLeaks[0].Frame.Func != "app.fetch.func1" || s.LikelyLeaks[0].Score != 1 || s.LikelyLeaks[0].Kind != FindingLeakSuspect {
		t.Fatalf("likely leaks %+v", s.LikelyLeaks)
	}
	if len(s.Contention) != 1 || s.ContentionTotal != 3 || s.Contention[0].Frame.Func != "app.(*Cache).Get" || s.Contention[0].Lock != LockMutex {
		t.Errorf("contention %+v", s.Contention)
	}
	if len(s.Creators) != 0 || len(s.Parents) != 0 || len(s.LongestWaits) != 0 {
		t.Errorf("creators %v, parents %v, waits %v from an input without them", s.Creators, s.Parents, s.LongestWaits)
	}
}

func TestSummaryGroupsNil(t *testing.T) {
	d := serviceDump(t)
	s := Summarize(d, nil, Options{})
	if s.Groups != 8 || s.TopGroups[0].Count != 120 {
		t.Errorf("Summarize without groups: %d groups, top %d", s.Groups, s.TopGroups[0].Count)
	}
}

func TestSummaryEmptyDump(t *testing.T) {
	s := summarize(&stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}, Options{})
	if s.Total != 0 || s.Groups != 0 || s.TopGroups == nil && len(s.TopGroups) != 0 {
		t.Errorf("empty dump summary %+v", s)
	}
}
