package analyze

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// judgedDump reads a real debug=2 capture of a mode of testdata/gen/judged
// (analyze/testdata/judged/README.md says how each was made).
func judgedDump(t *testing.T, name string) *stack.Dump {
	t.Helper()
	dumps := readDumps(t, filepath.Join("testdata", "judged", name))
	if len(dumps) != 1 {
		t.Fatalf("%s: %d dumps", name, len(dumps))
	}
	return dumps[0]
}

func findingsOf(s *Summary, k FindingKind) []Finding {
	var out []Finding
	for _, f := range s.Findings {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Two goroutines lock two accounts in opposite orders while twenty others
// run: the runtime sees no deadlock, the arguments show the cycle. Each
// transfer waits in lockSlow for the mutex whose address the other
// carries in main.transfer's arguments.
func TestGoDeadlockABBA(t *testing.T) {
	d := judgedDump(t, "abba_go126.txt")
	transfers := idsWhere(d, "main.transfer")
	if len(transfers) != 2 {
		t.Fatalf("%d main.transfer goroutines in the dump", len(transfers))
	}
	s := Summarize(d, nil, Options{})
	dl := findingsOf(s, FindingDeadlock)
	if len(dl) != 1 {
		t.Fatalf("deadlocks %+v; want the one cycle", dl)
	}
	f := dl[0]
	if f.Confidence != Likely || len(f.Subject.Cycle) != 2 || !slices.Equal(f.Subject.IDs, transfers) || f.WouldProve == "" {
		t.Errorf("deadlock %+v", f)
	}
	for i, st := range f.Subject.Cycle {
		next := f.Subject.Cycle[(i+1)%2]
		if st.Routine.Frame == nil || st.Routine.Frame.Func != "main.transfer" || !strings.HasPrefix(st.WaitsFor, "sync.Mutex 0x") ||
			!strings.Contains(st.HeldBy, "goroutine "+itoa(next.Routine.ID)+" carries its address in main.transfer") {
			t.Errorf("step %d: %+v", i, st)
		}
	}
	if len(s.GoLocks) != 2 || !s.GoLocks[0].Deadlocked || !s.GoLocks[1].Deadlocked {
		t.Errorf("locks %+v; want the two, deadlocked", s.GoLocks)
	}
	if len(findingsOf(s, FindingContention)) != 0 {
		t.Errorf("a deadlock reported as contention too: %+v", s.Findings)
	}
	var b bytes.Buffer
	WriteText(&b, s, TextOptions{})
	if strings.Contains(b.String(), "no deadlock") || !strings.Contains(b.String(), "DEADLOCK (likely) 2 goroutines deadlocked") {
		t.Errorf("text:\n%s", b.String())
	}
}

// A goroutine holds a store's mutex and sleeps while 40 wait for it: one
// lock, by its address, and its probable holder, the one goroutine that
// carries the address without waiting; with the holder cut out of the
// dump, the holder is said not to be in it.
func TestGoLockHolder(t *testing.T) {
	d := judgedDump(t, "mutex40_go126.txt")
	holder := idsWhere(d, "main.(*store).compact")
	if len(holder) != 1 || len(idsWhere(d, "main.(*store).get")) != 40 {
		t.Fatalf("holder %v, %d waiters", holder, len(idsWhere(d, "main.(*store).get")))
	}
	s := Summarize(d, nil, Options{})
	if len(s.GoLocks) != 1 {
		t.Fatalf("locks %+v", s.GoLocks)
	}
	l := s.GoLocks[0]
	if l.Waiters != 40 || l.Kind != LockMutex || l.Holder == nil || l.Holder.ID != holder[0] || l.Holder.State != "sleep" ||
		l.Carriers != 1 || !strings.Contains(l.HolderEvidence, "carries its address in main.(*store).compact") {
		t.Errorf("lock %+v", l)
	}
	c := findingsOf(s, FindingContention)
	if len(c) != 1 || c[0].Confidence != Certain || c[0].Subject.Holder == nil || c[0].Subject.Holder.ID != holder[0] || c[0].Subject.Lock != l.Addr {
		t.Errorf("contention %+v", c)
	}
	if len(findingsOf(s, FindingDeadlock))+len(findingsOf(s, FindingBlocked)) != 0 {
		t.Errorf("a held mutex whose holder sleeps is neither deadlocked nor blocked: %+v", s.Findings)
	}
	if clear := s.Clear(); slices.Contains(clear, "nothing blocked") || slices.Contains(clear, "no lock contention") {
		t.Errorf("40 goroutines queued on a held mutex, yet all clear: %q", clear)
	}

	cut := *d
	cut.Routines = slices.DeleteFunc(slices.Clone(d.Routines), func(r *stack.Routine) bool { return r.ID == holder[0] })
	cut.Total--
	s = Summarize(&cut, nil, Options{})
	if l := s.GoLocks[0]; l.Holder != nil || l.Carriers != 0 || !strings.HasPrefix(l.HolderEvidence, "holder not in the dump") {
		t.Errorf("without its holder: %+v", l)
	}
}

// Readers and writers of one RWMutex held for writing: the readers' lock
// is not in their frames (RLock is inlined, its semaphore's argument
// uncertain), so the first argument of the code that waits names it; it
// is the writers' lock, one RWMutex, held by the goroutine that rebuilds.
func TestGoLockRWMutex(t *testing.T) {
	d := judgedDump(t, "rwmutex_go126.txt")
	s := Summarize(d, nil, Options{})
	if len(s.GoLocks) != 1 {
		t.Fatalf("locks %+v; want one RWMutex", s.GoLocks)
	}
	l := s.GoLocks[0]
	rebuild := idsWhere(d, "main.(*table).rebuild")
	if l.Waiters != 35 || l.Kind != LockRWMutex || l.Holder == nil || len(rebuild) != 1 || l.Holder.ID != rebuild[0] {
		t.Errorf("lock %+v; want 35 waiters held by goroutine %v", l, rebuild)
	}
	if c := findingsOf(s, FindingContention); len(c) != 1 || c[0].Subject.Count != 35 {
		t.Errorf("contention %+v; want one finding for the one lock", c)
	}
}

// 200 goroutines wait on a WaitGroup no goroutine carries any more: in
// one dump a pile too small to call blocked; in two snapshots two seconds
// apart, stuck, for no one can serve it.
func TestTimelineDeadObjectStuck(t *testing.T) {
	d := judgedDump(t, "wgpile_go126.txt")
	if s := Summarize(d, nil, Options{}); len(findingsOf(s, FindingBlocked)) != 0 {
		t.Errorf("one dump, 200 waiters: %+v", s.Findings)
	}
	waiters := idsWhere(d, "main.(*batch).await")
	tl := NewTimeline(TimelineOptions{})
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range 2 {
		c := *d
		c.Source.CapturedAt = t0.Add(time.Duration(i) * 2 * time.Second)
		tl.Add(&c)
	}
	rep := tl.Report()
	i := slices.IndexFunc(rep.Stuck, func(r StuckRow) bool { return r.Frame != nil && r.Frame.Func == "main.(*batch).await" })
	if i < 0 || rep.Stuck[i].Count != len(waiters) || rep.Stuck[i].Why != "no-sender" {
		t.Fatalf("stuck %+v; want the %d waiters, no one can serve them", rep.Stuck, len(waiters))
	}
	if !slices.ContainsFunc(rep.Findings, func(f Finding) bool {
		return f.Kind == FindingStuck && f.Subject.Count == int64(len(waiters)) && f.Evidence[1].Kind == EvidenceNoSender
	}) {
		t.Errorf("findings %+v", rep.Findings)
	}
	// Within MinStuck the same wait is idle.
	tl = NewTimeline(TimelineOptions{MinStuck: time.Minute})
	for i := range 2 {
		c := *d
		c.Source.CapturedAt = t0.Add(time.Duration(i) * 2 * time.Second)
		tl.Add(&c)
	}
	if rep := tl.Report(); rep.StuckTotal != 0 {
		t.Errorf("stuck within MinStuck: %+v", rep.Stuck)
	}
}

// Arguments read as addresses only when they are: hex of at least
// 0x10000, not marked uncertain, inside braces too.
func TestArgWords(t *testing.T) {
	got := argWords("0x2e39d42f0200, {0x906b4f, 0x4}, 0x0?, 0x28331382e780?, 0xa, ..., 0xfffffffffffffffff, 0x10000", nil)
	want := []uint64{0x2e39d42f0200, 0x906b4f, 0x10000}
	if !slices.Equal(got, want) {
		t.Errorf("argWords = %#x, want %#x", got, want)
	}
	if firstWord("{0x120b58ee0e0, 0x1}") != 0x120b58ee0e0 || firstWord("0x0?, 0xc000") != 0 || firstWord("") != 0 {
		t.Error("firstWord")
	}
}
