package gotext

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// goTextDecoder reads Go traceback text (KindGoTraceback): runtime.Stack
// output, /debug/pprof/goroutine?debug=2, panics, fatal errors, SIGQUIT
// dumps and race reports, any number of them in one stream, with junk
// around them. See docs/go-formats.md for every form it reads and how it
// maps to the model.
//
// It is one line state machine, fed one line at a time by the pull
// methods nextDump and nextRoutine. What the machine finds (a dump
// starting, a routine, a problem, a dump ending) goes into a small queue
// the pull methods drain; a line is read only when the queue is empty, so
// memory stays bounded by the longest routine, never by the input.
//
// States, with the lines that move between them:
//
//	stIdle         no routine open: between dumps (preamble lines, junk) or
//	               between the routines of a dump (after a blank line).
//	               header / `runtime stack:` / race access line → stFunc;
//	               a function line right after a preamble → stFile
//	               (a header-less routine, kept only if a file line follows).
//	stFunc         a routine is open and wants a frame: function line →
//	               stFile; `created by` → stCreatedFile; elision markers,
//	               `[originating from goroutine N]:` and `goroutine running
//	               on other thread` stay; blank line → stIdle; header → stFunc
//	               of the next routine; junk is skipped.
//	stFile         a function line waits for its `\tfile:line` → stFunc.
//	               Anything else: a Go frame loses its file (a ParseError,
//	               then stSkip), a cgo-looking token was junk after all.
//	stCreatedFile  `created by F` waits for its file line → stFunc.
//	stSkip         after a problem: lines are dropped until a blank line, a
//	               header or a preamble line, which are handled as in stIdle.
type goTextDecoder struct {
	in *codec.Stream
	lr *codec.Lines
	// lines makes lr: with the paste layer for a paste, plain for the
	// runtime's own text (codec.Options.Lines); kept across Reset.
	lines func(in *codec.Stream, max int) *codec.Lines
	t     *stack.Table
	eof   bool
	err   error // a read error, returned once the queue is drained
	// readErr is the read error that ended the input early, if any.
	readErr error

	// num and off name the line being handled (they differ from lr's while
	// replaying held lines).
	num int
	off int64

	prefix    codec.LinePrefix
	ring      lineRing // junk lines before a dump, replayed when a prefix is learnt
	replaying bool

	events []goEvent
	head   int

	// The dump receiving lines. out is the one last returned by nextDump.
	d         *stack.Dump
	out       *stack.Dump
	announced bool                // its start event was queued
	held      []*stack.ParseError // problems met before it was announced
	nRoutines int
	seen      idSet   // header ids, to split at a repeated id
	inReport  bool    // between `WARNING: DATA RACE` and the closing `=====`
	race      *stack. // the report being read, kept in d.Races
			Race
	// preambleOpen is set after a preamble line until a blank line: lines
	// in between continue it (multi-line panic values, `PC=`).
	preambleOpen bool
	junkGap      bool // junk was skipped since the last preamble line
	longPreamble bool // the preamble cap was reported
	// threadSep is set by the `-----` that ends one OS thread's block of
	// a GOTRACEBACK=crash signal dump; inThreads once the next block's
	// signal line continued the dump. Repeated ids are then each
	// thread's g0, not a second dump.
	threadSep, inThreads bool

	// The routine being read, and its slot when routines are reused
	// (ReadOptions.ReuseRoutines; pool is nil otherwise).
	r           *stack.Routine
	slot        *routineSlot
	part        partKind          // what r is: a goroutine or a section kept on the dump
	partR       stack.Routine     // r for sections
	access      stack.RaceAccess  // the race access being read (partAccess)
	creator     stack.RaceCreator // the race creator being read (partCreator)
	pool        *routinePool
	st          goState
	provisional bool // header-less routine, kept only once a frame completes
	headless    bool // provisional, and its header is missing from the input
	anc         int  // -1: the routine's own stack; else index in r.Ancestors
	sec         *section
	// window is set when a routine's values may be views of the line
	// reader's window over a stream (see start).
	window    bool
	waiting   pendingCall
	frameLine int // number of the last location line read into a frame
	// cut is set when the input's last line was a cut piece of a line of
	// the open routine, dropped; cutText is that piece.
	cut     bool
	cutText []byte
	// orphans counts the lines of frames met while no routine was open (a
	// goroutine whose header the paste left out), from line orphanNum;
	// orphanCall is set when the junk line before was a function line.
	orphans    int
	orphanNum  int
	orphanOff  int64
	orphanCall bool
	orphanGap  int // the separator line that left the header out, 0 if none
	// hidden counts the lines that hold a goroutine header inside other
	// text the reader could not set aside (hiddenHeader), from line
	// hiddenNum, whose text is hiddenText.
	hidden       int
	announcedAny bool              // a dump was announced in this input
	hiddenErr    *stack.ParseError // the first warning about hidden headers
	hiddenNum    int
	hiddenOff    int64
	hiddenText   []byte
	gapped       int // the last line of this dump where lines were left out
	// held keeps the last junk lines: the first lines of a dump of another
	// form, handed on with it (other) when it starts.
	junkHeld codec.Held
	// otherForm handles a junk line that may start a dump of another
	// form (otherFormLine, for a Reader made by NewReader; nil for the
	// runtime's own text); others are the stream's other text forms,
	// known once othersSet.
	otherForm  func(g *goTextDecoder, raw []byte) bool
	others     codec.Forms
	othersSet  bool
	otherStart *codec.OtherFormError // the dump of another form read on
	skipping   stack.Kind            // the other form warned about last
	reversed   bool                  // the lines come newest first (see header)
	// prevJunkNum and prevJunkOff name the junk line before.
	prevJunkNum int
	prevJunkOff int64

	// states caches interned states by length: most goroutines of a dump
	// share a few states, and a compare is cheaper than a map lookup. Each
	// holds the path of the stack read last in that state, the section's
	// guess for the next one.
	states [16]stateGuess

	// trie holds the stacks met so far, values dedups the frame values of
	// routines read close together; both outlive an input (reset).
	trie   *stackTrie
	values valueCache

	// Scratch.
	hdr    goHeader
	fl     fileLine
	labels stack.Labels
}

