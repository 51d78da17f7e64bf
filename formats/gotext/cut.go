package gotext

import "bytes"

// A dump cut short ends inside a line more often than at a line's end: a
// process killed while writing, a log rotated, a file copied while it
// grew. The input's last line, when it has no newline and the dump is
// inside its goroutines, is judged before it is read: a line that is not
// whole (a function name cut before its arguments, a file line cut before
// its `:line +0x…`, a header cut before its `]:`) is dropped, and the dump
// is marked truncated with a warning at that line. A whole line (junk such
// as `exit status 2`, or a frame's file line of the outermost frame) is
// read as any other.

// cutLine reports whether raw, the input's last line, which has no
// newline, is the start of a line of the open goroutine (or race report
// or system stack) that the cut lost; it records the cut for finish. The
// last line of a paste region (codec.Line.Last: a closing fence or
// chat text follows) is judged the same way, but it may have had its
// newline: a word alone is taken for a cut function name only when it
// looks like one.
func (g *goTextDecoder) cutLine(raw []byte) bool {
	if d := g.dump.d; d == nil || g.rt.r == nil && g.dump.nRoutines == 0 && len(d.Preamble) == 0 && len(d.Races) == 0 {
		return false // not in a dump: junk
	}
	line := g.prefix.p.Strip(raw)
	if len(line) == 0 || !g.partialLine(line) {
		return false
	}
	g.cut.set = true
	g.cut.text = append(g.cut.text[:0], line[:min(len(line), 200)]...)
	return true
}

// partialLine reports whether line, met at the end of the input, is a cut
// piece of a line the dump was writing.
func (g *goTextDecoder) partialLine(line []byte) bool {
	if hasPrefixStr(line, "goroutine ") || hasPrefixStr([]byte("goroutine "), string(line)) {
		return !isUnavailable(line) && !parseHeader(line, &g.hdr)
	}
	if g.race.open && g.partialRaceLine(line) {
		return true
	}
	rt := &g.rt
	if rt.r == nil || isBlankLine(line) && rt.want != wantFile && rt.want != wantCreatorFile {
		return false // between goroutines, or a blank line: nothing was lost
	}
	switch rt.want {
	case wantFile, wantCreatorFile:
		if !g.lines.Line().NoEOL && rt.want == wantFile && rt.awaiting.form != callGo && rt.awaiting.form != callInlined {
			return false // a word alone waits: junk, not a frame cut short
		}
		var fl fileLine
		if !parseFileLine(line, &fl) {
			return true
		}
		// Every file line of a Go frame ends in `+0x…` but an inlined
		// call's: one without it lost its end.
		return !fl.HasOffset && (rt.want == wantCreatorFile || rt.awaiting.form != callInlined)
	case wantFrame:
		for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:] // race report frames are indented
		}
		return g.partialFuncLine(line, g.lines.Line().NoEOL)
	}
	return false
}

// partialFuncLine judges the last line of an open routine that waits for
// a frame: a whole function, `created by`, elision or ancestor line is
// whole; a word that is not one yet (no space before its arguments) is a
// function line cut short; a line of words is junk. Unless noEOL (the
// line provably lost its end), the word must look like the start of a
// function's name: no tab in it, and a lower-case start ("PASS", "FAIL"
// and a race report's closing rule after a dump are whole).
func (g *goTextDecoder) partialFuncLine(t []byte, noEOL bool) bool {
	if len(t) == 0 || isUnavailable(t) {
		return false
	}
	if _, _, form := parseCall(t); form != callNone && form != callBad && form != callBare {
		return false
	}
	if _, _, ok := parseCreatedBy(t); ok {
		return false
	}
	if _, ok := parseElided(t); ok {
		return false
	}
	if _, ok := parseOriginating(t); ok {
		return false
	}
	for _, whole := range []string{"created by ", "goroutine running on other thread; stack unavailable", "...additional frames elided...", "[originating from goroutine ", "[failed to restore the stack]"} {
		if hasPrefixStr([]byte(whole), string(t)) || hasPrefixStr(t, whole[:min(len(whole), 11)]) {
			return true
		}
	}
	if t[0] == '.' {
		return true // `...N frames elided...` cut short
	}
	sp, paren := bytes.IndexByte(t, ' '), bytes.IndexByte(t, '(')
	if !noEOL && sp < 0 && (bytes.IndexByte(t, '\t') >= 0 || !(t[0] >= 'a' && t[0] <= 'z' || t[0] == '_')) {
		return false
	}
	return sp < 0 || paren >= 0 && paren < sp
}

// partialRaceLine reports whether line, inside a race report, is the
// start of an access or creation line, or of the closing rule, cut short.
func (g *goTextDecoder) partialRaceLine(line []byte) bool {
	if _, ok := parseRaceAccess(line); ok {
		return false
	}
	if line[0] == '=' {
		return !isRaceSeparator(line)
	}
	for _, w := range []string{"Read", "Write", "Previous ", "Atomic ", "Goroutine "} {
		if hasPrefixStr(line, w) || hasPrefixStr([]byte(w), string(line)) {
			return true
		}
	}
	return false
}
