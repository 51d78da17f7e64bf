package gotext

import "bytes"

// The accelerator: most lines of a dump are the frames of call sites met
// before, a goroutine's `created by` and the blank line that ends it, and
// the next goroutine's header. accelerate takes such lines straight out of
// the line source's window (codec.Lines.Window), compares them with what
// the trie of stacks met expects (section.next), and moves the source on
// past them (codec.Lines.Advance), with the effect the assembler gives
// their tokens: the same frames, values, creator, routine end and header.
// Anything else (a new call site, ancestor sections, race reports,
// prefixed lines, overlong lines, CRLF, the window's end, a layer between
// the source and the input) is left to the lexer and the assembler, which
// take over at the first such line. The tests read every input both ways
// (ReadOptions.lineByLine) and compare. step asks it first:
// skipKnownLine when the open routine waits for a file line, wholeFrame
// when it wants a frame.

// skipKnownLine handles the awaited file line without splitting it off
// when the input holds, next, the expected frame's known line (see
// section.expectedLine): comparing it in place is cheaper than finding
// the end of the line and then comparing. It reports whether it did.
func (g *goTextDecoder) skipKnownLine() bool {
	if g.prefix.p.Active() {
		return false
	}
	rt := &g.rt
	var flags uint8
	if rt.want == wantFile {
		flags = rt.awaiting.callFlags()
	}
	loc := rt.frames.expectedLine(flags)
	if loc == "" || !g.skipLine(loc) {
		return false
	}
	rt.frames.known(&g.fl)
	g.commitAwaited(rt.want == wantCreatorFile)
	return true
}

// wholeFrame takes, in one run, the lines of the open routine that are
// whole in the buffered window and need no more than the trie to read:
// frames of known call sites (a function line, with any arguments, then
// that frame's known file line), a `created by` line of the creator known
// after them with its known file line, and the blank line that ends the
// routine. Most lines of a dump are such lines, and this is what step,
// feed, dispatch, call, begin and skipKnownLine do with them, without
// finding the end of each file line, classifying the lines or going
// through the state machine once a line. The frame is the one expected
// next (see section.next) or, when its function line names another, the
// child of the current node that has its function and file line: where
// stacks branch, that is the child the line by line path would find.
// Anything else (a new call site, ancestor sections, race reports,
// prefixed lines, overlong lines, CRLF, the window's end) is left to the
// line by line path, which takes over at the first such line. It reports
// whether it took a line.
func (g *goTextDecoder) wholeFrame() bool {
	rt := &g.rt
	if rt.r == nil || g.inRace() || rt.ancestor >= 0 || rt.unconfirmed || g.prefix.p.Active() {
		return false
	}
	win, start := g.lines.Window()
	if win == nil {
		return false // a layer reads the lines, or a line was pushed back
	}
	s, limit := rt.frames, g.lines.Max()
	if rt.viewsOfWindow {
		s.held = win // what the views taken here are of, until detachArgs
	}
	held := s.held != nil && rt.slot != nil // the values will be views (closeSection)
	// The reader's place, kept here while the run lasts: win[pos:] is
	// what is left, lines how many lines were taken and frame the count
	// at the last frame's file line.
	pos, lines, frame := start, 0, 0
	blank := false
	for pos < len(win) {
		w := win[pos:]
		if w[0] == '\n' { // the blank line that ends the routine
			lines, blank = lines+1, true
			pos++
			break
		}
		if w[0] == 'c' {
			if loc := g.wholeCreator(w, limit); loc > 0 {
				lines += 2
				pos += loc + len(s.cur.creatorLoc) + 1
				continue
			}
		}
		n, k, e, end := g.wholeCall(w, limit)
		if n == nil {
			break
		}
		// Both lines, as readLine and skipKnownLine take them; the frame
		// as call and commitFrame make it (the pending call they go
		// through is read by nothing once the frame is made).
		vals := s.takeAt(n, win, pos+k+1, pos+e-1, pos+e+1+len(n.loc), held)
		lines += 2
		frame = lines
		pos += end + 1
		if vals {
			continue // fp, sp and pc after the file line: no join holds them
		}
		// The frames expected next, while each is called where the one
		// before ends: the end of a frame's function line and its file
		// line are checked with the name of the frame after it in one
		// comparison (stackNode.join), which also shows that one called.
		c := s.next()
		if !c.calledBy(win[pos:]) {
			continue
		}
		for {
			a := pos + len(c.fn) + 1 // c's arguments
			d := bytes.IndexByte(win[a:], '\n')
			e := a + d // the end of c's function line; its checks are callEnd's, inline here
			if d < 1 || win[e-1] != ')' || e-pos > limit || bytes.IndexByte(win[a:e-1], '(') >= 0 ||
				len(c.loc) > limit || !c.calledAs(win, a-1, e) {
				break
			}
			next := s.after(c)
			joined := next != nil && next.whole && next.join != "" && hasPrefixStr(win[e-1:], next.join)
			end := e + 1 + len(c.loc) // the end of c's file line
			if !joined {
				if end = c.fileEnd(win[pos:], len(c.fn), e-pos, limit); end == 0 {
					break
				}
				end += pos
			}
			if joined && held {
				// takeAt's held case for a frame followed by the next
				// one's function line (no fp=, sp=, pc=), written out
				// here since takeAt is not inlined and the call costs 2%
				// of a read (cachegrind).
				argEnd := e - 1
				if c.inlined {
					argEnd = a
				}
				s.push(c)
				if !s.addHeld(a, argEnd) {
					s.addSpan(a, argEnd, 0, 0, 0, true)
				}
				s.hasVals = s.hasVals || argEnd > a
			} else {
				s.takeAt(c, win, a, e-1, e+1+len(c.loc), held)
			}
			lines += 2
			frame = lines
			pos = end + 1
			if !joined {
				break
			}
			c = next
		}
	}
	if lines == 0 {
		return false
	}
	g.lines.Advance(pos-start, lines)
	g.at = linePos{g.lines.Num(), -1} // the offset is found when asked
	if frame != 0 {
		rt.frameLine = g.at.num - lines + frame
	}
	if blank {
		g.blank()
		g.wholeHeader()
	}
	return true
}