type goState uint8

const (
	stIdle goState = iota
	stFunc
	stFile
	stCreatedFile
	stSkip
)

// pendingCall is a function or `created by` line waiting for its file line;
// its name and args wait in the section.
type pendingCall struct {
	form    callForm
	creator bool
	parent  int64 // created by … in goroutine N
	num     int
	off     int64
	text    []byte // the line, for errors, kept for the rare forms only
}

type goEventKind uint8

const (
	evStart goEventKind = iota
	evRoutine
	evError
	evEnd
)

type goEvent struct {
	kind goEventKind
	d    *stack.Dump
	r    *stack.Routine
	slot *routineSlot // r's slot when routines are reused
	err  *stack.ParseError
}

const (
	maxPreambleLines = 1000
	ringLines        = 64
	ringLineBytes    = 1024
)

func newGoTextDecoder(in *codec.Stream, opts codec.Options) *goTextDecoder {
	t := opts.Table
	if t == nil {
		t = stack.NewTable()
	}
	g := &goTextDecoder{trie: new(stackTrie)}
	if opts.ReuseRoutines {
		g.pool = new(routinePool)
	}
	g.lines = opts.Lines
	if g.lines == nil {
		g.lines = codec.NewLines
	}
	g.start(in, t, opts.MaxLineBytes)
	return g
}

// start readies g to read in from its first line, interning into t. What
// does not depend on the input is kept: the trie of stacks met, the value
// cache and the routine pool.
func (g *goTextDecoder) start(in *codec.Stream, t *stack.Table, maxLine int) {
	trie, values, pool, lines, otherForm := g.trie, g.values, g.pool, g.lines, g.otherForm
	*g = goTextDecoder{
		in:        in,
		lr:        lines(in, maxLine),
		lines:     lines,
		otherForm: otherForm,
		t:         t,
		anc:       -1,
		sec:       newSection(t, trie),
		trie:      trie,
		values:    values,
		pool:      pool,
	}
	g.lr.SetOnMove(nil)
	if pool != nil {
		// A routine's Args may then be views of the input held in
		// memory, or of the line reader's window over a stream: they
		// are valid only until the next routine is read, and the
		// window's are copied before it moves (unhold).
		g.sec.held = g.lr.Held()
		if g.sec.held == nil && !g.lr.Layered() {
			g.window = true
			g.lr.SetOnMove(g.unhold)
		}
	}
}

// unhold copies what the open routine holds as views of the line
// reader's window before the window moves: the arguments of the section
// being read and, when its own stack was closed already (an ancestor
// section is being read), its values.
func (g *goTextDecoder) unhold() {
	if g.r == nil || g.slot == nil {
		return
	}
	g.sec.unhold()
	if g.anc >= 0 && g.r.Values != nil {
		for i := range g.r.Values.Frames {
			f := &g.r.Values.Frames[i]
			f.Args = strings.Clone(f.Args)
		}
	}
}

// reset readies g to read in from its first line, keeping its Table, its
// trie of stacks met and its caches.
func (g *goTextDecoder) reset(in *codec.Stream) { g.start(in, g.t, g.lr.Max()) }

func (g *goTextDecoder) NextDump() (*stack.Dump, error) {
	if g.pool != nil {
		g.pool.reclaim()
	}
	for {
		for g.head < len(g.events) {
			ev := g.pop()
			if ev.kind == evStart {
				g.out = ev.d
				return ev.d, nil
			}
		}
		if g.err != nil {
			return nil, g.err
		}
		if g.otherStart != nil {
			return nil, g.otherStart
		}
		if g.eof {
			if pe := g.hiddenOnly(); pe != nil {
				g.err = pe
				return nil, pe
			}
			return nil, io.EOF
		}
		g.step()
	}
}

// hiddenOnly returns, at the end of an input that held no dump, the
// warning about goroutine headers hidden in other text, if one was held:
// the input is not read as a dump, and the error says where the headers
// are instead of "no dump found".
func (g *goTextDecoder) hiddenOnly() *stack.ParseError {
	if g.announcedAny || g.hiddenErr == nil {
		return nil
	}
	g.hiddenErr.Err = stack.ErrNotDump
	return g.hiddenErr
}

func (g *goTextDecoder) NextRoutine() (*stack.Routine, error) {
	if g.pool != nil {
		g.pool.reclaim()
	}
	for {
		if g.head < len(g.events) {
			ev := g.pop()
			switch ev.kind {
			case evRoutine:
				if g.out != nil {
					g.out.Total += ev.r.Count
				}
				if ev.slot != nil {
					g.pool.lend(ev.slot)
				}
				return ev.r, nil
			case evError:
				return nil, ev.err
			case evEnd:
				return nil, codec.ErrEndOfDump
			case evStart: // cannot happen: every start follows an end
				g.head--
				return nil, codec.ErrEndOfDump
			}
		}
		if g.eof || g.err != nil {
			return nil, codec.ErrEndOfDump
		}
		g.step()
	}
}

func (g *goTextDecoder) pop() goEvent {
	ev := g.events[g.head]
	g.events[g.head] = goEvent{}
	g.head++
	if g.head == len(g.events) {
		g.events, g.head = g.events[:0], 0
	}
	return ev
}

func (g *goTextDecoder) emit(ev goEvent) { g.events = append(g.events, ev) }

// step reads one line and feeds it to the machine; at the end of the input
// it closes what is open.
func (g *goTextDecoder) step() {
	switch g.st {
	case stFile, stCreatedFile:
		if g.skipKnownLine() {
			return
		}
	case stFunc:
		if !slowFrames.Load() && g.wholeFrame() {
			return
		}
	}
	prevNum, prevOff := g.num, g.offset()
	ln, err := g.lr.Read()
	g.num, g.off = ln.Num, ln.Off
	switch {
	case err == nil:
		if (ln.NoEOL || ln.Last) && g.cutLine(ln.Text) {
			return // the input's (or paste region's) last line, cut short: dropped
		}
		g.feed(ln.Text)
	case err == codec.ErrLineTooLong:
		_, head := g.lr.TooLong()
		g.problem(g.lr.TooLongMsg(), head)
	case err == codec.ErrRegionEnd:
		g.num, g.off = prevNum, prevOff // what is judged is the region's last line
		g.regionEnd()
	case err == codec.ErrGap:
		g.gap("grep's -- group separator", []byte("--"))
	case err == io.EOF:
		g.num, g.off = prevNum, prevOff // the input's last line
		g.finish()
	default:
		g.readErr = err
		g.num, g.off = prevNum, prevOff
		g.finish()
		g.err = err
	}
}

