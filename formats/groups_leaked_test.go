package formats_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// leakedByTop groups d and returns each group's proven-leaked count by
// the group's top function, with the members per top function.
func leakedByTop(t *testing.T, d *stack.Dump) (leaked, members map[string]int64) {
	t.Helper()
	leaked, members = map[string]int64{}, map[string]int64{}
	for _, g := range dedupe.Group(d, dedupe.Options{}) {
		top := dedupe.TopFrame(g.Sample.Stack).Func
		leaked[top] += g.Leaked
		members[top] += g.Count
	}
	return leaked, members
}

// TestGroupsJSONLeakedRoundTrip groups Go 1.27.3's leak profile of
// testdata/gen/leakproof (200 handlers and 60 fan-out workers proven
// leaked, 120 subscribers blocked but not provable), writes the groups as
// JSON, and reads them back: each group carries "leaked" (absent where
// none is), the records read back are marked Leaked for exactly those
// members, and grouping them again gives the same counts.
func TestGroupsJSONLeakedRoundTrip(t *testing.T) {
	d := doortest.ReadFirst(t, "../testdata/go/leakproof_go127.txt")
	wantLeaked, wantMembers := leakedByTop(t, d)
	if wantLeaked["main.handle"] != 200 || wantLeaked["main.fanOutWorker"] != 60 || wantLeaked["main.subscribe.func1"] != 0 || wantMembers["main.subscribe.func1"] != 120 {
		t.Fatalf("fixture groups: leaked %v of %v", wantLeaked, wantMembers)
	}
	var doc bytes.Buffer
	if err := formats.WriteGroups(&doc, output.JSON, d, dedupe.Group(d, dedupe.Options{})); err != nil {
		t.Fatal(err)
	}

	var parsed struct {
		Groups []struct {
			Count  int64            `json:"count"`
			Leaked *int64           `json:"leaked"`
			Stack  []map[string]any `json:"stack"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(doc.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	var written int64
	for _, g := range parsed.Groups {
		top, _ := g.Stack[0]["func"].(string)
		switch {
		case g.Leaked == nil && wantLeaked[top] > 0:
			t.Errorf("group %s (%d) has no \"leaked\", want %d", top, g.Count, wantLeaked[top])
		case g.Leaked != nil && *g.Leaked == 0:
			t.Errorf("group %s (%d) has \"leaked\":0; want it left out", top, g.Count)
		case g.Leaked != nil:
			written += *g.Leaked
		}
	}
	if written != 260 {
		t.Errorf("\"leaked\" sums to %d over the groups, want 260", written)
	}

	back, err := formats.ReadAll(bytes.NewReader(doc.Bytes()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var marked int64
	for _, r := range back[0].Routines {
		if r.Leaked {
			marked += r.Count
		}
	}
	if marked != 260 {
		t.Errorf("read back, %d members are marked leaked, want 260", marked)
	}
	gotLeaked, gotMembers := leakedByTop(t, back[0])
	for top, n := range wantMembers {
		if gotLeaked[top] != wantLeaked[top] || gotMembers[top] != n {
			t.Errorf("%s: read back and grouped again, %d of %d leaked; want %d of %d", top, gotLeaked[top], gotMembers[top], wantLeaked[top], n)
		}
	}
}

// TestGroupsJSONLeakedSplitsStates reads back a group whose "leaked"
// covers part of its states (the golden grouped document: 1200 of 1234,
// 1200 of them in "chan receive"), then one claiming more leaked members
// than it has: the first is split by state, the second is reported with
// its offset and taken as all of them.
func TestGroupsJSONLeakedSplitsStates(t *testing.T) {
	in, err := os.ReadFile("../testdata/json/grouped.json")
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range dumps[0].Routines {
		key := r.State
		if r.Leaked {
			key += " (leaked)"
		}
		got[key] += r.Count
	}
	if got["chan receive (leaked)"] != 1200 || got["chan receive"] != 0 || got["select"] != 34+3 || got["select (leaked)"] != 0 {
		t.Errorf("golden grouped document read back as %v; want 1200 leaked in chan receive, 37 select not", got)
	}

	bad := strings.Replace(string(in), `"leaked":1200`, `"leaked":5000`, 1)
	dumps, err = formats.ReadAll(strings.NewReader(bad), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var marked int64
	for _, r := range dumps[0].Routines {
		if r.Leaked {
			marked += r.Count
		}
	}
	warned := false
	for _, w := range dumps[0].Warnings {
		warned = warned || strings.Contains(w.Msg, `"leaked"`) && strings.Contains(w.Msg, "1234") && w.Offset > 0
	}
	if marked != 1234 || !warned {
		t.Errorf("a group claiming 5000 leaked of 1234: %d marked, warnings %v; want 1234 and a warning with the offset", marked, dumps[0].Warnings)
	}
}
