package gotext

import (
	"bytes"
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// foreignLines is what the assembler counts of the lines that are no part
// of a dump, to warn of them: the lines of a goroutine whose header the
// paste left out (orphans), and goroutine headers hidden inside other
// text.
type foreignLines struct {
	// orphans counts the lines of frames met while no routine was open,
	// from orphanAt; orphanCall is set when the foreign line before was a
	// function line (at prev); orphanGap is the separator line that left
	// the header out, 0 if none.
	orphans    int
	orphanAt   linePos
	orphanCall bool
	orphanGap  int
	prev       linePos
	// hidden counts the lines that hold a goroutine header inside other
	// text the reader could not set aside (hiddenHeader), from hiddenAt,
	// whose text is hiddenText; hiddenErr is the first warning about them.
	hidden     int
	hiddenAt   linePos
	hiddenText []byte
	hiddenErr  *stack.ParseError
	orphanErr  *stack.ParseError // the first orphans warning (an input with nothing else is refused with it)
}

// foreignLine skips a line that is no part of a dump. What it may still
// hold is looked for: the start of a dump of another form (otherForms), a
// frame of a goroutine whose header is missing (orphanLine), a crash line
// behind a terminal's echo or a logger's prefix (crashInLine), a goroutine
// header after a per-line prefix, which is learnt (findMarker,
// learntPrefix), or a header hidden inside other text (hiddenHeader).
func (g *goTextDecoder) foreignLine(line, raw []byte) {
	replaying := g.prefix.replaying
	if !replaying && g.other.line != nil && g.other.line(g, raw) {
		return
	}
	orphan := g.rt.r == nil && g.orphanLine(line)
	if rest, ok := crashInLine(line, g.dump.d == nil && g.dump.nRoutines == 0); ok && !orphan && !replaying {
		g.dispatch(rest, rest)
		return
	}
	if k := findMarker(raw); k > 0 && !orphan && !replaying {
		g.prefix.p.Set(raw[:k])
		if g.rt.r == nil && g.dump.nRoutines == 0 {
			g.replay()
		}
		g.dispatch(raw[k:], raw)
		return
	}
	f := &g.foreign
	if !orphan && !replaying && hiddenHeader(raw) {
		if f.hidden == 0 {
			f.hiddenAt = linePos{g.at.num, g.offset()}
			f.hiddenText = append(f.hiddenText[:0], raw...)
		}
		f.hidden++
	}
	if g.dump.d != nil && len(g.dump.d.Preamble) > 0 && g.dump.nRoutines == 0 {
		g.pre.afterForeign = true
	}
	if g.rt.r == nil && g.dump.nRoutines == 0 && !replaying {
		g.prefix.ring.add(raw, g.at.num, g.offset())
	}
}

// orphanLine counts line when it is a line of a goroutine's frames met
// while no routine is open: a goroutine whose header the paste left out
// (a paste that starts inside a goroutine, a grep context, lines cut out).
// Such lines are not read — their goroutine is unknown — but counted in a
// warning that names the first of them (flushOrphans).
func (g *goTextDecoder) orphanLine(line []byte) bool {
	f := &g.foreign
	var fl fileLine
	switch {
	case len(line) > 0 && (line[0] == '\t' || line[0] == ' ') && parseFileLine(line, &fl) && isFrameFile(&fl):
		if f.orphans == 0 {
			f.orphanAt = linePos{g.at.num, g.offset()}
			if f.orphanCall {
				f.orphanAt = f.prev
			}
		}
		f.orphans++
		if f.orphanCall {
			f.orphans++
		}
		f.orphanCall = false
		return true
	case hasPrefixStr(line, "created by "):
		if _, _, ok := parseCreatedBy(line); ok {
			if f.orphans == 0 {
				f.orphanAt = linePos{g.at.num, g.offset()}
			}
			f.orphans++
			f.orphanCall = false
			return true
		}
	}
	_, _, form := parseCall(line)
	f.orphanCall = form == callGo || form == callInlined
	f.prev = linePos{g.at.num, g.offset()}
	return false
}

// isFrameFile reports whether fl, a parsed file line, names a source file
// as a frame's file line does: with a `+0x…` offset, or a path without
// spaces ending in a source file's extension. Other text that happens to
// end in `:N` ("listening on 127.0.0.1:8080") is not one.
func isFrameFile(fl *fileLine) bool {
	if fl.HasOffset || fl.HasPC {
		return true
	}
	if bytes.IndexByte(fl.File, ' ') >= 0 {
		return false
	}
	for _, ext := range []string{".go", ".s", ".c", ".h", ".cc", ".cpp"} {
		if bytes.HasSuffix(fl.File, []byte(ext)) {
			return true
		}
	}
	return false
}

// hiddenHeaderMsg says what a line hiddenHeader finds holds.
const hiddenHeaderMsg = "a goroutine header inside other text, not read as one"

// flushOrphans reports the orphan lines and the hidden headers counted so
// far, if any.
func (g *goTextDecoder) flushOrphans() {
	f := &g.foreign
	f.orphanCall = false
	if f.hidden > 0 {
		msg := "a line holds " + hiddenHeaderMsg
		if f.hidden > 1 {
			msg = fmt.Sprintf("%d lines hold %s; the first", f.hidden, hiddenHeaderMsg)
		}
		f.hidden = 0
		pe := g.problemAt(f.hiddenAt.num, f.hiddenAt.off, msg, f.hiddenText)
		if f.hiddenErr == nil {
			f.hiddenErr = pe
		}
	}
	if f.orphans == 0 {
		return
	}
	msg := fmt.Sprintf("%d lines of a goroutine whose header is not in the input skipped", f.orphans)
	if f.orphanGap > 0 {
		msg += fmt.Sprintf(" (lines were left out at line %d)", f.orphanGap)
	}
	f.orphans, f.orphanGap = 0, 0
	if pe := g.problemAt(f.orphanAt.num, f.orphanAt.off, msg, nil); f.orphanErr == nil {
		f.orphanErr = pe
	}
}

// gap handles a place where lines of the dump were left out: grep's group
// separator (`--`) or an ellipsis a person put in place of lines. The
// open routine ends there, incomplete (a function line waiting for its
// file line is kept without it), and a warning names the line; the lines
// of the goroutine that follow before its next header are counted
// (orphanLine).
func (g *goTextDecoder) gap(what string, text []byte) {
	rt := &g.rt
	switch rt.want {
	case wantFile:
		c := &rt.awaiting
		switch {
		case rt.unconfirmed:
			g.dropRoutine()
		case c.form == callGo || c.form == callInlined:
			rt.frames.commitFrame(nil, c.callFlags())
		default:
			rt.want = wantFrame
			rt.frames.rollback()
		}
	case wantCreatorFile:
		g.keepCreatorWithoutFile()
	}
	g.flushOrphans()
	open := rt.r != nil && rt.part == partNone
	rt.want = wantFrame
	g.endRoutine()
	rt.want = betweenRoutines
	g.pre.open = false
	msg := "lines left out here (" + what + ")"
	if open {
		msg += "; the goroutine before it is incomplete"
	}
	g.problem(msg, text)
	g.foreign.orphanGap, g.dump.gapped = g.at.num, g.at.num
}