// wholeHeader takes the header of the next routine after the blank line
// that ended one in wholeFrame, when the line is whole in the window and
// plain (windowLine): what step, feed, dispatch and special do with a
// header line then, without their way through the state machine, once a
// goroutine. Any other line is left to them.
func (g *goTextDecoder) wholeHeader() {
	line := g.windowLine()
	if len(line) == 0 || line[0] != 'g' || g.rt.want != betweenRoutines || !parseHeader(line, &g.hdr) {
		return
	}
	g.lines.Advance(len(line)+1, 1)
	g.at = linePos{g.lines.Num(), -1}
	g.header(&g.hdr)
}

// windowLine returns the next line, without its "\n", when it is whole
// in the line reader's window and Read would return it from there as it
// is: ended by "\n" (not "\r\n"), no longer than the line limit, with
// nothing pushed back or set aside before it; nil otherwise.
func (g *goTextDecoder) windowLine() []byte {
	win, pos := g.lines.Window()
	w := win[pos:]
	k := bytes.IndexByte(w, '\n')
	if k <= 0 || k > g.lines.Max() || w[k-1] == '\r' {
		return nil
	}
	return w[:k]
}

// skipLine takes the next line when it is text, whole in the line
// reader's window and ended by "\n", exactly as Read would have returned
// it, and reports whether it did. text holds no line terminator.
func (g *goTextDecoder) skipLine(text string) bool {
	win, pos := g.lines.Window()
	end := pos + len(text)
	if end >= len(win) || win[end] != '\n' || len(text) > g.lines.Max() ||
		len(text) > 0 && text[len(text)-1] == '\r' || string(win[pos:end]) != text {
		return false
	}
	g.lines.Advance(len(text)+1, 1)
	g.at = linePos{g.lines.Num(), -1}
	return true
}

// wholeCall returns the frame whose function line, with its known file
// line after it, starts win, with the index of the line's '(' (k), of
// its '\n' (e) and of the file line's '\n' (end); n is nil when there is
// none to take in place. The function line is split as parseCall and
// expectedCall split it: at its last '(', the arguments holding none.
func (g *goTextDecoder) wholeCall(win []byte, limit int) (n *stackNode, k, e, end int) {
	s := g.rt.frames
	n = s.next()
	if n.calledBy(win) {
		k = len(n.fn)
		if e = callEnd(win, k, limit); e == 0 {
			return nil, 0, 0, 0
		}
		if end = n.fileEnd(win, k, e, limit); end > 0 {
			return n, k, e, end
		}
		if s.cur.children == nil {
			return nil, 0, 0, 0 // the only child
		}
	} else {
		e = bytes.IndexByte(win, '\n')
		if e < 3 || win[e-1] != ')' || e > limit {
			return nil, 0, 0, 0
		}
		if k = lastParen(win[:e-1]); k <= 0 {
			return nil, 0, 0, 0
		}
	}
	// Another call than the one expected: a branch of the stacks met, or
	// the guess was wrong. The call sites of the function, newest first.
	for n = s.cur.child(win[:k]); n != nil; n = n.sibling {
		if end = n.fileEnd(win, k, e, limit); end > 0 {
			return n, k, e, end
		}
	}
	return nil, 0, 0, 0
}

