package formats

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
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
ids 5, 7, 9-12, 200, … (+1227 more)
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
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	var buf bytes.Buffer
	if err := WriteGroups(&buf, output.Text, d, dumptest.Groups(tab, d)); err != nil {
		t.Fatal(err)
	}
	if diff := dumptest.DiffText(strings.TrimPrefix(wantGroupsText, "\n"), buf.String()); diff != "" {
		t.Error(diff)
	}
}

func TestWriteGroupsTextThreads(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.JVMDump(tab)
	g := &stack.Group{Count: 1, IDs: []int64{23}, States: map[string]int64{"WAITING (parking)": 1}, Sample: d.Routines[0]}
	var buf bytes.Buffer
	if err := WriteGroups(&buf, output.Text, d, []*stack.Group{g}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if want := "1 thread in 1 group (of 2 in the dump), OpenJDK 64-Bit Server VM (17.0.15+6), pid 4242"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}

func TestWriteGroupsOtherFormats(t *testing.T) {
	for _, f := range []output.Format{output.Pprof, output.Folded, "yaml"} {
		err := WriteGroups(&bytes.Buffer{}, f, &stack.Dump{}, nil)
		if err == nil || !strings.Contains(err.Error(), "cannot be written as") {
			t.Errorf("%s: error %v, want a clear refusal", f, err)
		}
	}
}

// TestWriteGroupsDebug1 reads the debug=1 output back with the debug=1
// reader: the counts and label sets of the groups come back.
func TestWriteGroupsDebug1(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	var buf bytes.Buffer
	if err := WriteGroups(&buf, output.Debug1, d, dumptest.Groups(tab, d)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "goroutine profile: total ") {
		t.Fatalf("not debug=1 text:\n%s", buf.String())
	}
	dumps, err := ReadAll(&buf, ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("read back: %d dumps, %v", len(dumps), err)
	}
	counts := map[string]int64{}
	var total int64
	for _, r := range dumps[0].Routines {
		counts[fmt.Sprint(r.Labels)] += r.Count
		total += r.Count
	}
	if total != 1238 {
		t.Errorf("records sum to %d goroutines, want 1238", total)
	}
	for labels, want := range map[string]int64{
		"[{svc users}]": 1200, "[{odd key x y} {svc admin}]": 34, "[]": 3,
		fmt.Sprint(d.Routines[0].Labels): 1,
	} {
		if counts[labels] != want {
			t.Errorf("label set %s: %d goroutines, want %d (all: %v)", labels, counts[labels], want, counts)
		}
	}
}