// skipKnownLine handles the awaited file line without splitting it off
// when the input holds, next, the expected frame's known line (see
// section.expectedLine): comparing it in place is cheaper than finding
// the end of the line and then comparing. It reports whether it did.
func (g *goTextDecoder) skipKnownLine() bool {
	if g.prefix.Active() {
		return false
	}
	var flags uint8
	if g.st == stFile {
		flags = g.waiting.callFlags()
	}
	loc := g.sec.expectedLine(flags)
	if loc == "" || !g.skipLine(loc) {
		return false
	}
	g.sec.known(&g.fl)
	if g.st == stFile {
		g.commitFrame()
	} else {
		g.commitCreatedBy()
	}
	return true
}

// slowFrames turns wholeFrame off, for tests to compare.
var slowFrames atomic.Bool

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
	if g.r == nil || g.inRace() || g.anc >= 0 || g.provisional || g.prefix.Active() {
		return false
	}
	win, start := g.lr.Window()
	if win == nil {
		return false // a layer reads the lines, or a line was pushed back
	}
	s, limit := g.sec, g.lr.Max()
	if g.window {
		s.held = win // what the views taken here are of, until unhold
	}
	held := s.held != nil && g.slot != nil // the values will be views (closeSection)
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
	g.lr.Advance(pos-start, lines)
	g.num, g.off = g.lr.Num(), -1 // found when asked (offset)
	if frame != 0 {
		g.frameLine = g.num - lines + frame
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
	if len(line) == 0 || line[0] != 'g' || g.st != stIdle || !parseHeader(line, &g.hdr) {
		return
	}
	g.lr.Advance(len(line)+1, 1)
	g.num, g.off = g.lr.Num(), -1
	g.header()
}

// windowLine returns the next line, without its "\n", when it is whole
// in the line reader's window and Read would return it from there as it
// is: ended by "\n" (not "\r\n"), no longer than the line limit, with
// nothing pushed back or set aside before it; nil otherwise.
func (g *goTextDecoder) windowLine() []byte {
	win, pos := g.lr.Window()
	w := win[pos:]
	k := bytes.IndexByte(w, '\n')
	if k <= 0 || k > g.lr.Max() || w[k-1] == '\r' {
		return nil
	}
	return w[:k]
}

// skipLine takes the next line when it is text, whole in the line
// reader's window and ended by "\n", exactly as Read would have returned
// it, and reports whether it did. text holds no line terminator.
func (g *goTextDecoder) skipLine(text string) bool {
	win, pos := g.lr.Window()
	end := pos + len(text)
	if end >= len(win) || win[end] != '\n' || len(text) > g.lr.Max() ||
		len(text) > 0 && text[len(text)-1] == '\r' || string(win[pos:end]) != text {
		return false
	}
	g.lr.Advance(len(text)+1, 1)
	g.num, g.off = g.lr.Num(), -1
	return true
}

// wholeCall returns the frame whose function line, with its known file
// line after it, starts win, with the index of the line's '(' (k), of
// its '\n' (e) and of the file line's '\n' (end); n is nil when there is
// none to take in place. The function line is split as parseCall and
// expectedCall split it: at its last '(', the arguments holding none.
func (g *goTextDecoder) wholeCall(win []byte, limit int) (n *stackNode, k, e, end int) {
	s := g.sec
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
	s := g.sec
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
	g.r.ParentID = int64(parent)
	return e + 1
}

// offset returns the byte offset of the line being handled. An
// accelerator that took lines out of the line source's window leaves it
// to be found there (off < 0), when asked, before the source reads on.
func (g *goTextDecoder) offset() int64 {
	if g.off < 0 {
		g.off = g.lr.Line().Off
	}
	return g.off
}

// problem reports a ParseError at the current line.
func (g *goTextDecoder) problem(msg string, text []byte) *stack.ParseError {
	return g.problemAt(g.num, g.offset(), msg, text)
}

func (g *goTextDecoder) problemAt(num int, off int64, msg string, text []byte) *stack.ParseError {
	pe := &stack.ParseError{Line: num, Offset: off, Msg: msg, Text: string(text[:min(len(text), 200)])}
	if g.announced {
		g.emit(goEvent{kind: evError, err: pe})
	} else {
		g.held = append(g.held, pe)
	}
	return pe
}

// feed handles one line.
func (g *goTextDecoder) feed(raw []byte) {
	line := g.prefix.Strip(raw)
	switch g.st {
	case stFile:
		if g.sec.fileLine(line, &g.fl, g.waiting.callFlags()) {
			g.commitFrame()
			return
		}
		if !g.reversed && g.waiting.form == callGo && hasPrefixStr(line, "goroutine ") && parseHeader(line, &g.hdr) {
			// A function line right before a header, waiting for its
			// file line: the lines come newest first, as a log viewer
			// shows them.
			g.reversed = true
			g.problemAt(g.waiting.num, g.waiting.off, "the lines look reversed (newest first, as a log viewer shows them): goroutines are read without their frames; reverse the input (tac) to read it", nil)
		}
		g.fileMissing()
	case stCreatedFile:
		if g.sec.fileLine(line, &g.fl, 0) {
			g.commitCreatedBy()
			return
		}
		g.createdByFileMissing()
	}
	g.dispatch(line, raw)
}

