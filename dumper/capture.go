package dumper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// Mode says how [Capture] takes a dump, and so what it costs the process
// and what the dump holds. docs/capture.md has measured numbers.
type Mode string

// Capture modes.
const (
	// ModeFull is every goroutine with its id, state, wait time, arguments,
	// creator and labels, from a stop-the-world pass of runtime.Stack into
	// a presized buffer (normally one pass, at most four). The pause grows with the number of goroutines (about 0.3 µs each plus
	// printing time).
	ModeFull Mode = "full"
	// ModeGrouped is one record per distinct stack and label set with a
	// count, from the runtime's concurrent goroutine profile: pauses of
	// microseconds whatever the number of goroutines, but no ids, states,
	// wait times, arguments or creators.
	ModeGrouped Mode = "grouped"
	// ModeTrace is every goroutine with id, state and stack reconstructed
	// from a short runtime/trace window: no long pause, but states may be
	// inferred and stacks of goroutines that ran during the window stale.
	ModeTrace Mode = "trace"
	// ModeLeak is ModeFull after a leak-detection GC cycle (Go 1.27's
	// goroutineleak profile): goroutines blocked where nothing reachable can
	// ever wake them are marked Leaked, `(leaked)` in text. The GC cycle
	// stalls the program for a time that grows faster than the number of
	// blocked goroutines: tens to hundreds of ms at 10k, about a minute at
	// 100k (docs/modes.md), so a process with more goroutines than
	// CaptureOptions.LeakMaxGoroutines (DefaultLeakMaxGoroutines) is refused
	// with a *LeakBoundError. A runtime without the profile gives
	// ErrNoLeakProfile (capture_leak.go).
	ModeLeak Mode = "leak"
)

// Modes returns the capture modes, for flag help and error messages; the
// slice is the caller's.
func Modes() []Mode { return []Mode{ModeFull, ModeGrouped, ModeTrace, ModeLeak} }

// ParseMode parses a mode name; "" means ModeFull.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeFull, nil
	}
	for _, m := range Modes() {
		if string(m) == strings.ToLower(s) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown capture mode %q (want full: every goroutine, one pause; grouped: counts per stack, microsecond pauses; trace: every goroutine from a runtime/trace window; or leak: full after a leak-detection GC, Go 1.27+)", s)
}

// DefaultMaxBytes is the full-mode traceback size past which a capture is
// cut and marked truncated, when CaptureOptions.MaxBytes is zero: 1 GiB,
// about 700k goroutines of typical depth.
const DefaultMaxBytes = 1 << 30

// CaptureOptions configure [Capture].
type CaptureOptions struct {
	// Mode is the capture mode; empty means ModeFull.
	Mode Mode
	// TraceWindow is how long trace mode records; zero means
	// DefaultTraceWindow (dumper/trace.go).
	TraceWindow time.Duration
	// Table interns the dump's frames and stacks; nil means a new Table.
	Table *stack.Table
	// MaxBytes bounds the traceback text of a full capture (the memory it
	// takes while it is parsed). A capture that would exceed it is cut there
	// and marked Truncated. Zero (or negative) means DefaultMaxBytes;
	// there is no 64 MiB cap.
	MaxBytes int
	// NoLabels leaves pprof labels out of full captures: GODEBUG is not
	// touched and no goroutine profile is joined (labels the runtime prints
	// anyway, under GODEBUG=tracebacklabels=1, are kept). In trace mode it
	// skips the goroutine profile's walk that finds them, about as long as
	// runtime.GoroutineProfile (docs/modes.md); "labels" stays in
	// Capture.Missing.
	//
	// Without it, a full capture on a runtime that does not print labels
	// already, in a process whose GODEBUG environment variable does not
	// mention tracebacklabels, sets the process's GODEBUG to its value plus
	// ",tracebacklabels=1" (os.Setenv, which the runtime re-reads) for its
	// one runtime.Stack call, then restores it (or unsets it, when it was
	// unset). While it is set the whole process sees it: a traceback
	// printed by another goroutine (a panic, runtime.Stack) shows labels,
	// os.Getenv("GODEBUG") returns the changed value, and a child process
	// started meanwhile inherits it. A GODEBUG that mentions
	// tracebacklabels (tracebacklabels=0 included) is left alone; with
	// tracebacklabels=0 the labels are joined from the goroutine profile
	// instead (dumper/labels.go).
	NoLabels bool
	// SerialWalks keeps a trace-mode capture to one P: its two walks of
	// the goroutines, trace.Stop's and the goroutine profile's for the
	// labels, run one after the other instead of side by side
	// (dumper/trace_stop.go). Side by side, the capture takes about the
	// profile's walk instead of both (at 1M goroutines 1.4–1.8× the time
	// of runtime.GoroutineProfile to a JSON+gzip file instead of 2.2×),
	// but while trace.Stop walks (≈0.3–0.9 µs per goroutine) it holds
	// two Ps, so with GOMAXPROCS 2 the program's goroutines wait for the
	// scheduler's time slice: a 100 µs ticker's longest gap at 100k
	// goroutines was 20–40 ms, against 1.4–9.5 ms one after the other
	// (docs/modes.md). With GOMAXPROCS 1, or fewer than 100,000
	// goroutines, the walks are serial anyway.
	SerialWalks bool
	// LeakMaxGoroutines bounds the goroutines a leak-mode capture accepts:
	// with more (runtime.NumGoroutine), it is refused before its GC cycle
	// runs with a *LeakBoundError (leak_guard.go). Zero means
	// DefaultLeakMaxGoroutines; negative means no bound.
	LeakMaxGoroutines int

	// leakOverride is the refusal's Override (how the bound is raised),
	// when the caller is not the one who sets it (Handler).
	leakOverride string
	// traceSettle is how long trace mode waits before trace.Start, so
	// that goroutines woken just before the capture have parked again
	// (Handler: the request's own, handlerTraceSettle).
	traceSettle time.Duration
}

