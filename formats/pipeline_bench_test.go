package formats

import (
	"bytes"
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
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

// handCopy is the read → encode loop as it was written out by hand before
// Pipeline: the baseline the pipeline's own cost is measured against.
func handCopy(enc stack.Encoder, rd *Reader) error {
	rd.reuseRoutines()
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := enc.BeginDump(d); err != nil {
			return err
		}
		for r, err := range rd.Routines() {
			if err != nil {
				if _, ok := err.(*stack.ParseError); ok {
					continue
				}
				return err
			}
			if err := enc.WriteRoutine(r); err != nil {
				return err
			}
		}
		if err := enc.EndDump(d); err != nil {
			return err
		}
	}
}

// BenchmarkPipelineCopy streams a generated 100k-goroutine debug=2 dump
// into the JSON encoder (writing to io.Discard) through a Pipeline
// ("pipeline", what Copy runs) and through the hand-written loop it
// replaced ("hand"). cpu-ms/op is user+system CPU time per operation.
func BenchmarkPipelineCopy(b *testing.B) {
	data := dumptest.TracebackBytes(100_000)
	for _, mode := range []string{"hand", "pipeline"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				enc, _ := NewEncoder(io.Discard, output.JSON)
				rd := NewReader(bytes.NewReader(data), ReadOptions{Kind: stack.KindGoTraceback})
				var err error
				if mode == "hand" {
					err = handCopy(enc, rd)
				} else {
					rd.reuseRoutines()
					p := stack.Pipeline{Source: rd, Encoder: enc}
					_, err = p.Run(context.Background())
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
