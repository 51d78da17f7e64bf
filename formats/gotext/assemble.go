package gotext

import "strings"

// The assembler: what a line means where it stands. feed takes a line
// read, classify (lex.go) says what it is, and take hands the token to the
// part of the dump it builds: a routine's frames (routine.go), the crash's
// preamble (preamble.go), a race report (race.go), the dump itself
// (dump.go), or, when nothing claims it, the text around the dump
// (foreign.go).
//
// The routine being read is in one of these states, which say what it
// waits for:
//
//	betweenRoutines  no routine open: between dumps (preamble lines, junk)
//	                 or between the routines of a dump (after a blank line).
//	                 header / `runtime stack:` / race access line → wantFrame;
//	                 a function line right after a preamble → wantFile (a
//	                 header-less routine, kept only if a file line follows).
//	wantFrame        a routine is open and wants a frame: function line →
//	                 wantFile; `created by` → wantCreatorFile; elision
//	                 markers, `[originating from goroutine N]:` and
//	                 `goroutine running on other thread` stay; blank line →
//	                 betweenRoutines; header → wantFrame of the next routine;
//	                 junk is skipped.
//	wantFile         a function line waits for its `\tfile:line` → wantFrame.
//	                 Anything else: a Go frame loses its file (a ParseError,
//	                 then skipToNext), a cgo-looking token was junk after all.
//	wantCreatorFile  `created by F` waits for its file line → wantFrame.
//	skipToNext       after a problem: lines are dropped until a blank line, a
//	                 header or a line that starts a part of a dump, which are
//	                 taken as in betweenRoutines.
type routineWant uint8

const (
	betweenRoutines routineWant = iota
	wantFrame
	wantFile
	wantCreatorFile
	skipToNext
)

// feed handles one line as read: raw, with the prefix learnt (if any)
// still on it.
func (g *goTextDecoder) feed(raw []byte) {
	line := g.prefix.p.Strip(raw)
	if want := g.rt.want; want == wantFile || want == wantCreatorFile {
		g.fileAwaited(line, raw)
		return
	}
	g.dispatch(line, raw)
}

// fileAwaited handles the line after a function or `created by` line:
// its file line, or what stands in its place.
func (g *goTextDecoder) fileAwaited(line, raw []byte) {
	rt := &g.rt
	creator := rt.want == wantCreatorFile
	var flags uint8
	if !creator {
		flags = rt.awaiting.callFlags()
	}
	if rt.frames.expectedFile(line, flags, &g.fl) {
		g.commitAwaited(creator)
		return
	}
	var tok token
	classify(line, &tok)
	if tok.kind == lineFile {
		rt.frames.parsedFile(line)
		g.fl = tok.fl
		g.commitAwaited(creator)
		return
	}
	if creator {
		g.createdByFileMissing()
	} else {
		if !g.dump.reversed && rt.awaiting.form == callGo && tok.kind == lineHeader {
			// A function line right before a header, waiting for its
			// file line: the lines come newest first, as a log viewer
			// shows them.
			g.dump.reversed = true
			g.problemAt(rt.awaiting.num, rt.awaiting.off, "the lines look reversed (newest first, as a log viewer shows them): goroutines are read without their frames; reverse the input (tac) to read it", nil)
		}
		g.fileMissing()
	}
	g.take(&tok, raw)
}

// commitAwaited completes the pending function line (creator false) or
// `created by` line with the file line in g.fl.
func (g *goTextDecoder) commitAwaited(creator bool) {
	if creator {
		g.commitCreatedBy()
	} else {
		g.commitFrame()
	}
}

// dispatch handles a line that is not the awaited file line.
func (g *goTextDecoder) dispatch(line, raw []byte) {
	// Most lines are the call of the frame expected next, and no other
	// form claims one whose function is plain (see stackNode.plain): take
	// it without lexing it.
	if rt := &g.rt; rt.want == wantFrame && rt.r != nil && rt.frames.expectsPlain() {
		if name, args, form := rt.frames.expectedCall(line); form != callNone {
			g.call(name, args, form, line)
			return
		}
	}
	var tok token
	classify(line, &tok)
	g.take(&tok, raw)
}

