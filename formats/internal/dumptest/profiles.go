package dumptest

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// What the tests of the profile codecs (debug1, pprof, folded) share: an
// in-memory dump to write, the writer helpers, the goroutines the
// generated profiles hold, and comparisons of grouped readings.

// Encode writes dumps through an encoder newEncoder makes (a codec's
// NewEncoder) and returns the bytes, failing t on an error.
func Encode(t testing.TB, newEncoder func(io.Writer) stack.Encoder, dumps ...*stack.Dump) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := newEncoder(&buf)
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// FailingWriter fails every Write with Err.
type FailingWriter struct{ Err error }

// Write returns 0 and w.Err.
func (w FailingWriter) Write([]byte) (int, error) { return 0, w.Err }

// FullDump builds a debug=2 style dump in memory: one routine per
// goroutine, Count 1 (or 0, which counts as 1), with states and ids. Ten
// goroutines on two stacks: 5 "chan receive" and 2 "select" at
// main.worker, 3 "IO wait" at net/http.(*conn).serve labelled svc=users.
func FullDump(tab *stack.Table) *stack.Dump {
	recv := tab.Stack([]*stack.Frame{
		tab.Frame(stack.Frame{Func: "runtime.gopark", File: "/go/src/runtime/proc.go", Line: 435, Offset: 0xce, HasOffset: true}),
		tab.Frame(stack.Frame{Func: "main.worker", File: "/src/main.go", Line: 20, Offset: 0x1c, HasOffset: true}),
	}, stack.Elision{})
	serve := tab.Stack([]*stack.Frame{
		tab.Frame(stack.Frame{Func: "net/http.(*conn).serve", File: "/go/src/net/http/server.go", Line: 2000, Offset: 0x5a, HasOffset: true}),
	}, stack.Elision{})
	svc := tab.Labels(stack.Labels{{Key: "svc", Value: "users"}})
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	for i := range 10 {
		r := &stack.Routine{ID: int64(i + 1), Count: 1, Stack: recv, State: "chan receive"}
		switch {
		case i >= 7:
			r.Stack, r.Labels, r.State = serve, svc, "IO wait"
		case i >= 5:
			r.State, r.Count = "select", 0
		}
		d.Routines = append(d.Routines, r)
		d.Total++
	}
	return d
}

// CheckSameGroups checks that two readings hold the same records, in any
// order: count, leaked, stack pointer, labels and values.
func CheckSameGroups(t testing.TB, a, b []*stack.Dump) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d dumps, then %d", len(a), len(b))
	}
	type key struct {
		stack  *stack.Stack
		labels string
		state  string
		leaked bool
	}
	sum := func(d *stack.Dump) map[key]int64 {
		m := map[key]int64{}
		for _, r := range d.Routines {
			m[key{r.Stack, LabelsString(r.Labels), r.State, r.Leaked}] += r.Count
		}
		return m
	}
	for i := range a {
		if a[i].Total != b[i].Total {
			t.Errorf("dump %d: total %d, then %d", i, a[i].Total, b[i].Total)
		}
		if sa, sb := sum(a[i]), sum(b[i]); !reflect.DeepEqual(sa, sb) {
			t.Errorf("dump %d: groups differ:\n%v\n%v", i, sa, sb)
		}
	}
}

// LabelsString is ls as "key=value;" pairs, in order.
func LabelsString(ls stack.Labels) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Key + "=" + l.Value + ";")
	}
	return b.String()
}

// GeneratedCounts returns the goroutines testdata/gen/profiles starts, by
// the function of theirs nearest the top of the stack.
func GeneratedCounts() map[string]int64 {
	return map[string]int64{
		"main.waitChanRecv": 10,
		"main.inlinedRecv":  7,
		"main.waitLabelled": 6,
		"main.waitChanSend": 5,
		"main.waitMutex":    4,
		"main.waitSelect":   3,
		"main.waitSleep":    2,
		"main.waitGroup":    1,
	}
}

// GeneratedLeakCounts returns the ones of GeneratedCounts the
// goroutineleak profile reports.
func GeneratedLeakCounts() map[string]int64 {
	return map[string]int64{
		"main.waitChanRecv": 10,
		"main.inlinedRecv":  7,
		"main.waitLabelled": 6,
		"main.waitChanSend": 5,
		"main.waitGroup":    1,
	}
}

// CountsByPrefix sums routine counts by the first frame whose function
// starts with prefix; routines without one are not counted.
func CountsByPrefix(d *stack.Dump, prefix string) map[string]int64 {
	got := map[string]int64{}
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if strings.HasPrefix(f.Func, prefix) {
				got[f.Func] += r.Count
				break
			}
		}
	}
	return got
}

// CheckCounts checks that got has the counts of want and no other
// function.
func CheckCounts(t testing.TB, got, want map[string]int64) {
	t.Helper()
	for fn, n := range want {
		if got[fn] != n {
			t.Errorf("%s: count %d, want %d", fn, got[fn], n)
		}
	}
	for fn, n := range got {
		if _, ok := want[fn]; !ok {
			t.Errorf("unexpected %s: count %d", fn, n)
		}
	}
}

// ReadFile returns the contents of the file at path, failing t on an
// error.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ProfileText returns the debug=1 text runtime/pprof writes for the
// profile name of this process.
func ProfileText(t testing.TB, name string) []byte {
	t.Helper()
	p := pprof.Lookup(name)
	if p == nil {
		t.Fatalf("no %s profile", name)
	}
	var buf bytes.Buffer
	if err := p.WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