// dispatch handles a line that is not the awaited file line.
func (g *goTextDecoder) dispatch(line, raw []byte) {
	// Most lines are the call of the frame expected next, and special
	// cannot claim one whose function is plain (see stackNode.plain):
	// take it at once.
	if g.st == stFunc && g.r != nil && g.sec.expectsPlain() {
		if name, args, form := g.sec.expectedCall(line); form != callNone {
			g.call(name, args, form, line)
			return
		}
	}
	if isBlankLine(line) {
		g.blank()
		return
	}
	if line[0] == 's' && hasPrefixStr(line, CutMarker) {
		g.cutAt(line)
		return
	}
	if g.st == stSkip && !g.endsSkip(line) {
		return
	}
	if g.special(line) {
		return
	}
	g.other(line, raw)
}

// blank ends the open routine (or race access block) and any preamble
// block.
func (g *goTextDecoder) blank() {
	if g.r == nil && g.nRoutines == 0 && !g.replaying {
		g.ring.add(nil, g.num, g.offset()) // replayed too: it ends a preamble block
	}
	g.preambleOpen = false
	switch g.st {
	case stFunc, stSkip:
		g.endRoutine()
	}
	g.st = stIdle
}

// cutAt ends the open routine at a CutMarker line and marks the dump
// truncated, warning with what the writer said.
func (g *goTextDecoder) cutAt(line []byte) {
	g.blank()
	g.ensureDump()
	g.d.Truncated = true
	g.announce()
	g.problem("dump truncated: "+string(line[len(CutMarker):]), line)
}

// endsSkip reports whether line ends a skip after a problem: a header or
// a line that starts something.
func (g *goTextDecoder) endsSkip(line []byte) bool {
	if parseHeader(line, &g.hdr) || isPreambleStart(line) || string(line) == "runtime stack:" ||
		string(line) == "WARNING: DATA RACE" || isRaceSeparator(line) {
		g.st = stIdle
		return true
	}
	if g.inReport {
		if _, ok := parseRaceAccess(line); ok {
			g.st = stIdle
			return true
		}
	}
	return false
}

// special handles the lines that are not frames; it reports whether line
// was one.
func (g *goTextDecoder) special(line []byte) bool {
	switch line[0] {
	case 'g':
		if parseHeader(line, &g.hdr) {
			g.header()
			return true
		}
		if g.r != nil && isUnavailable(line) {
			g.r.Unavailable = true
			return true
		}
	case '\t', ' ':
		return g.indented(line)
	case 'c':
		if g.r != nil && !g.inRace() && g.st == stFunc {
			if fn, parent, ok := parseCreatedBy(line); ok {
				g.pend('C', fn, nil, callGo, parent, line)
				g.st = stCreatedFile
				return true
			}
		}
	case '.':
		if n, ok := parseElided(line); ok && g.r != nil {
			g.sec.elide(n)
			return true
		}
		if isEllipsis(line) && g.d != nil {
			g.gap("an ellipsis in place of lines", line)
			return true
		}
	case '[':
		if id, ok := parseOriginating(line); ok && g.r != nil && !g.inRace() {
			g.closeSection()
			if g.r.Ancestors == nil && g.slot != nil {
				g.r.Ancestors = g.slot.anc[:0]
			}
			g.r.Ancestors = append(g.r.Ancestors, stack.Ancestor{ID: id})
			g.anc = len(g.r.Ancestors) - 1
			g.st = stFunc
			return true
		}
		if hasPrefixStr(line, "[signal ") {
			g.preambleLine(line, false)
			return true
		}
		if isEllipsis(line) && g.d != nil {
			g.gap("an ellipsis in place of lines", line)
			return true
		}
	case 'r':
		if string(line) == "runtime stack:" {
			g.startPart(partSystem)
			return true
		}
		if hasPrefixStr(line, "runtime: ") {
			g.preambleLine(line, true)
			return true
		}
	case 'W':
		if string(line) == "WARNING: DATA RACE" {
			g.raceStart()
			return true
		}
	case '=':
		if isRaceSeparator(line) {
			if g.inReport {
				g.endRoutine()
				g.inReport = false
				g.st = stIdle
			}
			return true
		}
	case '-':
		if string(line) == "--" {
			g.gap("grep's -- group separator", line)
			return true
		}
		if string(line) == "-----" && g.nRoutines > 0 {
			g.endRoutine()
			g.st = stIdle
			g.threadSep = true
			return true
		}
	case 'P':
		if hasPrefixStr(line, "PC=") {
			g.preambleLine(line, false)
			return true
		}
	case 's':
		if hasPrefixStr(line, "signal arrived during ") {
			g.preambleLine(line, false)
			return true
		}
	}
	if isPreambleStart(line) {
		g.preambleLine(line, true)
		return true
	}
	if g.inReport {
		if acc, ok := parseRaceAccess(line); ok {
			g.raceAccess(acc)
			return true
		}
	} else if acc, ok := parseRaceAccess(line); ok && g.r == nil && g.nRoutines == 0 {
		// A race report whose first lines the paste cut off.
		g.raceStart()
		g.announce()
		g.problem("race report without its WARNING: DATA RACE line (the input starts inside it)", line)
		g.raceAccess(acc)
		return true
	}
	return false
}

// indented handles a line starting with a tab or a space that is not an
// awaited file line.
func (g *goTextDecoder) indented(line []byte) bool {
	trimmed := trimBlanks(line)
	if len(trimmed) > 0 && trimmed[0] == '.' && isEllipsis(trimmed) && g.d != nil {
		g.gap("an ellipsis in place of lines", trimmed)
		return true
	}
	if g.r != nil && isUnavailable(trimmed) {
		g.r.Unavailable = true
		return true
	}
	if g.inRace() && g.st == stFunc {
		if string(trimmed) == "[failed to restore the stack]" {
			return true
		}
		if name, args, form := parseCall(trimmed); form != callNone {
			g.call(name, args, form, trimmed)
			return true
		}
		return false
	}
	if g.r == nil && g.nRoutines == 0 && g.preambleOpen {
		g.preambleLine(line, false)
		return true
	}
	if g.r != nil && g.st == stFunc && parseFileLine(line, &g.fl) {
		g.problem("file line without a function line", line)
		return true
	}
	return false
}