// take hands a token to the part of the dump that claims it.
func (g *goTextDecoder) take(tok *token, raw []byte) {
	switch tok.kind {
	case lineBlank:
		g.blank()
		return
	case lineCutMarker:
		g.cutAt(tok.line)
		return
	}
	if g.rt.want == skipToNext && !g.endsSkip(tok) {
		if tok.kind == lineCall || tok.kind == lineFile {
			// The stack went on after a broken line: the dump was not
			// cut there.
			g.dump.interrupted = 0
		}
		return
	}
	if g.structure(tok) {
		return
	}
	g.unclaimed(tok, raw)
}

// blank ends the open routine (or race access block) and any preamble
// block.
func (g *goTextDecoder) blank() {
	if g.rt.r == nil && g.dump.nRoutines == 0 && !g.prefix.replaying {
		g.prefix.ring.add(nil, g.at.num, g.offset()) // replayed too: it ends a preamble block
	}
	g.pre.open = false
	switch g.rt.want {
	case wantFrame, skipToNext:
		g.endRoutine()
	}
	g.rt.want = betweenRoutines
}

// cutAt ends the open routine at a CutMarker line and marks the dump
// truncated, warning with what the writer said.
func (g *goTextDecoder) cutAt(line []byte) {
	g.blank()
	g.ensureDump()
	g.dump.d.Truncated = true
	g.publishDump()
	g.problem("dump truncated: "+string(line[len(CutMarker):]), line)
}

// endsSkip reports whether tok ends a skip after a problem: a header or
// a line that starts something.
func (g *goTextDecoder) endsSkip(tok *token) bool {
	switch tok.kind {
	case lineHeader, lineCrash, lineSystemStack, lineRaceStart, lineRaceEnd:
	case lineRaceAccess:
		if !g.race.open {
			return false
		}
	default:
		return false
	}
	g.rt.want = betweenRoutines
	return true
}

// structure handles the lines that give a dump its structure rather than
// a frame (headers, crash and race report lines, markers) and the
// indented lines that are not an awaited file line; it reports whether
// tok was one it takes where it stands.
func (g *goTextDecoder) structure(tok *token) bool {
	if tok.indented {
		return g.indented(tok)
	}
	rt, line := &g.rt, tok.line
	switch tok.kind {
	case lineHeader:
		g.header(&tok.hdr)
		return true
	case lineUnavailable:
		if rt.r != nil {
			rt.r.Unavailable = true
			return true
		}
	case lineCreatedBy:
		if rt.r != nil && !g.inRace() && rt.want == wantFrame {
			fn, parent, _ := parseCreatedBy(line)
			g.awaitFile(true, fn, nil, callGo, parent, line)
			rt.want = wantCreatorFile
			return true
		}
	case lineElided:
		if rt.r != nil {
			n, _ := parseElided(line)
			rt.frames.elide(n)
			return true
		}
	case lineEllipsis:
		if g.dump.d != nil {
			g.gap("an ellipsis in place of lines", line)
			return true
		}
	case lineAncestor:
		if rt.r != nil && !g.inRace() {
			id, _ := parseOriginating(line)
			g.startAncestor(id)
			return true
		}
	case lineSignal:
		g.preambleLine(line, false)
		return true
	case lineCrash:
		g.preambleLine(line, true)
		return true
	case lineSystemStack:
		g.startPart(partSystem)
		return true
	case lineRaceStart:
		g.raceStart()
		return true
	case lineRaceEnd:
		if g.race.open {
			g.endRoutine()
			g.race.open = false
			rt.want = betweenRoutines
		}
		return true
	case lineRaceAccess:
		acc, _ := parseRaceAccess(line)
		if g.race.open {
			g.raceAccess(acc)
			return true
		}
		if rt.r == nil && g.dump.nRoutines == 0 {
			// A race report whose first lines the paste cut off.
			g.raceStart()
			g.publishDump()
			g.problem("race report without its WARNING: DATA RACE line (the input starts inside it)", line)
			g.raceAccess(acc)
			return true
		}
	case lineGrepGap:
		g.gap("grep's -- group separator", line)
		return true
	case lineThreadEnd:
		if g.dump.nRoutines > 0 {
			g.endRoutine()
			rt.want = betweenRoutines
			g.threads.ended = true
			return true
		}
	}
	return false
}