// callEnd returns the index of the '\n' ending the function line that
// starts win and has its '(' at k, when the line ends in ')' within limit
// and its arguments hold no '(' (parseCall splits at the last one); 0
// when not. wholeFrame's run of expected frames makes the same checks
// inline: the call, which is not inlined, costs 2% of a read there.
func callEnd(win []byte, k, limit int) int {
	d := bytes.IndexByte(win[k+1:], '\n')
	e := k + 1 + d
	if d < 1 || win[e-1] != ')' || e > limit || bytes.IndexByte(win[k+1:e-1], '(') >= 0 {
		return 0
	}
	return e
}

// calledAs reports whether the function line ending at win[e], whose '('
// is at k, calls n's function as n was called: inlined (`f(...)`) or not.
func (n *stackNode) calledAs(win []byte, k, e int) bool {
	return n.inlined == (e-k == 5 && string(win[k+1:e-1]) == "...")
}

// lastParen is bytes.LastIndexByte(line, '('), found forwards with
// IndexByte's vector search: a function line holds one '(' before its
// arguments, and one more for a method on a pointer (`pkg.(*T).M(`).
func lastParen(line []byte) int {
	k := bytes.IndexByte(line, '(')
	for k >= 0 {
		j := bytes.IndexByte(line[k+1:], '(')
		if j < 0 {
			break
		}
		k += j + 1
	}
	return k
}

// fileEnd returns the index of the '\n' ending the file line after the
// function line win[:e], whose '(' is at k, when that line is n's known
// line, alone or followed by the fp=, sp= and pc= of a GOTRACEBACK=system
// traceback (see frameValues), and both lines call n's function as n was
// called, within limit; 0 when they do not.
func (n *stackNode) fileEnd(win []byte, k, e, limit int) int {
	end := e + 1 + len(n.loc)
	if !n.whole || k != len(n.fn) || !n.calledAs(win, k, e) || end >= len(win) || string(win[e+1:end]) != n.loc {
		return 0
	}
	if win[end] != '\n' {
		end = valuesEnd(win, end)
	}
	if end-e-1 > limit {
		return 0
	}
	return end
}

// valuesEnd returns the index of the '\n' after the fp=, sp= and pc= at
// win[i:] (see frameValues), 0 when there are none.
func valuesEnd(win []byte, i int) int {
	if win[i] != ' ' {
		return 0
	}
	_, _, _, n := frameValues(win[i:])
	if n == 0 || i+n >= len(win) || win[i+n] != '\n' {
		return 0
	}
	return i + n
}

// frameValues parses ` fp=0x… sp=0x… pc=0x…` at the start of b, as a
// GOTRACEBACK=system traceback writes them after a file line, and returns
// them with their length n; n is 0 when b does not start so.
func frameValues(b []byte) (fp, sp, pc uint64, n int) {
	for i, key := range [3]string{" fp=", " sp=", " pc="} {
		if !hasPrefixStr(b[n:], key) {
			return 0, 0, 0, 0
		}
		n += len(key)
		v, m := scanHexPrefixed(b[n:])
		if m == 0 {
			return 0, 0, 0, 0
		}
		n += m
		switch i {
		case 0:
			fp = v
		case 1:
			sp = v
		default:
			pc = v
		}
	}
	return fp, sp, pc, n
}

// wholeCreator takes a `created by` line that starts win and names the
// creator known after the frames read, when that creator's known file
// line follows, as special, pend, skipKnownLine and commitCreatedBy do; it
// returns where in win the file line starts, or 0 when it took nothing.
func (g *goTextDecoder) wholeCreator(win []byte, limit int) int {
	const pfx, in = "created by ", " in goroutine "
	s := g.rt.frames
	c, loc := s.cur.creator, s.cur.creatorLoc
	if c == nil || loc == "" || loc[len(loc)-1] == '\r' || len(loc) > limit {
		return 0
	}
	k := len(pfx) + len(c.Func)
	if len(win) <= k || string(win[:len(pfx)]) != pfx || string(win[len(pfx):k]) != c.Func {
		return 0
	}
	var parent uint64
	e := k // the end of the line
	switch {
	case win[k] == '\n': // no parent (before Go 1.21)
	case len(win) > k+len(in) && string(win[k:k+len(in)]) == in:
		v, n := scanUint(win[k+len(in):])
		e = k + len(in) + n
		if n == 0 || e >= len(win) || win[e] != '\n' {
			return 0
		}
		parent = v
	default:
		return 0
	}
	end := e + 1 + len(loc)
	if e > limit || end >= len(win) || win[end] != '\n' || string(win[e+1:end]) != loc {
		return 0
	}
	s.creator, s.hasCreator = c, true
	g.rt.r.ParentID = int64(parent)
	return e + 1
}
