package analyze

import (
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// Crash is what crashed, when the dump comes from a crash: a panic, a
// fatal error, a deadlock, a go test timeout or a signal
// ([gotext.CrashOf] reads it from the preamble).
type Crash struct {
	// Kind is "panic", "fatal", "deadlock", "timeout" or "signal".
	Kind gotext.CrashKind `json:"kind"`
	// Message is the panic value or error as the runtime printed it,
	// continuation lines included (see gotext.Crash.Message).
	Message string `json:"message"`
	// Goroutine is the goroutine that crashed (for a timeout, one running
	// a test that did not finish); 0 when none is known, or for a fault on
	// an OS thread's own stack (goroutine 0), which State and Stack then
	// describe.
	Goroutine int64 `json:"goroutine"`
	// State is that goroutine's state; Stack its frames outside the
	// runtime, innermost first.
	State string     `json:"state,omitempty"`
	Stack []FrameRef `json:"stack,omitempty"`
	// Tests are the tests a go test timeout names as still running.
	Tests []string `json:"tests,omitempty"`
	// ThreadBlocks counts the per-thread blocks of a GOTRACEBACK=crash
	// dump, read as one dump; 0 when the dump has none.
	ThreadBlocks int `json:"thread_blocks,omitempty"`

	frames int  // the goroutine's frames, runtime ones included
	found  bool // the goroutine that crashed is known (it may be goroutine 0)
}

// crashOf returns the crash d comes from, with the goroutine that crashed
// as w found it; nil when d does not come from one.
func crashOf(d *stack.Dump, w *gotext.CrashWatch) *Crash {
	c := gotext.CrashOf(d.Preamble)
	if c == nil {
		return nil
	}
	out := &Crash{Kind: c.Kind, Message: c.Message, Tests: c.Tests, ThreadBlocks: d.ThreadBlocks}
	if r := w.Culprit(c); r != nil {
		out.Goroutine, out.State, out.found = r.ID, r.State, true
		out.frames = len(r.Frames())
		for _, f := range r.Frames() {
			if f.IsRuntime() || f.Func == "panic" {
				continue
			}
			out.Stack = append(out.Stack, FrameRef{Func: f.Func, File: f.File, Line: f.Line})
		}
	}
	return out
}
