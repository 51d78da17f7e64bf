package gotext

import (
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
	if !g.othersSet {
		g.others, g.othersSet = g.in.Forms.Others(stack.KindGoTraceback), true
	}
	if k := g.others.StartForm(raw); k != "" {
		if g.in.HandOver {
			g.handOver(k, raw)
			return true
		}
		if k != g.skipping {
			g.skipping = k
			g.problem("a "+string(k)+" dump starts here; the Go traceback reader skips it as other text", raw)
		}
		return true
	}
	g.junkHeld.Add(raw, g.num, g.offset())
	return false
}

// handOver ends the input for this reader at line, the first line of a
// dump of another text form (kind): what is open is closed as at the end
// of a paste region, and the line, with the junk lines before it, is
// handed on to the reader of that form (codec.OtherFormError).
func (g *goTextDecoder) handOver(kind stack.Kind, line []byte) {
	g.closeAll(false)
	g.otherStart = g.junkHeld.HandOver(g.lr, kind, line)
	g.eof = true
}