// other handles function lines, preamble continuation lines and junk.
func (g *goTextDecoder) other(line, raw []byte) {
	if g.r == nil && g.nRoutines == 0 && g.preambleOpen && !isRegisterLine(line) {
		if !g.afterPC(line) {
			g.preambleLine(line, false)
			return
		}
		g.preambleOpen = false // the blank line after `PC=` was dropped
	}
	if g.r != nil && g.st == stFunc {
		if name, args, form := g.sec.expectedCall(line); form != callNone {
			g.call(name, args, form, line)
			return
		}
		if name, args, form := parseCall(line); form != callNone {
			g.call(name, args, form, line)
			return
		}
	}
	// A function line right after a preamble and a blank line: the
	// crashing thread's frames printed without a header (old SIGABRT
	// dumps). It becomes a routine once its file line follows.
	if g.r == nil && g.st == stIdle && g.nRoutines == 0 && g.d != nil && len(g.d.Preamble) > 0 {
		if name, args, form := parseCall(line); form == callGo || form == callInlined {
			gap := g.orphanGap
			g.startRoutine(0, "")
			// After lines were left out, it is more likely a goroutine
			// whose header went with them: say so.
			g.provisional, g.headless = true, gap > 0
			g.orphanGap = gap
			g.call(name, args, form, line)
			return
		}
	}
	// A function line before any dump, or after lines were left out: a
	// paste that starts inside a goroutine, or a grep context that left
	// its header out. Its frames are read as a routine without a header
	// once a file line follows, and a warning says so.
	if g.r == nil && g.st == stIdle && !g.inReport && (g.d == nil && g.nRoutines == 0 || g.orphanGap > 0) {
		if name, args, form := parseCall(line); form == callGo || form == callInlined {
			gap := g.orphanGap
			g.startRoutine(0, "")
			g.provisional, g.headless = true, true
			g.orphanGap = gap
			g.call(name, args, form, line)
			return
		}
	}
	g.junk(line, raw)
}

// afterPC reports whether line is a function line right after a signal
// dump's `PC=` line, whose blank line a paste dropped: the crashing
// thread's frames without a header, not more preamble.
func (g *goTextDecoder) afterPC(line []byte) bool {
	if g.d == nil || len(g.d.Preamble) == 0 || !strings.HasPrefix(g.d.Preamble[len(g.d.Preamble)-1], "PC=") {
		return false
	}
	_, _, form := parseCall(line)
	return form == callGo
}

// junk skips a line that is no part of a dump. A goroutine header or race
// report start inside it means the dump is wrapped in a per-line prefix,
// which is learnt here.
func (g *goTextDecoder) junk(line, raw []byte) {
	if !g.replaying && g.otherForm != nil && g.otherForm(g, raw) {
		return
	}
	orphan := g.r == nil && g.orphanLine(line)
	if rest, ok := crashInLine(line, g.d == nil && g.nRoutines == 0); ok && !orphan && !g.replaying {
		g.dispatch(rest, rest)
		return
	}
	if k := findMarker(raw); k > 0 && !orphan && !g.replaying {
		g.prefix.Set(raw[:k])
		if g.r == nil && g.nRoutines == 0 {
			g.replay()
		}
		g.dispatch(raw[k:], raw)
		return
	}
	if !orphan && !g.replaying && hiddenHeader(raw) {
		if g.hidden == 0 {
			g.hiddenNum, g.hiddenOff = g.num, g.offset()
			g.hiddenText = append(g.hiddenText[:0], raw...)
		}
		g.hidden++
	}
	if g.d != nil && len(g.d.Preamble) > 0 && g.nRoutines == 0 {
		g.junkGap = true
	}
	if g.r == nil && g.nRoutines == 0 && !g.replaying {
		g.ring.add(raw, g.num, g.offset())
	}
}

// orphanLine counts line when it is a line of a goroutine's frames met
// while no routine is open: a goroutine whose header the paste left out
// (a paste that starts inside a goroutine, a grep context, lines cut out).
// Such lines are not read — their goroutine is unknown — but counted in a
// warning that names the first of them (flushOrphans).
func (g *goTextDecoder) orphanLine(line []byte) bool {
	var fl fileLine
	switch {
	case len(line) > 0 && (line[0] == '\t' || line[0] == ' ') && parseFileLine(line, &fl) && isFrameFile(&fl):
		if g.orphans == 0 {
			g.orphanNum, g.orphanOff = g.num, g.offset()
			if g.orphanCall {
				g.orphanNum, g.orphanOff = g.prevJunkNum, g.prevJunkOff
			}
		}
		g.orphans++
		if g.orphanCall {
			g.orphans++
		}
		g.orphanCall = false
		return true
	case hasPrefixStr(line, "created by "):
		if _, _, ok := parseCreatedBy(line); ok {
			if g.orphans == 0 {
				g.orphanNum, g.orphanOff = g.num, g.offset()
			}
			g.orphans++
			g.orphanCall = false
			return true
		}
	}
	_, _, form := parseCall(line)
	g.orphanCall = form == callGo || form == callInlined
	g.prevJunkNum, g.prevJunkOff = g.num, g.offset()
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
	g.orphanCall = false
	if g.hidden > 0 {
		msg := "a line holds " + hiddenHeaderMsg
		if g.hidden > 1 {
			msg = fmt.Sprintf("%d lines hold %s; the first", g.hidden, hiddenHeaderMsg)
		}
		g.hidden = 0
		pe := g.problemAt(g.hiddenNum, g.hiddenOff, msg, g.hiddenText)
		if g.hiddenErr == nil {
			g.hiddenErr = pe
		}
	}
	if g.orphans == 0 {
		return
	}
	msg := fmt.Sprintf("%d lines of a goroutine whose header is not in the input skipped", g.orphans)
	if g.orphanGap > 0 {
		msg += fmt.Sprintf(" (lines were left out at line %d)", g.orphanGap)
	}
	n := g.orphans
	g.orphans, g.orphanGap = 0, 0
	_ = n
	g.problemAt(g.orphanNum, g.orphanOff, msg, nil)
}