// traceOptions returns what configures a trace-mode capture.
func (o CaptureOptions) traceOptions() traceOptions {
	return traceOptions{window: o.TraceWindow, noLabels: o.NoLabels, serial: o.SerialWalks, settle: o.traceSettle}
}

// missingByMode names what each mode's routines lack, as recorded in
// Capture.Missing (names are those of the JSON fields).
var missingByMode = map[Mode][]string{
	ModeFull:    nil,
	ModeGrouped: {"id", "state", "wait_minutes", "locked", "created_by", "parent_id", "args"},
	ModeTrace:   {"wait_minutes", "args"},
	ModeLeak:    nil,
}

// Capture takes a goroutine dump of the calling process. The dump's
// Source.Capture says how it was taken and what it cost: mode, goroutine
// count, wall time, and the stop-the-world pauses from runtime/metrics.
//
// Capture is safe for concurrent use; concurrent full captures each stop
// the world in turn.
func Capture(ctx context.Context, opts CaptureOptions) (*stack.Dump, error) {
	d, _, err := capture(ctx, opts, false)
	return d, err
}

// capture is Capture. With rawText set, a full capture whose labels the
// runtime printed is not read: raw is the runtime's traceback text — what
// the text encoder would write from the model, byte for byte
// (TestRawTextMatchesEncoder) — and d holds the metadata only. The caller
// returns raw.buf with putStackBuf. With rawText set, a trace capture's
// routines are not made either: raw.trace makes them as they are written.
func capture(ctx context.Context, opts CaptureOptions, rawText bool) (d *stack.Dump, raw *stackText, err error) {
	mode, err := ParseMode(string(opts.Mode))
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	t := opts.Table
	if t == nil {
		t = stack.NewTable()
	}
	start := time.Now()
	before := readPauses()
	proven := 0
	if mode == ModeLeak {
		if err := checkLeakBoundHere(opts.LeakMaxGoroutines, opts.leakOverride); err != nil {
			return nil, nil, fmt.Errorf("%s capture: %w", mode, err)
		}
		if proven, err = detectLeaks(); err != nil {
			return nil, nil, fmt.Errorf("%s capture: %w", mode, err)
		}
	}
	switch mode {
	case ModeFull, ModeLeak:
		st, headerLabels := takeStacks(opts)
		if rawText && (headerLabels || opts.NoLabels) {
			raw = &st
			recordStackBytes(st.n, runtime.NumGoroutine())
			d = &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}, Truncated: st.truncated}
			if st.truncated {
				d.Warnings = append(d.Warnings, truncationWarning(st))
			}
			break
		}
		d, err = readStacks(ctx, t, st, headerLabels, opts)
		putStackBuf(st.buf)
		if err == nil && mode == ModeLeak {
			if w := leakWarning(d, proven); w != nil {
				d.Warnings = append(d.Warnings, w)
			}
		}
	case ModeGrouped:
		d, err = captureGrouped(ctx, t)
	case ModeTrace:
		topts := opts.traceOptions()
		if !rawText {
			d, err = captureTrace(ctx, topts, t)
			break
		}
		var s *traceSnapshot
		if d, s, err = snapshotTrace(ctx, topts, t); err == nil {
			raw = &stackText{trace: s}
		}
	}
	if err == nil && d == nil {
		err = errors.New("no dump")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s capture: %w", mode, err)
	}
	c := d.Source.Capture
	if c == nil {
		c = &stack.Capture{Missing: missingByMode[mode]}
		d.Source.Capture = c
	}
	if c.Mode == "" { // not measured by the mode itself
		p := readPauses().since(before)
		c.Mode = string(mode)
		c.Goroutines = runtime.NumGoroutine()
		c.Duration = time.Since(start)
		c.Pause, c.Pauses = p.Total, p.Count
	}
	if d.Source.Runtime == "" {
		d.Source.Runtime = runtime.Version()
	}
	if d.Source.CapturedAt.IsZero() {
		d.Source.CapturedAt = start
	}
	if d.Source.Target == "" {
		d.Source.Target = selfTarget()
	}
	return d, raw, nil
}

// selfTarget names the calling process as "name[pid]".
func selfTarget() string {
	name := "process"
	if len(os.Args) > 0 {
		name = filepath.Base(os.Args[0])
	}
	return fmt.Sprintf("%s[%d]", name, os.Getpid())
}
