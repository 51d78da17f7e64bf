package tracesnap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"golang.org/x/exp/trace"
)

// The reference: golang.org/x/exp/trace's Reader on the same bytes,
// reduced to what Reader reports (goroutine transitions and syncs), each
// event rendered as one line so that two readings compare line for line.

// renderFrames renders a stack's frames, or "-" for no stack.
func renderFrames(present bool, frames func(yield func(Frame) bool)) string {
	if !present {
		return "-"
	}
	var b strings.Builder
	b.WriteString("[")
	for f := range frames {
		fmt.Fprintf(&b, "%#x %s %s:%d;", f.PC, f.Func, f.File, f.Line)
	}
	b.WriteString("]")
	return b.String()
}

func renderClock(c *ClockSnapshot) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%d/%d/%d", c.Trace, c.Wall.UnixNano(), c.Mono)
}

// xexpEvents reads data with x/exp/trace. It returns the rendered events,
// the number of events of every kind, and the error that stopped the
// reading (nil at the end of the trace). A panic of the parser is an
// error.
func xexpEvents(data []byte) (lines []string, n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("x/exp/trace panicked: %v", p)
		}
	}()
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, 0, err
	}
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return lines, n, nil
		}
		if err != nil {
			return lines, n, err
		}
		n++
		switch ev.Kind() {
		case trace.EventSync:
			var c *ClockSnapshot
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				c = &ClockSnapshot{Trace: int64(cs.Trace), Wall: cs.Wall, Mono: cs.Mono}
			}
			lines = append(lines, fmt.Sprintf("%d sync clock=%s", ev.Time(), renderClock(c)))
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			from, to := st.Goroutine()
			xf := func(s trace.Stack) func(func(Frame) bool) {
				return func(yield func(Frame) bool) {
					for f := range s.Frames() {
						if !yield(Frame{PC: f.PC, Func: f.Func, File: f.File, Line: f.Line}) {
							return
						}
					}
				}
			}
			lines = append(lines, fmt.Sprintf("%d G%d %s->%s stack=%s evstack=%s evg=%d reason=%q",
				ev.Time(), st.Resource.Goroutine(), GoState(from), GoState(to),
				renderFrames(st.Stack != trace.NoStack, xf(st.Stack)),
				renderFrames(ev.Stack() != trace.NoStack, xf(ev.Stack())),
				ev.Goroutine(), st.Reason))
		}
	}
}

// snapEvents reads data with Reader, rendered as xexpEvents renders.
func snapEvents(data []byte) (lines []string, n int, err error) {
	rd, err := NewReaderBytes(data)
	if err != nil {
		return nil, 0, err
	}
	frames := func(s Stack) func(func(Frame) bool) {
		return func(yield func(Frame) bool) {
			for _, f := range s.Frames() {
				if !yield(f) {
					return
				}
			}
		}
	}
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return lines, rd.EventCount(), nil
		}
		if err != nil {
			return lines, rd.EventCount(), err
		}
		switch ev.Kind {
		case KindSync:
			lines = append(lines, fmt.Sprintf("%d sync clock=%s", ev.Time, renderClock(ev.Clock)))
		case KindTransition:
			lines = append(lines, fmt.Sprintf("%d G%d %s->%s stack=%s evstack=%s evg=%d reason=%q",
				ev.Time, ev.G, ev.From, ev.To,
				renderFrames(ev.Stack.Present(), frames(ev.Stack)),
				renderFrames(ev.EventStack.Present(), frames(ev.EventStack)),
				ev.EventG, ev.Reason))
		}
	}
}

// xexpReadsGo126 reports whether the golang.org/x/exp/trace linked here
// reads go 1.26 traces. The module's go.mod requires one that predates
// the format (its go line is 1.23, so that importers at go 1.24 keep
// theirs); make test runs this package with
// -modfile=internal/tracesnap/testdata/xexp.mod, which requires a newer
// one.
var xexpReadsGo126 = func() bool {
	_, err := trace.NewReader(strings.NewReader("go 1.26 trace\x00\x00\x00"))
	return err == nil
}()

// needXExpGo126 skips a test that compares Reader with x/exp/trace when
// the x/exp/trace linked here reads no go 1.26 trace.
func needXExpGo126(t testing.TB) {
	t.Helper()
	if !xexpReadsGo126 {
		t.Skip("golang.org/x/exp/trace at the go.mod's version reads no go 1.26 trace: the reference is x/exp/trace at internal/tracesnap/testdata/xexp.mod's (make test, or go test -modfile=internal/tracesnap/testdata/xexp.mod ./internal/tracesnap)")
	}
}

// compareReaders checks Reader against x/exp/trace on data: when
// x/exp/trace reads it whole, Reader must too, with the same events in
// the same order (and as many events in all); when x/exp/trace stops at
// an error, the events both reported must agree (Reader checks less, so
// it may read further, or stop at another error).
func compareReaders(t *testing.T, name string, data []byte) (events int) {
	t.Helper()
	if !xexpReadsGo126 {
		snapEvents(data) // still read: a panic fails
		needXExpGo126(t)
	}
	want, wantN, wantErr := xexpEvents(data)
	got, gotN, gotErr := snapEvents(data)
	n := min(len(want), len(got))
	for i := range n {
		if want[i] != got[i] {
			lo := max(0, i-3)
			t.Fatalf("%s: event %d differs:\nx/exp/trace: %s\ntracesnap:   %s\ncontext (x/exp/trace):\n%s", name, i, want[i], got[i], strings.Join(want[lo:min(len(want), i+3)], "\n"))
		}
	}
	if wantErr == nil {
		var ge *GenerationError
		if errors.As(gotErr, &ge) && len(got) == len(want) && gotN == wantN {
			// x/exp/trace returns io.EOF for some malformed generations
			// (a table cut short where a varint would start): the same
			// events, then an end where Reader reports the error.
			return len(want)
		}
		if gotErr != nil {
			t.Fatalf("%s: x/exp/trace reads %d events, tracesnap fails after %d: %v", name, len(want), len(got), gotErr)
		}
		if len(got) != len(want) || gotN != wantN {
			t.Fatalf("%s: x/exp/trace reports %d of %d events, tracesnap %d of %d", name, len(want), wantN, len(got), gotN)
		}
	}
	return len(want)
}
