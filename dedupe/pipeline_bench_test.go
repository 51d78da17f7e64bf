package dedupe

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// cpuTime is the process's user and system CPU time so far: steadier than
// wall time on a machine that other work shares.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// handGroupNext is GroupNext as it was written out by hand before the
// grouping stage: the baseline the pipeline's own cost is measured against.
func handGroupNext(rd *formats.Reader, opts Options) (*stack.Dump, []*stack.Group, error) {
	d, err := rd.Next()
	if err != nil {
		return nil, nil, err
	}
	g := NewGrouper(opts)
	for r, err := range rd.Routines() {
		if err != nil {
			var pe *stack.ParseError
			if errors.As(err, &pe) {
				continue
			}
			return d, nil, err
		}
		g.Add(r)
	}
	return d, g.Groups(), nil
}

// BenchmarkPipelineGroup reads and groups a 142,000-goroutine debug=2
// dump (panicweb's 71 goroutines, renumbered 2,000 times) with GroupNext,
// a stack.Pipeline into the grouping stage ("pipeline"), and with the
// hand-written loop it replaced ("hand"). cpu-ms/op is user+system CPU
// time per operation.
func BenchmarkPipelineGroup(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "go", "panicparse_panicweb_debug2.txt"))
	if err != nil {
		b.Fatal(err)
	}
	big, n := repeatDump(data, 2000)
	for _, mode := range []string{"hand", "pipeline"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				rd := formats.NewReader(bytes.NewReader(big), formats.ReadOptions{ReuseRoutines: true})
				var d *stack.Dump
				var err error
				if mode == "hand" {
					d, _, err = handGroupNext(rd, Options{})
				} else {
					d, _, err = GroupNext(rd, Options{}, nil)
				}
				if err != nil || d.Total != int64(n) {
					b.Fatalf("%v, %d routines, want %d", err, d.Total, n)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