// indented handles a line starting with a tab or a space that is not an
// awaited file line: a race report's frames are indented, and a panic's
// value may be.
func (g *goTextDecoder) indented(tok *token) bool {
	rt, t := &g.rt, tok.text
	if tok.kind == lineEllipsis && g.dump.d != nil {
		g.gap("an ellipsis in place of lines", t)
		return true
	}
	if rt.r != nil && tok.kind == lineUnavailable {
		rt.r.Unavailable = true
		return true
	}
	if g.inRace() && rt.want == wantFrame {
		if tok.kind == lineRaceNoStack {
			return true
		}
		// A cgo frame's `pc=0x…` reads as a call here, as a word alone.
		name, args, form := tok.name, tok.args, tok.form
		if tok.kind != lineCall {
			name, args, form = parseCall(t)
		}
		if form != callNone {
			g.call(name, args, form, t)
			return true
		}
		return false
	}
	if rt.r == nil && g.dump.nRoutines == 0 && g.pre.open {
		g.preambleLine(tok.line, false)
		return true
	}
	if rt.r != nil && rt.want == wantFrame && tok.kind == lineFile {
		g.problem("file line without a function line", tok.line)
		return true
	}
	return false
}

// unclaimed handles a line no part of the dump claimed by its form where
// it stands: a function line, a preamble's next line, the first frame of
// a routine whose header is missing, or text around the dump.
func (g *goTextDecoder) unclaimed(tok *token, raw []byte) {
	rt, line := &g.rt, tok.line
	if rt.r == nil && g.dump.nRoutines == 0 && g.pre.open && tok.kind != lineRegister {
		if !g.afterPC(tok) {
			g.preambleLine(line, false)
			return
		}
		g.pre.open = false // the blank line after `PC=` was dropped
	}
	if rt.r != nil && rt.want == wantFrame {
		if name, args, form := rt.frames.expectedCall(line); form != callNone {
			g.call(name, args, form, line)
			return
		}
		if name, args, form := callOf(tok); form != callNone {
			g.call(name, args, form, line)
			return
		}
	}
	// A function line right after a preamble and a blank line: the
	// crashing thread's frames printed without a header (old SIGABRT
	// dumps). It becomes a routine once its file line follows.
	if rt.r == nil && rt.want == betweenRoutines && g.dump.nRoutines == 0 && g.dump.d != nil && len(g.dump.d.Preamble) > 0 {
		if name, args, form := callOf(tok); form == callGo || form == callInlined {
			// After lines were left out, it is more likely a goroutine
			// whose header went with them: say so.
			g.startHeaderless(g.foreign.orphanGap > 0)
			g.call(name, args, form, line)
			return
		}
	}
	// A function line before any dump, or after lines were left out: a
	// paste that starts inside a goroutine, or a grep context that left
	// its header out. Its frames are read as a routine without a header
	// once a file line follows, and a warning says so.
	if rt.r == nil && rt.want == betweenRoutines && !g.race.open && (g.dump.d == nil && g.dump.nRoutines == 0 || g.foreign.orphanGap > 0) {
		if name, args, form := callOf(tok); form == callGo || form == callInlined {
			g.startHeaderless(true)
			g.call(name, args, form, line)
			return
		}
	}
	g.foreignLine(line, raw)
}

// callOf returns the call a line reads as: the lexer's lineCall, or what
// parseCall makes of a line of another kind (the word of a `-----` line,
// say); an indented line reads as none here.
func callOf(tok *token) (name, args []byte, form callForm) {
	if tok.kind == lineCall && !tok.indented {
		return tok.name, tok.args, tok.form
	}
	return parseCall(tok.line)
}

// afterPC reports whether tok is a function line right after a signal
// dump's `PC=` line, whose blank line a paste dropped: the crashing
// thread's frames without a header, not more preamble.
func (g *goTextDecoder) afterPC(tok *token) bool {
	d := g.dump.d
	if d == nil || len(d.Preamble) == 0 || !strings.HasPrefix(d.Preamble[len(d.Preamble)-1], "PC=") {
		return false
	}
	_, _, form := callOf(tok)
	return form == callGo
}
