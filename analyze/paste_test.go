package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// TestReportedDeadlockWithoutItsThreads: a paste that keeps the JVM's
// deadlock report but not the deadlocked threads (it starts further down
// the dump: internal/paste's cut-start, the first seed that leaves the
// report and none of the cycle) must not say "✓ no deadlocks" while the
// JSON says the JVM reported one (issue 22, item 4).
func TestReportedDeadlockWithoutItsThreads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "jvm", "jthreaddump_deadlock_jdk25.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut, _ := paste.Lookup("from-header")
	for seed := uint64(1); seed <= 200; seed++ {
		form := cut.Apply(data, seed)
		rd := formats.NewReaderBytes(form, formats.ReadOptions{})
		s, _, err := SummarizeNext(rd, StreamOptions{Name: "pasted.txt"})
		if err != nil || s.JVM == nil || s.JVM.ReportedDeadlocks == 0 || len(s.JVM.Deadlocks) != 0 {
			continue
		}
		var text bytes.Buffer
		if err := WriteText(&text, s, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		out := text.String()
		if strings.Contains(out, "no deadlock") || !strings.Contains(out, "DEADLOCK (certain) 2 threads deadlocked") || !strings.Contains(out, "as the JVM reported") {
			t.Errorf("seed %d: the JVM reported %d deadlocks, the text says:\n%s", seed, s.JVM.ReportedDeadlocks, out)
		}
		return
	}
	t.Fatal("no seed of from-header keeps the report without its threads")
}

// TestTruncatedParentUnknown: a dump cut before its goroutine 1 (real
// output cut by internal/paste's cut-end three times over, the first seed
// that keeps a child of goroutine 1 and drops goroutine 1, mid-line, so
// that the reader marks the dump truncated) must not call goroutine 1 exited: it is
// not in the dump, which is cut (issue 22, item 8).
func TestTruncatedParentUnknown(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "go", "gostackparse_go121_createdby.txt"))
	if err != nil {
		t.Fatal(err)
	}
	once, _ := paste.Lookup("cut-end")
	cut := paste.Compose(once, once, once)
	for seed := uint64(1); seed <= 500; seed++ {
		form := cut.Apply(data, seed)
		if bytes.Contains(form, []byte("\ngoroutine 1 [")) {
			continue
		}
		dumps, err := formats.ReadAll(bytes.NewReader(form), formats.ReadOptions{})
		if err != nil || len(dumps) != 1 || !dumps[0].Truncated {
			continue
		}
		s := Summarize(dumps[0], nil, Options{})
		for _, p := range s.Parents {
			if p.ID == 1 && p.Status != "unknown" {
				t.Errorf("seed %d: goroutine 1 of a truncated dump is %q, want unknown", seed, p.Status)
			}
			if p.ID == 1 {
				return
			}
		}
	}
	t.Fatal("no seed of cut-end drops goroutine 1 and keeps its child")
}

// TestTimelineTruncatedSnapshotLosesNone: a snapshot the reader marked
// truncated (real output cut by internal/paste's cut-end) does not count
// the goroutines past the cut as gone: they are not in the snapshot,
// which says it is cut (issue 22, item 8).
func TestTimelineTruncatedSnapshotLosesNone(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", "sigquit_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) *stack.Dump {
		ds, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
		if err != nil || len(ds) != 1 {
			t.Fatalf("%d dumps, %v", len(ds), err)
		}
		return ds[0]
	}
	whole := read(data)
	cut, _ := paste.Lookup("cut-end")
	var part *stack.Dump
	for seed := uint64(1); part == nil; seed++ {
		if d := read(cut.Apply(data, seed)); d.Truncated && len(d.Routines) < len(whole.Routines) {
			part = d
		}
	}
	tl := NewTimeline(TimelineOptions{})
	tl.Add(whole)
	tl.Add(part)
	if s := tl.Report().Snapshots[1]; s.Gone != 0 || !s.Truncated {
		t.Errorf("truncated snapshot of %d of %d goroutines: %d gone %v", len(part.Routines), len(whole.Routines), s.Gone, s.GoneIDs)
	}
}
