package formats_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// benchDebug1Text is a debug=1 profile of n records of depth frames each.
func benchDebug1Text(n, depth int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "goroutine profile: total %d\n", n*3)
	for i := range n {
		fmt.Fprintf(&b, "3 @")
		for j := range depth {
			fmt.Fprintf(&b, " %#x", 0x400000+i*64+j)
		}
		b.WriteString("\n")
		if i%4 == 0 {
			fmt.Fprintf(&b, "# labels: {\"svc\":\"s%d\", \"tenant\":\"acme\"}\n", i%7)
		}
		for j := range depth {
			fmt.Fprintf(&b, "#\t%#x\tgithub.com/acme/service/pkg%d.(*Handler).Method%d+%#x\t/src/service/pkg%d/handler.go:%d\n",
				0x400000+i*64+j-1, j, i%13, 0x40+j, j, 100+i%50)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// benchFullDump is a debug=2 style dump: n goroutines over stacks distinct
// stacks of depth frames.
func benchFullDump(n, stacks, depth int) *stack.Dump {
	tab := stack.NewTable()
	var sts []*stack.Stack
	for i := range stacks {
		var frames []*stack.Frame
		for j := range depth {
			frames = append(frames, tab.Frame(stack.Frame{
				Func: fmt.Sprintf("github.com/acme/service/pkg%d.(*Handler).Method%d", j, i), File: fmt.Sprintf("/src/pkg%d/h.go", j),
				Line: 10 + j, Offset: uint64(0x20 + j), HasOffset: true,
			}))
		}
		sts = append(sts, tab.Stack(frames, stack.Elision{}))
	}
	labels := tab.Labels(stack.Labels{{Key: "svc", Value: "users"}})
	d := &stack.Dump{}
	for i := range n {
		r := &stack.Routine{ID: int64(i + 1), Count: 1, State: "chan receive", Stack: sts[i%stacks]}
		if i%3 == 0 {
			r.Labels, r.State = labels, "select"
		}
		d.Routines = append(d.Routines, r)
	}
	return d
}

func BenchmarkDebug1Read(b *testing.B) {
	in := benchDebug1Text(2000, 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		rd := formats.NewReader(bytes.NewReader(in), formats.ReadOptions{})
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
		for _, err := range rd.Routines() {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkGroupedWrite aggregates 100k goroutines over 60 stacks into
// each grouped format.
func BenchmarkGroupedWrite(b *testing.B) {
	d := benchFullDump(100_000, 60, 20)
	for _, f := range []output.Format{output.Debug1, output.Pprof, output.Folded} {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				enc, _ := formats.NewEncoder(io.Discard, f)
				if err := stack.WriteDump(enc, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPprofRead(b *testing.B) {
	dumps, err := formats.ReadAll(bytes.NewReader(benchDebug1Text(2000, 20)), formats.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	enc, _ := formats.NewEncoder(&buf, output.Pprof)
	if err := stack.WriteDump(enc, dumps[0]); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
