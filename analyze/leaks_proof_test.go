package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// leakproofDump is Go 1.27.3's /debug/pprof/goroutineleak?debug=2 of
// testdata/gen/leakproof: 200 handlers and 60 fan-out workers proven
// leaked, 120 subscribers leaked where the GC cannot see it (a global
// registry keeps their channels reachable), a pool of 8 and 5 sleepers.
const leakproofDump = "leakproof_go127.txt"

func summarizeLeakproof(t *testing.T) *Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "go", leakproofDump))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Proof ranks above suspicion: the proven leaks are listed as Leaked and
// are not suspects again; the heuristic suspects only what the GC could
// not prove.
func TestLeakProofRanksAboveSuspicion(t *testing.T) {
	s := summarizeLeakproof(t)
	if s.LeakedTotal != 260 || len(s.Leaked) != 2 {
		t.Fatalf("leaked %d in %d rows, want 260 in 2: %+v", s.LeakedTotal, len(s.Leaked), s.Leaked)
	}
	if l := s.Leaked[0]; l.Count != 200 || l.State != "chan send" || l.Frame.Func != "main.handle" || l.CreatedBy.Func != "main.request" {
		t.Errorf("first proven row %+v", l)
	}
	if l := s.Leaked[1]; l.Count != 60 || l.State != "chan receive" || l.Frame.Func != "main.fanOutWorker" {
		t.Errorf("second proven row %+v", l)
	}
	if len(s.LikelyLeaks) != 1 {
		t.Fatalf("suspects %+v, want only the subscribers", s.LikelyLeaks)
	}
	if l := s.LikelyLeaks[0]; l.Frame.Func != "main.subscribe.func1" || l.Blocked != 120 || l.Proven != 0 {
		t.Errorf("suspect %+v", l)
	}

	var text bytes.Buffer
	if err := WriteText(&text, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	proven, suspected := strings.Index(out, "PROVEN LEAK (certain) 200 goroutines leaked at main.handle"), strings.Index(out, "LIKELY LEAK")
	if proven < 0 || suspected < proven || !strings.Contains(out, "PROVEN LEAK (certain) 60 goroutines leaked at main.fanOutWorker") {
		t.Fatalf("proven leaks (at %d) do not come before the suspects (at %d):\n%s", proven, suspected, out)
	}
	suspects, _, _ := strings.Cut(out[suspected:], "\n\n")
	if strings.Contains(suspects, "main.handle") || strings.Contains(suspects, "main.fanOutWorker") || !strings.Contains(suspects, "main.subscribe.func1") {
		t.Errorf("the suspects list proven leaks again, or misses the unproven one:\n%s", suspects)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dumps []struct {
			LeakedTotal int64 `json:"leaked_total"`
			LikelyLeaks []struct {
				Blocked int64 `json:"blocked"`
			} `json:"likely_leaks"`
		} `json:"dumps"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Dumps) != 1 || doc.Dumps[0].LeakedTotal != 260 || len(doc.Dumps[0].LikelyLeaks) != 1 {
		t.Errorf("JSON: %s", js.String()[:min(js.Len(), 400)])
	}
}

// A group partly proven leaked stays a suspect for the rest, which is
// scored alone and says how many of its place were proven.
func TestLeakSuspectPartlyProven(t *testing.T) {
	tbl := stack.NewTable()
	st := tbl.Stack([]*stack.Frame{tbl.Frame(stack.Frame{Func: "main.wait", File: "/app/w.go", Line: 9})}, stack.Elision{})
	creator := tbl.Frame(stack.Frame{Func: "main.serve", File: "/app/s.go", Line: 3})
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	for i := range 300 {
		d.Routines = append(d.Routines, &stack.Routine{ID: int64(100 + i), Count: 1, State: "chan receive", Leaked: i < 100,
			Stack: st, CreatedBy: creator, ParentID: int64(1000 + i)})
	}
	d.Total = 300
	s := Summarize(d, dedupe.Group(d, dedupe.Options{}), Options{})
	if s.LeakedTotal != 100 || len(s.LikelyLeaks) != 1 {
		t.Fatalf("leaked %d, suspects %+v", s.LeakedTotal, s.LikelyLeaks)
	}
	l := s.LikelyLeaks[0]
	if l.Blocked != 200 || l.Proven != 100 || !strings.Contains(strings.Join(l.Reasons, "; "), "100 more of them were proven leaked") {
		t.Errorf("suspect %+v", l)
	}
}