// gap handles a place where lines of the dump were left out: grep's group
// separator (`--`) or an ellipsis a person put in place of lines. The
// open routine ends there, incomplete (a function line waiting for its
// file line is kept without it), and a warning names the line; the lines
// of the goroutine that follow before its next header are counted
// (orphanLine).
func (g *goTextDecoder) gap(what string, text []byte) {
	switch g.st {
	case stFile:
		c := &g.waiting
		switch {
		case g.provisional:
			g.dropRoutine()
		case c.form == callGo || c.form == callInlined:
			g.sec.commitFrame(nil, c.callFlags())
		default:
			g.st = stFunc
			g.sec.rollback()
		}
	case stCreatedFile:
		g.sec.commitCreator(nil)
		if g.anc < 0 {
			g.r.ParentID = g.waiting.parent
		}
	}
	g.flushOrphans()
	open := g.r != nil && g.part == partNone
	g.st = stFunc
	g.endRoutine()
	g.st = stIdle
	g.preambleOpen = false
	msg := "lines left out here (" + what + ")"
	if open {
		msg += "; the goroutine before it is incomplete"
	}
	g.problem(msg, text)
	g.orphanGap, g.gapped = g.num, g.num
}

// replay feeds the junk lines held since the last dump again, now that a
// prefix is known: they may be the prefixed preamble of the dump.
func (g *goTextDecoder) replay() {
	num, off := g.num, g.offset()
	// The lines counted as orphans are read again.
	g.orphans, g.orphanCall, g.orphanGap = 0, false, 0
	g.replaying = true
	g.ring.each(func(l []byte, n int, o int64) {
		g.num, g.off = n, o
		g.feed(l)
	})
	g.ring.reset()
	g.replaying = false
	g.num, g.off = num, off
}

// preambleLine keeps a line of the dump's preamble. A line that starts a
// preamble (panic, fatal error, signal name) after routines starts a new
// dump; other preamble-like lines after routines are junk.
func (g *goTextDecoder) preambleLine(line []byte, start bool) {
	if g.r != nil && hasPrefixStr(line, "runtime: ") {
		// A diagnostic inside a goroutine's trace ("runtime: g17:
		// unexpected return pc for …", then a hex dump): not a new dump.
		g.junk(line, line)
		return
	}
	if start && g.threadSep && hasPrefixStr(line, "SIG") {
		// The next thread's block of the same crash: one dump.
		g.threadSep, g.inThreads = false, true
		g.d.ThreadBlocks = max(g.d.ThreadBlocks, 1) + 1
		return
	}
	if g.r != nil || g.nRoutines > 0 || g.announced {
		if !start {
			g.junk(line, line)
			return
		}
		if g.reversed {
			// Reversed input: the crash line comes after the goroutines
			// it explains, not before a dump of its own.
			g.endRoutine()
			g.d.Preamble = append(g.d.Preamble, string(line))
			g.st = stIdle
			return
		}
		g.endDump()
	}
	if start && g.junkGap && g.d != nil && len(g.d.Preamble) > 0 {
		// An earlier preamble with no routines, then junk: that was
		// a dump of its own (GOTRACEBACK=none, or a quoted panic).
		g.endDump()
	}
	g.ensureDump()
	g.st = stIdle
	g.preambleOpen, g.junkGap = true, false
	if len(g.d.Preamble) >= maxPreambleLines {
		if !g.longPreamble {
			g.longPreamble = true
			g.problem(fmt.Sprintf("preamble longer than %d lines; the rest is dropped", maxPreambleLines), line)
		}
		return
	}
	g.d.Preamble = append(g.d.Preamble, string(line))
}

// ensureDump makes sure a dump is receiving lines.
func (g *goTextDecoder) ensureDump() {
	if g.d == nil {
		g.d = &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	}
}

// announce queues the start of the dump, with the problems held so far.
func (g *goTextDecoder) announce() {
	g.ensureDump()
	if g.announced {
		return
	}
	g.announced, g.announcedAny = true, true
	g.emit(goEvent{kind: evStart, d: g.d})
	for _, pe := range g.held {
		g.emit(goEvent{kind: evError, err: pe})
	}
	g.held = g.held[:0]
}

// endDump closes the open routine and the dump receiving lines. A dump
// with neither routines nor preamble is not one; its problems carry over
// to the next dump.
func (g *goTextDecoder) endDump() {
	g.flushOrphans()
	g.endRoutine()
	if g.d != nil && !g.announced && (len(g.d.Preamble) > 0 || len(g.d.Races) > 0 || g.d.SystemStack != nil) {
		g.announce()
	}
	if g.announced {
		g.emit(goEvent{kind: evEnd})
		g.d = nil
	}
	g.announced = false
	g.nRoutines = 0
	g.seen.clear()
	g.race, g.inReport = nil, false
	g.preambleOpen, g.junkGap, g.longPreamble = false, false, false
	g.threadSep, g.inThreads = false, false
	g.ring.reset()
	g.st = stIdle
}

// header starts a routine from the parsed header in g.hdr.
func (g *goTextDecoder) header() {
	h := &g.hdr
	if g.seen.has(h.ID) && !g.inThreads {
		g.endDump() // a second dump of the same process
	}
	g.threadSep = false
	sg := g.state(h.State)
	g.startRoutine(h.ID, sg.state)
	g.sec.setGuess(&sg.path)
	g.seen.add(h.ID)
	r := g.r
	r.WaitMinutes, r.Locked, r.Leaked, r.Durable, r.Scan, r.Bubble = h.WaitMinutes, h.Locked, h.Leaked, h.Durable, h.Scan, h.Bubble
	r.GP, r.M, r.MP, r.HasGP = h.GP, h.M, h.MP, h.HasGP
	if h.Labels != nil {
		ls, err := parseLabels(h.Labels, g.t, g.labels)
		g.labels = ls[:0]
		if err != nil {
			g.problem("malformed labels in goroutine header", h.Labels)
		}
		r.Labels = g.t.Labels(ls)
	}
}

// stateGuess is an interned state and the path of the stack of the
// routine read last in it (see section.guess).
type stateGuess struct {
	state string
	path  []*stackNode
}

