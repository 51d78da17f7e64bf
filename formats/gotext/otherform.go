package gotext

import (
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// otherFormLine is the otherForm of a Reader made by NewReader: it
// handles raw, a junk line, when a dump of another text form (the
// stream's forms, codec.Stream.Forms) starts there — handed on to that
// form's reader when the stream's caller reads on (codec.Stream.HandOver,
// as the door does), else warned of once and skipped — and reports
// whether it did; other junk lines are held, as the first lines such a
// dump may have. A reader of the runtime's own text (NewRuntimeReader)
// has no otherForm: the runtime writes no other form, and a program that
// reads only its own goroutines links none of this.
func otherFormLine(g *goTextDecoder, raw []byte) bool {
	o := &g.other
	if !o.known {
		o.forms, o.known = g.in.Forms.Others(stack.KindGoTraceback), true
	}
	if k := o.forms.StartForm(raw); k != "" {
		if g.in.HandOver {
			g.handOver(k, raw)
			return true
		}
		if k != o.skipping {
			o.skipping = k
			g.problem("a "+string(k)+" dump starts here; the Go traceback reader skips it as other text", raw)
		}
		return true
	}
	o.held.Add(raw, g.at.num, g.offset())
	return false
}

// otherForms is what a Reader made by NewReader knows of the text forms
// other than Go's: line is otherFormLine (nil for the runtime's own
// text), forms are the stream's other forms (known once looked up),
// held the last foreign lines, start the dump of another form the
// stream goes on with, and skipping the form warned of last.
type otherForms struct {
	line     func(g *goTextDecoder, raw []byte) bool
	forms    codec.Forms
	known    bool
	held     codec.Held
	start    *codec.OtherFormError
	skipping stack.Kind
}

// handOver ends the input for this reader at line, the first line of a
// dump of another text form (kind): what is open is closed as at the end
// of a paste region, and the line, with the junk lines before it, is
// handed on to the reader of that form (codec.OtherFormError).
func (g *goTextDecoder) handOver(kind stack.Kind, line []byte) {
	g.closeAll(false)
	g.other.start = g.other.held.HandOver(g.lines, kind, line)
	g.end.eof = true
}
