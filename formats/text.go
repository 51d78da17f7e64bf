package formats

import (
	"io"

	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

// textDispatch is the text format's encoder: each dump goes out as its
// own form's text, chosen per dump. Go tracebacks are written as Go
// traceback text, dumps that came from debug=1 or pprof as debug=1 text,
// and JVM dumps as jstack text, so that the output is itself a dump the
// reader reads back. Dumps of different forms are separated by a blank
// line, as each form's encoder separates its own dumps.
type textDispatch struct {
	w                   io.Writer
	goText, debug1, jvm stack.Encoder
	cur                 stack.Encoder // the current dump's
	dumps               int           // dumps begun
	goDumps             int           // of them, Go tracebacks
}

func newTextDispatch(w io.Writer) *textDispatch { return &textDispatch{w: w} }

// BeginDump picks the dump's text form.
func (e *textDispatch) BeginDump(d *stack.Dump) error {
	first := e.dumps == 0
	e.dumps++
	switch d.Source.Kind {
	case stack.KindGoDebug1, stack.KindGoPprof:
		if e.debug1 == nil {
			e.debug1 = debug1.NewEncoder(e.w)
		}
		e.cur = e.debug1
	case stack.KindJVMText, stack.KindJVMJSON:
		if e.jvm == nil {
			e.jvm = jvm.NewEncoder(e.w)
		}
		e.cur = e.jvm
	default:
		if e.goText == nil {
			e.goText = gotext.NewEncoder(e.w)
		}
		e.cur = e.goText
		// The Go encoder separates its own dumps; the first one after
		// dumps of other forms is separated here.
		e.goDumps++
		if e.goDumps > 1 {
			first = true
		}
	}
	if !first {
		if _, err := e.w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	return e.cur.BeginDump(d)
}

// WriteRoutine writes r in the current dump's form.
func (e *textDispatch) WriteRoutine(r *stack.Routine) error { return e.cur.WriteRoutine(r) }

// EndDump ends the current dump.
func (e *textDispatch) EndDump(d *stack.Dump) error { return e.cur.EndDump(d) }
