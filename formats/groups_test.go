package formats

import (
	"bytes"
	"strings"
	"testing"
)

// wantGroupsText is the fixture's groups as WriteGroups prints them.
const wantGroupsText = `
1238 goroutines in 3 groups, go1.26.8, http://127.0.0.1:6060/debug/pprof/goroutine?debug=2
warning: the dump is truncated; counts are lower bounds
warning: 2 parts of the input could not be read; first: line 12: frame without file line: "main.broken("
panic: first [recovered]
	panic: second "quoted" \ back
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x514143]

1234 goroutines [chan receive: 1200, select: 34, 3~17 minutes, 2 locked to thread] created by main.startWorkers in goroutine 1
ids 5, 7, 9-12, 200 (+1227 more)
labels {svc: users}: 1200, {"odd key": "x y", svc: admin}: 34
runtime.gopark(...)
	/usr/local/go/src/runtime/proc.go:460 +0xce
main.worker[...](...)
	/src/app/worker.go:18 +0x5c
...additional frames elided...

1 goroutine [running, locked to thread]
ids 1
labels {svc: users, "weird key": "a\"b\nc\t\u00fc\x01"}
main.(*Server).work(0xc000010000, {0x0?, 0x1})
	/src/app/server.go:42 +0x1d
main.helper(...)
	/src/app/helper.go:7
...103 frames elided...
main.worker[...](0x0?, ...)
	/src/app/worker.go:18 +0x5c
main.main()
	/src/app/main.go:30 +0x1f3

3 goroutines [select]
runtime.gopark(...)
	/usr/local/go/src/runtime/proc.go:460 +0xce
main.(*Server).work(...)
	/src/app/server.go:42 +0x1d
`

func TestWriteGroupsText(t *testing.T) {
	tab := NewTable()
	d := fixtureGoDump(tab)
	var buf bytes.Buffer
	if err := WriteGroups(&buf, FormatText, d, fixtureGroups(tab, d)); err != nil {
		t.Fatal(err)
	}
	if diff := diffText(strings.TrimPrefix(wantGroupsText, "\n"), buf.String()); diff != "" {
		t.Error(diff)
	}
}

func TestWriteGroupsTextThreads(t *testing.T) {
	tab := NewTable()
	d := fixtureJVMDump(tab)
	g := &Group{Count: 1, IDs: []int64{23}, States: map[string]int64{"WAITING (parking)": 1}, Sample: d.Routines[0]}
	var buf bytes.Buffer
	if err := WriteGroups(&buf, FormatText, d, []*Group{g}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if want := "1 thread in 1 group (of 2 in the dump), OpenJDK 64-Bit Server VM (17.0.15+6), pid 4242"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}

func TestGroupIDRanges(t *testing.T) {
	for _, c := range []struct {
		ids  []int64
		want string
	}{
		{[]int64{1}, "1"},
		{[]int64{1, 2}, "1, 2"},
		{[]int64{1, 2, 3}, "1-3"},
		{[]int64{5, 7, 9, 10, 11, 12, 200}, "5, 7, 9-12, 200"},
		{[]int64{1, 2, 4, 5, 6, 8}, "1, 2, 4-6, 8"},
	} {
		if got := string(appendGroupIDs(nil, c.ids)); got != c.want {
			t.Errorf("%v: %q, want %q", c.ids, got, c.want)
		}
	}
}

func TestWriteGroupsOtherFormats(t *testing.T) {
	for _, f := range []Format{FormatPprof, FormatFolded, "yaml"} {
		err := WriteGroups(&bytes.Buffer{}, f, &Dump{}, nil)
		if err == nil || !strings.Contains(err.Error(), "cannot be written as") {
			t.Errorf("%s: error %v, want a clear refusal", f, err)
		}
	}
}

func TestGroupRecord(t *testing.T) {
	tab := NewTable()
	d := fixtureGoDump(tab)
	gs := fixtureGroups(tab, d)
	r := groupRecord(gs[0])
	if r.Count != 1234 || r.Stack != d.Routines[1].Stack || r.Labels != nil {
		t.Errorf("record of a mixed-label group: count %d, labels %v", r.Count, r.Labels)
	}
	if d.Routines[1].Count != 1 {
		t.Error("groupRecord changed the sample")
	}
	r = groupRecord(gs[1])
	if r.Count != 1 || len(r.Labels) != 2 {
		t.Errorf("record of a one-label-set group: count %d, labels %v", r.Count, r.Labels)
	}
}
