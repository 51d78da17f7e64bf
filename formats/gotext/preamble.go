package gotext

import (
	"fmt"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// preamble is what the assembler knows of the dump's preamble, the text
// before its goroutines that says why it was written: a panic and its
// value, a fatal error, a signal with its registers. open is set after a
// preamble line until a blank line: lines in between continue it
// (multi-line panic values, `PC=`). afterForeign is set when junk was
// skipped since the last preamble line, capped once the preamble cap was
// reported.
type preamble struct {
	open, afterForeign, capped bool
	// Past the cap (maxPreambleLines) a crash line is still kept, with
	// the lines that continue it (crashTail); every other line is
	// dropped, counted in the cap's warning (dropped, capWarn).
	crashTail bool
	dropped   int
	capWarn   *stack.ParseError
	// pcNext is set when a thread block's signal line became the crash
	// line (the paste started inside an earlier block): its `PC=` line
	// is kept with it.
	pcNext bool
}

// maxCrashTail bounds the lines kept after a crash line past the cap.
const maxCrashTail = 64

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
		if !hasCrashLine(g.dump.d.Preamble) {
			// The paste started inside an earlier block, after its
			// signal line: this block's says what the crash was.
			g.dump.d.Preamble = append(g.dump.d.Preamble, string(line))
			g.pre.pcNext = true
		}
		return
	}
	if g.pre.pcNext && hasPrefixStr(line, "PC=") {
		g.pre.pcNext = false
		g.dump.d.Preamble = append(g.dump.d.Preamble, string(line))
		return
	}
	g.pre.pcNext = false
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
	if len(g.dump.d.Preamble) >= maxPreambleLines && !g.keepPastCap(line, start) {
		g.pre.capped = true
		g.pre.dropped++
		if g.pre.capWarn == nil {
			g.pre.capWarn = g.problem("", line)
		}
		// The dump is not published while its preamble grows: the
		// warning is read once every dropped line was counted.
		g.pre.capWarn.Msg = fmt.Sprintf("preamble longer than %d lines; %s dropped from here on (a crash line is kept wherever it stands)",
			maxPreambleLines, words.Count(g.pre.dropped, "line"))
		return
	}
	g.dump.d.Preamble = append(g.dump.d.Preamble, string(line))
}

// keepPastCap reports whether line, met when the preamble holds
// maxPreambleLines lines already, is kept all the same: a crash line (a
// fatal error after a runtime diagnostic of a thousand lines), or one of
// the lines that continue it.
func (g *goTextDecoder) keepPastCap(line []byte, start bool) bool {
	switch {
	case start && isCrashLine(line):
		g.pre.crashTail = true
		return true
	case g.pre.crashTail && !start && len(g.dump.d.Preamble) < maxPreambleLines+maxCrashTail:
		return true
	}
	g.pre.crashTail = false
	return false
}

// isCrashLine reports whether line is one CrashOf reads a crash from: a
// preamble's first line other than a runtime diagnostic (panic, fatal
// error, signal). Byte comparisons only: the runtime's own reader
// (NewRuntimeReader) links no crash triage.
func isCrashLine(line []byte) bool {
	return isPreambleStart(line) && !hasPrefixStr(line, "runtime: ")
}

// hasCrashLine reports whether a line of preamble is a crash line.
func hasCrashLine(preamble []string) bool {
	for _, l := range preamble {
		if isCrashLine([]byte(l)) {
			return true
		}
	}
	return false
}