// state returns the interned state b and its guess.
func (g *goTextDecoder) state(b []byte) *stateGuess {
	c := &g.states[len(b)%len(g.states)]
	if c.state != string(b) {
		c.state, c.path = g.t.Bytes(b), c.path[:0]
	}
	return c
}

// startRoutine closes the open routine and opens a new one at this line.
func (g *goTextDecoder) startRoutine(id int64, state string) {
	g.flushOrphans()
	g.endRoutine()
	g.ensureDump()
	g.announce()
	if g.pool != nil {
		g.slot = g.pool.get()
		g.r = &g.slot.r
		g.sec.direct = true // its own stack's values go to the slot as they are read
	} else {
		g.r = new(stack.Routine)
	}
	r := g.r
	r.ID, r.Count, r.State, r.Line = id, 1, state, g.num
	g.nRoutines++
	g.st = stFunc
	g.preambleOpen = false
}

// call handles a function line of the open routine, split by parseCall.
func (g *goTextDecoder) call(name, args []byte, form callForm, line []byte) {
	if form == callInlined && g.anc >= 0 {
		// Ancestor frames always print `(...)`: their arguments are
		// unknown, the calls were not inlined.
		form = callGo
	}
	g.pend('F', name, args, form, 0, line)
	g.st = stFile
}

// pend records a function ('F') or creator ('C') line that waits for its
// file line.
func (g *goTextDecoder) pend(tag byte, name, args []byte, form callForm, parent int64, line []byte) {
	g.sec.begin(tag == 'C', name, args)
	c := &g.waiting
	c.form, c.parent, c.creator = form, parent, tag == 'C'
	c.num, c.off = g.num, g.offset()
	c.text = c.text[:0]
	if form != callGo && form != callInlined || c.creator {
		c.text = append(c.text, line...) // rare forms keep their line for errors
	}
}

// pendingLine returns the pending line as written, for errors, or nil
// when it was not kept: plain function lines are not copied (they are most
// of a dump), and a rebuilt line could quote text the input does not hold,
// so their errors name the line by number only.
func (g *goTextDecoder) pendingLine() []byte {
	return g.waiting.text
}

// callFlags are the frame flags of the pending call's form.
func (c *pendingCall) callFlags() uint8 {
	switch c.form {
	case callInlined:
		return recInlined
	case callBare, callNonGo:
		return recNative
	}
	return 0
}

// commitFrame adds the pending function line and the file line in g.fl to
// the open routine's current stack.
func (g *goTextDecoder) commitFrame() {
	c := &g.waiting
	g.st = stFunc
	if c.form == callBad {
		g.problemAt(c.num, c.off, "invalid function call line", g.pendingLine())
		g.sec.rollback()
		g.abort()
		return
	}
	if g.provisional {
		g.provisional = false
		g.announce()
		if g.headless {
			g.headless = false
			g.problemAt(g.r.Line, c.off, "goroutine header missing (the input starts inside the goroutine, or left its header out): its frames are read as goroutine 0 in an unknown state", nil)
		}
	}
	g.sec.commitFrame(&g.fl, c.callFlags())
	g.frameLine = g.num
}

// fileMissing handles a pending function line whose next line is not a
// file line.
func (g *goTextDecoder) fileMissing() {
	c := &g.waiting
	g.st = stFunc
	switch {
	case g.provisional:
		g.dropRoutine() // it was junk that looked like a frame
	case c.form == callNonGo:
		// `non-Go function at pc=0x…` stands alone.
		var pc uint64
		if k := lastIndexStr(c.text, " pc=0x"); k >= 0 {
			pc, _ = scanHex(c.text[k+len(" pc=0x"):])
		}
		g.sec.commitNative(pc)
	case c.form == callBare || c.form == callBad:
		g.sec.rollback() // a word on a line of its own: junk
	default:
		g.problemAt(c.num, c.off, "function line without a file line", g.pendingLine())
		g.sec.commitFrame(nil, c.callFlags())
		g.abort()
	}
}

// commitCreatedBy sets the pending creator with the file line in g.fl.
func (g *goTextDecoder) commitCreatedBy() {
	c, fl := &g.waiting, &g.fl
	g.st = stFunc
	g.sec.commitCreator(fl)
	if g.anc < 0 {
		g.r.ParentID = c.parent
		if fl.FP != 0 || fl.SP != 0 || fl.PC != 0 {
			v := &stack.FrameValue{}
			if g.slot != nil {
				v = &g.slot.created
			}
			*v = stack.FrameValue{FP: fl.FP, SP: fl.SP, PC: fl.PC}
			g.r.CreatedByValues = v
		}
	}
}

// createdByFileMissing keeps a creator whose file line is missing.
func (g *goTextDecoder) createdByFileMissing() {
	c := &g.waiting
	g.st = stFunc
	g.problemAt(c.num, c.off, "created by line without a file line", g.pendingLine())
	g.sec.commitCreator(nil)
	if g.anc < 0 {
		g.r.ParentID = c.parent
	}
	g.abort()
}

// abort ends the open routine after a problem, keeping what was read, and
// skips to the next routine.
func (g *goTextDecoder) abort() {
	g.endRoutine()
	g.st = stSkip
}

// closeSection interns the frames read into the routine's stack or its
// current ancestor section.
func (g *goTextDecoder) closeSection() {
	if g.r == nil {
		return
	}
	st, creator := g.sec.finish()
	var vs *stack.FrameValues
	if g.sec.hasVals {
		if g.sec.direct {
			vs = g.slot.takeValues(g.sec)
		} else {
			vs = g.values.valuesOf(g.sec.argBuf, g.sec.vals)
		}
	}
	g.sec.reset()
	if g.anc < 0 {
		g.r.Stack, g.r.CreatedBy, g.r.Values = st, creator, vs
	} else {
		a := &g.r.Ancestors[g.anc]
		a.Stack, a.CreatedBy, a.Values = st, creator, vs
	}
}

