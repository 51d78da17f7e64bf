package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// timelineDoc is the part of `timeline --json` the tests read.
type timelineDoc struct {
	Schema    string `json:"schema"`
	Snapshots []struct {
		Index      int       `json:"index"`
		Name       string    `json:"name"`
		Target     string    `json:"target"`
		CapturedAt time.Time `json:"captured_at"`
		Total      int64     `json:"total"`
		New        int       `json:"new"`
		Gone       int       `json:"gone"`
	} `json:"snapshots"`
	Stuck      []stuckDoc        `json:"stuck"`
	StuckTotal int               `json:"stuck_total"`
	Idle       []stuckDoc        `json:"idle"`
	IdleTotal  int               `json:"idle_total"`
	Busiest    []json.RawMessage `json:"busiest"`
	Groups     []struct {
		Counts []int64 `json:"counts"`
	} `json:"groups"`
	SpanMS int64 `json:"span_ms"`
}

type stuckDoc struct {
	Count int    `json:"count"`
	State string `json:"state"`
	Frame struct {
		Func string `json:"func"`
	} `json:"frame"`
	IDs        []int64 `json:"ids"`
	ForMS      int64   `json:"for_ms"`
	ObservedMS int64   `json:"observed_ms"`
}

// TestTimelineCommandLiveGo captures a live Go program three times with
// `stackdump capture`, gives the files to `timeline --json` out of order,
// and checks that they are put in capture order and that the program's
// blocked goroutines are unchanged: idle (seven goroutines on a channel
// are an idle pool's shape), not stuck.
func TestTimelineCommandLiveGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := livechild.StartStuck(ctx, t)
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		if i > 0 {
			time.Sleep(300 * time.Millisecond)
		}
		path := filepath.Join(dir, "g"+strconv.Itoa(i+1)+".json")
		if _, stderr, err := runCLI(t, "capture", base, "-o", path); err != nil {
			t.Fatalf("capture: %v\n%s", err, stderr)
		}
		files = append(files, path)
	}
	out, stderr, err := runCLI(t, "timeline", "--json", files[2], files[0], files[1])
	if err != nil {
		t.Fatalf("timeline: %v\n%s", err, stderr)
	}
	var doc timelineDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Schema != "stackdump-timeline/v1" || len(doc.Snapshots) != 3 {
		t.Fatalf("schema %q, %d snapshots", doc.Schema, len(doc.Snapshots))
	}
	for i, s := range doc.Snapshots {
		if s.Name != files[i] || s.Index != i || s.CapturedAt.IsZero() || s.Target == "" {
			t.Errorf("snapshot %d: %+v; want %s, in capture order", i, s, files[i])
		}
	}
	first, last := doc.Snapshots[0].CapturedAt, doc.Snapshots[2].CapturedAt
	if doc.SpanMS != last.Sub(first).Milliseconds() || doc.SpanMS < 500 {
		t.Errorf("span %dms; captures %v to %v", doc.SpanMS, first, last)
	}
	found := false
	sum := 0
	for _, s := range doc.Idle {
		sum += s.Count
		if s.Frame.Func == "main.stuckWorker" {
			found = true
			if s.Count != 7 || len(s.IDs) != 7 || s.State != "chan receive" || s.ObservedMS != doc.SpanMS || s.ForMS < s.ObservedMS {
				t.Errorf("unchanged workers %+v", s)
			}
		}
		if s.Frame.Func == "main.shortLived" {
			t.Errorf("short-lived goroutines reported unchanged: %+v", s)
		}
	}
	if !found || doc.IdleTotal != sum || doc.StuckTotal != 0 {
		t.Errorf("idle %+v, idle_total %d, stuck_total %d", doc.Idle, doc.IdleTotal, doc.StuckTotal)
	}
	if doc.Snapshots[1].New == 0 || doc.Snapshots[2].Gone == 0 {
		t.Errorf("no ids came and went: %+v", doc.Snapshots)
	}
	if doc.Busiest == nil || len(doc.Busiest) != 0 {
		t.Errorf("busiest %s; want [] for goroutines", doc.Busiest)
	}

	// Standard input is read once: in capture order it is a snapshot like
	// the others, out of order it cannot be read again.
	third, err := os.ReadFile(files[2])
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = runCLIInput(t, third, "timeline", "--json", files[0], files[1], "-")
	if err != nil || !strings.Contains(out, `"name": "standard input"`) {
		t.Errorf("stdin last, in order: %v\n%s", err, out)
	}
	out, _, err = runCLIInput(t, third, "timeline", "--json", "-", files[0])
	if err == nil || !strings.Contains(err.Error(), "standard input") || out != "" {
		t.Errorf("stdin out of order: %v\n%s", err, out)
	}

	text, _, err := runCLI(t, append([]string{"timeline", "--color", "never"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 snapshots", "Stuck  nothing unchanged waits on a lock", "Idle ", "for an event", "Groups over time", "7 → 7 → 7"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	listed, _, err := runCLI(t, append([]string{"timeline", "--color", "never", "--housekeeping"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listed, "main.stuckWorker (main.go:") {
		t.Errorf("--housekeeping does not list the idle workers:\n%s", listed)
	}
}

// Dumps without capture times (debug=2 text) are taken in argument order.
func TestTimelineCommandArgumentOrder(t *testing.T) {
	leak(t, 4)
	a := writeProfile(t, "a.txt", 2)
	b := writeProfile(t, "b.txt", 2)
	out, _, err := runCLI(t, "timeline", "--json", b, a)
	if err != nil {
		t.Fatal(err)
	}
	var doc timelineDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Snapshots) != 2 || doc.Snapshots[0].Name != b || doc.Snapshots[1].Name != a {
		t.Fatalf("snapshots %+v; want b then a", doc.Snapshots)
	}
	i := slices.IndexFunc(doc.Idle, func(s stuckDoc) bool {
		return strings.HasSuffix(s.Frame.Func, "stackdump.leakyWorker")
	})
	if i < 0 || doc.Idle[i].Count < 4 || doc.Idle[i].ObservedMS != 0 {
		t.Errorf("leaky workers not unchanged, or observed without capture times: %+v", doc.Idle)
	}
}

// A file that is not a dump fails the command with its name; the
// snapshots read before it are still reported.
func TestTimelineCommandBadInput(t *testing.T) {
	good := writeProfile(t, "good.txt", 2)
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("not a dump\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, "timeline", good, bad)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("error %v; want one naming %s", err, bad)
	}
	if _, _, err := runCLI(t, "timeline", "-"); err == nil || !strings.Contains(err.Error(), "standard input: no dump found") {
		t.Errorf("timeline - with nothing on standard input: %v", err)
	}
}
