package gotext

import "fmt"

// preamble is what the assembler knows of the dump's preamble, the text
// before its goroutines that says why it was written: a panic and its
// value, a fatal error, a signal with its registers. open is set after a
// preamble line until a blank line: lines in between continue it
// (multi-line panic values, `PC=`). afterForeign is set when junk was
// skipped since the last preamble line, capped once the preamble cap was
// reported.
type preamble struct {
	open, afterForeign, capped bool
}

// preambleLine keeps a line of the dump's preamble. A line that starts a
// preamble (panic, fatal error, signal name) after routines starts a new
// dump; other preamble-like lines after routines are junk.
func (g *goTextDecoder) preambleLine(line []byte, start bool) {
	if g.rt.r != nil && hasPrefixStr(line, "runtime: ") {
		// A diagnostic inside a goroutine's trace ("runtime: g17:
		// unexpected return pc for …", then a hex dump): not a new dump.
		g.foreignLine(line, line)
		return
	}
	if start && g.threads.ended && hasPrefixStr(line, "SIG") {
		// The next thread's block of the same crash: one dump.
		g.threads.ended, g.threads.joined = false, true
		g.dump.d.ThreadBlocks = max(g.dump.d.ThreadBlocks, 1) + 1
		return
	}
	if g.rt.r != nil || g.dump.nRoutines > 0 || g.dump.published {
		if !start {
			g.foreignLine(line, line)
			return
		}
		if g.dump.reversed {
			// Reversed input: the crash line comes after the goroutines
			// it explains, not before a dump of its own.
			g.endRoutine()
			g.dump.d.Preamble = append(g.dump.d.Preamble, string(line))
			g.rt.want = betweenRoutines
			return
		}
		g.endDump()
	}
	if start && g.pre.afterForeign && g.dump.d != nil && len(g.dump.d.Preamble) > 0 {
		// An earlier preamble with no routines, then junk: that was
		// a dump of its own (GOTRACEBACK=none, or a quoted panic).
		g.endDump()
	}
	g.ensureDump()
	g.rt.want = betweenRoutines
	g.pre.open, g.pre.afterForeign = true, false
	if len(g.dump.d.Preamble) >= maxPreambleLines {
		if !g.pre.capped {
			g.pre.capped = true
			g.problem(fmt.Sprintf("preamble longer than %d lines; the rest is dropped", maxPreambleLines), line)
		}
		return
	}
	g.dump.d.Preamble = append(g.dump.d.Preamble, string(line))
}