// endRoutine queues the open routine.
func (g *goTextDecoder) endRoutine() {
	if g.r == nil {
		return
	}
	if g.part != partNone {
		g.endPart()
		return
	}
	if g.provisional {
		g.dropRoutine()
		return
	}
	g.closeSection()
	g.emit(goEvent{kind: evRoutine, r: g.r, slot: g.slot})
	g.r, g.slot, g.anc = nil, nil, -1
	if g.st != stSkip {
		g.st = stIdle
	}
}

// dropRoutine forgets a header-less routine that turned out to be junk.
func (g *goTextDecoder) dropRoutine() {
	if g.slot != nil {
		g.pool.put(g.slot)
	}
	g.r, g.slot, g.anc, g.provisional, g.headless = nil, nil, -1, false, false
	g.nRoutines--
	g.sec.reset()
	g.st = stIdle
}

// finish closes everything at the end of the input and judges whether
// the last dump was cut short.
func (g *goTextDecoder) finish() {
	g.eof = true
	g.closeAll(true)
}

// regionEnd closes everything at the end of a paste region (a closing
// fence, chat text after the dump) and judges, as at the end of the
// input, whether the dump was cut short inside it; reading goes on.
func (g *goTextDecoder) regionEnd() {
	g.closeAll(false)
	g.cut, g.cutText = false, g.cutText[:0]
}

// closeAll closes the open routine and dump at the end of the input (atEOF)
// or of a paste region, and judges whether the dump was cut short.
func (g *goTextDecoder) closeAll(atEOF bool) {
	var why string
	switch g.st {
	case stFile:
		c := &g.waiting
		switch {
		case g.provisional:
			g.dropRoutine()
		case c.form == callGo || c.form == callInlined:
			g.sec.commitFrame(nil, c.callFlags())
			why = "input ends after a function line, before its file line"
		default:
			g.fileMissing()
		}
	case stCreatedFile:
		g.sec.commitCreator(nil)
		if g.anc < 0 {
			g.r.ParentID = g.waiting.parent
		}
		why = "input ends after a created by line, before its file line"
	}
	g.st = stFunc
	if r := g.r; r != nil && why == "" && g.part == partNone && g.anc < 0 {
		switch {
		case g.sec.depth == 0 && !r.Unavailable:
			why = "input ends after a goroutine header"
		case g.gapped > 0 && !g.sec.hasCreator && !endsAtRoot(g.sec.lastFunc()):
			why = fmt.Sprintf("input ends inside a goroutine, after lines were left out at line %d: its stack may go on", g.gapped)
		case atEOF && g.lr.Line().NoEOL && g.frameLine == g.lr.Line().Num && !g.sec.hasCreator && !endsAtRoot(g.sec.lastFunc()):
			why = "input ends mid-line inside a goroutine"
		}
	}
	var cause error
	if g.cut {
		why = "input ends mid-line inside a goroutine; the partial line is dropped"
	}
	if why == "" && g.inReport {
		why = "input ends inside a race report, before its closing line"
	}
	if why == "" && g.readErr != nil && atEOF {
		why, cause = "reading stopped: "+g.readErr.Error(), g.readErr
	}
	if why == "" && atEOF && g.in != nil && g.in.BytesRead() == TruncationSize {
		why = fmt.Sprintf("input is exactly %d bytes, where runtime/pprof cuts debug=2 dumps", TruncationSize)
	}
	if why != "" && !atEOF {
		why = strings.Replace(why, "input ends", "the paste ends", 1)
	}
	g.flushOrphans()
	if why != "" {
		g.ensureDump()
		if g.announced || g.r != nil || len(g.d.Preamble) > 0 || len(g.d.Races) > 0 {
			g.d.Truncated = true
			if g.r != nil || len(g.d.Races) > 0 || g.d.SystemStack != nil {
				g.announce()
			}
			var text []byte
			if g.cut {
				text = g.cutText
			}
			g.problem("dump truncated: "+why, text).Err = cause
		}
	}
	g.endDump()
}

// endsAtRoot reports whether fn, the outermost frame's function, is where
// goroutine stacks end.
func endsAtRoot(fn string) bool {
	switch fn {
	case "main.main", "runtime.main", "runtime.goexit", "runtime.mstart", "runtime.mstart0", "runtime.rt0_go":
		return true
	}
	return false
}

// isPreambleStart reports whether line opens a dump's explanation.
func isPreambleStart(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case 'p':
		return hasPrefixStr(line, "panic: ")
	case 'f':
		return hasPrefixStr(line, "fatal error: ") || hasPrefixStr(line, "fatal: ")
	case 'r':
		return hasPrefixStr(line, "runtime: ")
	case 'u':
		return hasPrefixStr(line, "unexpected fault address ") || hasPrefixStr(line, "unexpected signal ")
	case 'E':
		return hasPrefixStr(line, "Exception 0x")
	case 'S':
		// SIGQUIT: quit, SIGSEGV: segmentation violation, SIGABRT: abort
		i := 3
		if !hasPrefixStr(line, "SIG") {
			return false
		}
		for i < len(line) && (line[i] >= 'A' && line[i] <= 'Z' || line[i] >= '0' && line[i] <= '9') {
			i++
		}
		return i > 3 && i+1 < len(line) && line[i] == ':' && line[i+1] == ' '
	}
	return false
}

// isEllipsis reports whether line is only an ellipsis a person put in
// place of lines they cut out of a paste: "...", ".....", "[...]",
// "…". The runtime's own elision lines ("...additional frames
// elided...") are not.
func isEllipsis(line []byte) bool {
	t := trimBlanks(line)
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = t[1 : len(t)-1]
	}
	if string(t) == "…" {
		return true
	}
	if len(t) < 3 {
		return false
	}
	for _, c := range t {
		if c != '.' {
			return false
		}
	}
	return true
}

func isUnavailable(line []byte) bool {
	return string(line) == "goroutine running on other thread; stack unavailable"
}

func isRaceSeparator(line []byte) bool {
	if len(line) < 18 {
		return false
	}
	for _, c := range line {
		if c != '=' {
			return false
		}
	}
	return true
}

func hasPrefixStr(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

func lastIndexStr(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
