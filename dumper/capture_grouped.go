package dumper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"sync"

	pprofformat "github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

// Grouped mode reads the runtime's goroutine profile (what
// /debug/pprof/goroutine?debug=0 serves). Since Go 1.19 the runtime
// collects it concurrently: two short stop-the-worlds bracket a pass in
// which each goroutine's stack is recorded before it next runs. The pauses
// are microseconds whatever the number of goroutines; the profile has one
// record per distinct stack and label set, with a count.

// profileBufs reuses the buffers the gzipped profile is written into.
var profileBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// captureGrouped takes the goroutine profile as a dump of counted records.
func captureGrouped(ctx context.Context, t *stack.Table) (*stack.Dump, error) {
	d, err := readGoroutineProfile(ctx, t)
	if err != nil {
		return nil, err
	}
	d.Source.Capture = &stack.Capture{Missing: missingByMode[ModeGrouped]}
	return d, nil
}

// readGoroutineProfile writes the goroutine profile and reads it back
// with the pprof reader, interning into t.
func readGoroutineProfile(ctx context.Context, t *stack.Table) (*stack.Dump, error) {
	p := pprof.Lookup("goroutine")
	if p == nil {
		return nil, errors.New("runtime/pprof has no goroutine profile")
	}
	buf := profileBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 4<<20 {
			profileBufs.Put(buf)
		}
	}()
	if err := p.WriteTo(buf, 0); err != nil {
		return nil, fmt.Errorf("goroutine profile: %w", err)
	}
	var c collectStage
	pl := stack.Pipeline{
		Source:    pprofformat.NewReader(bytes.NewReader(buf.Bytes()), pprofformat.ReadOptions{Table: t}),
		Encoder:   &c,
		ReadError: func(err error) error { return fmt.Errorf("read goroutine profile: %w", err) },
	}
	d, err := pl.Next(ctx) // parse errors are kept in d.Warnings
	if err == io.EOF {
		return nil, fmt.Errorf("read goroutine profile: %w", io.ErrUnexpectedEOF)
	}
	if err != nil {
		return nil, err
	}
	d.Source.Kind = stack.KindGoPprof
	return d, nil
}
