package gotext

import (
	"bytes"
	"unsafe"

	"github.com/stackdump/stackdump/stack"
)

// section collects the frames of one stack section of a routine (its own
// stack, or one `[originating from goroutine N]:` ancestor) and turns them
// into interned values when the section ends.
//
// Frames are matched against a trie of the stacks met so far (stackTrie,
// one per Table) rather than interned one by one. Each node of the trie is a frame
// after the path of frames above it, and remembers the child taken last;
// goroutines that share a stack, or the start of one, follow the same
// path, so a function line is usually just compared with that child's
// function, and its file line with the child's file line as first read,
// byte for byte (no parse, no copy, no hash). Only where a stack takes a
// new branch is the frame interned in the Table and the branch looked up
// or added. The node a section ends at holds its interned Stack.
type section struct {
	t *stack.Table

	trie  *stackTrie
	root  *stackNode
	cur   *stackNode // the node of the frames read so far
	depth int        // frames read so far
	path  []*stackNode

	// guess is the path of the stack read last for the routine's state
	// (see goTextDecoder.header). While the frames read follow it, the
	// frame expected next is the guess's, not the child taken last: at a
	// branch, goroutines alternate between the branches, but those in one
	// state mostly take the same one.
	guess   *[]*stackNode
	onGuess bool

	// frames holds the frames of path's nodes while a stack the trie
	// does not hold yet, or an elided one, is interned (see finish).
	frames []*stack.Frame
	vals   []valueSpan
	argBuf []byte
	// direct is set for the own stack of a routine a reusing reader
	// yields (see routineSlot.takeValues): the frames' values are then
	// made as they are yielded, into fvals, their Args views of held or
	// of argBuf, and vals is not used.
	direct bool
	fvals  []stack.FrameValue
	// held is what the routine's values may be views of (see takeAt and
	// addHeld): the whole input when it is held in memory, or the
	// line reader's window over a stream, which detachArgs copies out of
	// before it moves; nil when the values are copies.
	held []byte
	// hasVals is set when some frame has arguments or fp/sp/pc.
	hasVals bool

	// elision is the elision marker met, if any.
	elision stack.Elision

	creator    *stack.Frame
	hasCreator bool

	// The pending call: a function line waiting for its file line. match
	// is the frame whose function it names when one was expected there
	// (the creator met last, or a child whose function it is: node, and
	// its siblings); otherwise its name is copied into name.
	match       *stack.Frame
	node        *stackNode
	name        []byte
	expected    bool // expectedCall found the call of the child taken last
	creatorPend bool // the pending call is a `created by` line
	// hit is set when the pending call's file line was the expected
	// frame's known line; line is a file line that was parsed instead,
	// to become a node's known line.
	hit         bool
	line        []byte
	pendArgs    int
	pendArgSpan [2]int // span of the pending args in argBuf
}

// Frame record flags: how a call line was written.
const (
	recInlined = 1 << iota
	recNative
)

func newSection(t *stack.Table, trie *stackTrie) *section {
	root := trie.root()
	return &section{t: t, trie: trie, root: root, cur: root}
}

// begin records a function line (creator false) or a `created by` line
// (creator true) that waits for its file line.
func (s *section) begin(creator bool, name, args []byte) {
	s.match, s.node, s.hit, s.line = nil, nil, false, nil
	if creator {
		if c := s.cur.creator; c != nil && c.Func == bstr(name) {
			s.match = c
		}
	} else {
		n := s.next()
		if !s.expected && n != nil && n.fn != bstr(name) {
			n = s.cur.children[bstr(name)] // nil map: nil
			if l := s.cur.last; s.cur.children == nil && l != nil && l.fn == bstr(name) {
				n = l // off the guess, onto the only child
			}
		}
		if n != nil {
			s.match, s.node = n.frame, n
		}
	}
	if s.match == nil {
		s.name = append(s.name[:0], name...)
	}
	s.expected, s.creatorPend = false, creator
	s.pendArgs = len(s.argBuf)
	s.argBuf = append(s.argBuf, args...)
	s.pendArgSpan = [2]int{s.pendArgs, len(s.argBuf)}
}

// setGuess makes *path the guess for this section's frames; the section
// stores its own path there when it finishes.
func (s *section) setGuess(path *[]*stackNode) {
	s.guess, s.onGuess = path, len(*path) > 0
}

// next returns the node expected next: the guess's while the frames
// follow it, else the child taken last; nil when there is none.
func (s *section) next() *stackNode {
	if s.onGuess && s.depth < len(*s.guess) {
		return (*s.guess)[s.depth]
	}
	return s.cur.last
}

// after returns the node next would return once n is pushed.
func (s *section) after(n *stackNode) *stackNode {
	if s.onGuess && s.depth+1 < len(*s.guess) && (*s.guess)[s.depth] == n {
		return (*s.guess)[s.depth+1]
	}
	return n.last
}

// expectsPlain reports whether the frame expected next is plain.
func (s *section) expectsPlain() bool {
	n := s.next()
	return n != nil && n.plain
}

// expectedCall splits line as parseCall does when it calls the function
// of the frame expected next (the child taken last), and reports callNone
// otherwise. It saves parseCall's search for the '(' and its check of the
// name: a frame in the trie was read from a valid function line, except
// the native ones (`non-Go function`, cgo symbols), which are left to
// parseCall.
func (s *section) expectedCall(line []byte) (name, args []byte, form callForm) {
	n := s.next()
	if n == nil || n.native {
		return nil, nil, callNone
	}
	fn := n.fn
	k := len(fn)
	if len(line) < k+2 || line[len(line)-1] != ')' || line[k] != '(' || string(line[:k]) != fn {
		return nil, nil, callNone
	}
	args = line[k+1 : len(line)-1]
	if bytes.IndexByte(args, '(') >= 0 {
		return nil, nil, callNone // parseCall splits at the last '('
	}
	s.expected = true // begin need not compare the name again
	if string(args) == "..." {
		return line[:k], nil, callInlined
	}
	return line[:k], args, callGo
}

// takeFrame adds n, the frame expected next, read with args and at its
// known line (see goTextDecoder.wholeFrame): what begin and commitFrame do
// for it.
func (s *section) takeFrame(n *stackNode, args []byte) {
	start := len(s.argBuf)
	s.argBuf = append(s.argBuf, args...)
	s.push(n)
	s.addValue(start, len(s.argBuf), 0, 0, 0)
	s.hasVals = s.hasVals || len(args) > 0
}

// takeAt takes n, the frame expected next, whose arguments are
// win[argStart:argEnd] (none when n is inlined): as views of win when held
// is set (addHeld), else copied (takeFrame). Its file line's known
// text ends at win[locEnd]; fp=, sp= and pc= after it are taken too, and
// reported.
func (s *section) takeAt(n *stackNode, win []byte, argStart, argEnd, locEnd int, held bool) (vals bool) {
	if win[locEnd] == ' ' { // fp=, sp= and pc= (stackNode.fileEnd)
		s.takeWithValues(n, win, argStart, argEnd, locEnd, held)
		return true
	}
	if n.inlined {
		argEnd = argStart // `f(...)`: no arguments
	}
	if held {
		s.push(n)
		if !s.addHeld(argStart, argEnd) {
			s.addSpan(argStart, argEnd, 0, 0, 0, true)
		}
	} else {
		s.takeFrame(n, win[argStart:argEnd])
	}
	s.hasVals = s.hasVals || argEnd > argStart
	return false
}

// takeWithValues is takeAt for a file line with fp=, sp= and pc=.
func (s *section) takeWithValues(n *stackNode, win []byte, argStart, argEnd, locEnd int, held bool) {
	if n.inlined {
		argEnd = argStart // `f(...)`: no arguments
	}
	fp, sp, pc, _ := frameValues(win[locEnd:])
	if !held {
		start := len(s.argBuf)
		s.argBuf = append(s.argBuf, win[argStart:argEnd]...)
		argStart, argEnd = start, len(s.argBuf)
	}
	s.push(n)
	s.addSpan(argStart, argEnd, fp, sp, pc, held)
	s.hasVals = s.hasVals || argEnd > argStart || fp != 0 || sp != 0 || pc != 0
}

// detachArgs copies the arguments that are views of held into the argument
// buffer, for held to be written over. Only a direct section has such
// views (addSpan).
func (s *section) detachArgs() {
	for i := range s.fvals {
		if f := &s.fvals[i]; s.holds(f.Args) {
			start := len(s.argBuf)
			s.argBuf = append(s.argBuf, f.Args...)
			f.Args = bstr(s.argBuf[start:])
		}
	}
}

// holds reports whether a is a view of held. The argument buffer, which
// the other Args are views of, is never part of held.
func (s *section) holds(a string) bool {
	if len(a) == 0 || len(s.held) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(a)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.held)))
	return p >= base && p < base+uintptr(len(s.held))
}

// rollback forgets the pending call.
func (s *section) rollback() {
	if len(s.argBuf) == s.pendArgSpan[1] {
		// The pending arguments are the buffer's tail; when detachArgs has
		// copied the routine's arguments after them, they stay.
		s.argBuf = s.argBuf[:s.pendArgs]
	}
	s.match, s.node, s.hit, s.line = nil, nil, false, nil
}

// expectedFile reports whether line is the known file line of the frame
// (or creator) the pending call is expected to be (expectedLine), byte
// for byte: it needs no parsing then. fl is zeroed (the known line has
// no fp, sp or pc) and the commit that follows takes that frame.
func (s *section) expectedFile(line []byte, flags uint8, fl *fileLine) bool {
	if loc := s.expectedLine(flags); loc != "" && loc == bstr(line) {
		s.known(fl)
		return true
	}
	return false
}

// parsedFile records line, the pending call's file line, parsed: it is
// to become a node's known line.
func (s *section) parsedFile(line []byte) { s.line = line }

// expectedLine returns the known file line of the frame (or creator) the
// pending call is expected to be, "" when there is none.
func (s *section) expectedLine(flags uint8) string {
	switch {
	case s.creatorPend:
		if s.match != nil && s.match == s.cur.creator {
			return s.cur.creatorLoc
		}
	case s.node != nil && s.node.inlined == (flags&recInlined != 0) && s.node.native == (flags&recNative != 0):
		return s.node.loc
	}
	return ""
}

// known records that the pending call's file line was its expectedLine.
func (s *section) known(fl *fileLine) {
	*fl = fileLine{}
	s.hit = true
}

// knownLine returns line as a node's known line: the file line as it is
// written without fp=, sp= and pc= (the same text again is the same
// location). A line that carries them as GOTRACEBACK=system writes them
// gives the text before them; other values, or no line (the file line
// was missing), give nil. The bytes are the input's: a node keeps a copy.
func (s *section) knownLine(fl *fileLine) []byte {
	if s.line == nil || fl == nil {
		return nil
	}
	if fl.FP == 0 && fl.SP == 0 && fl.PC == 0 {
		return s.line
	}
	if i := bytes.LastIndex(s.line, []byte(" fp=")); i > 0 {
		if fp, sp, pc, n := frameValues(s.line[i:]); n > 0 && i+n == len(s.line) && fp == fl.FP && sp == fl.SP && pc == fl.PC {
			return s.line[:i]
		}
	}
	return nil
}

// location returns the interned frame of the pending call at fl (nil:
// none): the expected frame when it matches, else the Table's.
func (s *section) location(fl *fileLine, flags uint8) *stack.Frame {
	if m := s.match; m != nil && sameLocation(m, fl, flags) {
		return m
	}
	return s.intern(fl, flags)
}

// intern returns the Table's frame of the pending call at fl.
func (s *section) intern(fl *fileLine, flags uint8) *stack.Frame {
	f := stack.Frame{
		Inlined: flags&recInlined != 0,
		Native:  flags&recNative != 0,
	}
	if s.match != nil {
		f.Func = s.match.Func
	} else {
		f.Func = bstr(s.name) // the Table copies what it keeps
	}
	if fl != nil {
		f.File, f.Line, f.Offset, f.HasOffset = bstr(fl.File), fl.Line, fl.Offset, fl.HasOffset
	}
	return s.t.Frame(f)
}

// sameLocation reports whether f, whose function is the pending call's,
// is at fl with flags.
func sameLocation(f *stack.Frame, fl *fileLine, flags uint8) bool {
	if f.Inlined != (flags&recInlined != 0) || f.Native != (flags&recNative != 0) {
		return false
	}
	if fl == nil {
		return f.File == "" && f.Line == 0 && f.Offset == 0 && !f.HasOffset
	}
	return f.Line == fl.Line && f.Offset == fl.Offset && f.HasOffset == fl.HasOffset && f.File == bstr(fl.File)
}

// child returns the child of the current node for the pending call at
// fl, adding it to the trie when it is new.
func (s *section) child(fl *fileLine, flags uint8) *stackNode {
	if n := s.node; n != nil && sameLocation(n.frame, fl, flags) {
		return n
	}
	p := s.cur
	if s.node != nil && p.children != nil {
		// Another call site of the same function.
		for n := p.children[s.node.fn]; n != nil; n = n.sibling {
			if sameLocation(n.frame, fl, flags) {
				return n
			}
		}
	}
	return p.add(s.intern(fl, flags), s.trie)
}

// push moves to node n, a child of the current node.
func (s *section) push(n *stackNode) {
	if s.onGuess && (s.depth >= len(*s.guess) || (*s.guess)[s.depth] != n) {
		s.onGuess = false
	}
	s.cur.last, s.cur = n, n
	s.path = append(s.path, n)
	s.depth++
}

// commitFrame completes the pending function line with fl (nil when the
// file line is missing).
func (s *section) commitFrame(fl *fileLine, flags uint8) {
	if s.hit {
		s.push(s.node)
	} else {
		n := s.child(fl, flags)
		if n.loc == "" {
			n.setLoc(s.trie.str(s.knownLine(fl)), s.trie) // once a node: the trie's text
		}
		s.push(n)
	}
	var fp, sp, pc uint64
	if fl != nil {
		fp, sp, pc = fl.FP, fl.SP, fl.PC
	}
	s.addValue(s.pendArgSpan[0], s.pendArgSpan[1], fp, sp, pc)
	if s.pendArgSpan[1] > s.pendArgSpan[0] || fp != 0 || sp != 0 || pc != 0 {
		s.hasVals = true
	}
	s.match, s.node, s.hit, s.line = nil, nil, false, nil
}

// addValue appends a frame's values, setting the new element's fields
// one by one (an appended literal is built on the stack and copied).
func (s *section) addValue(argStart, argEnd int, fp, sp, pc uint64) {
	s.addSpan(argStart, argEnd, fp, sp, pc, false)
}

// addSpan is addValue for arguments of held (held set) or of the
// argument buffer. A direct section makes the frame's FrameValue at once,
// its Args a view: of held, until detachArgs copies it, or of the argument
// buffer, whose bytes stay as they are once appended (a buffer that grows
// leaves the views of the old one valid). Held arguments reach only a
// direct section (wholeFrame takes views for a reusing reader's own
// stack); any other copies them.
func (s *section) addSpan(argStart, argEnd int, fp, sp, pc uint64, held bool) {
	if s.direct {
		args := ""
		if held {
			args = bstr(s.held[argStart:argEnd])
		} else if argEnd > argStart {
			args = bstr(s.argBuf[argStart:argEnd])
		}
		s.fvals = append(s.fvals, stack.FrameValue{Args: args, FP: fp, SP: sp, PC: pc})
		return
	}
	if held {
		start := len(s.argBuf)
		s.argBuf = append(s.argBuf, s.held[argStart:argEnd]...)
		argStart, argEnd = start, len(s.argBuf)
	}
	if len(s.vals) == cap(s.vals) {
		s.vals = append(s.vals, valueSpan{})[:len(s.vals)]
	}
	s.vals = s.vals[:len(s.vals)+1]
	v := &s.vals[len(s.vals)-1]
	v.argStart, v.argEnd, v.fp, v.sp, v.pc = argStart, argEnd, fp, sp, pc
}

// addHeld is addSpan for a frame without fp, sp or pc whose arguments
// are held[argStart:argEnd], written to be inlined where most frames are
// taken (wholeFrame, takeAt); it reports false, having done nothing, when
// the section is not direct or its values need room: addSpan then.
func (s *section) addHeld(argStart, argEnd int) bool {
	n := len(s.fvals)
	if !s.direct || n == cap(s.fvals) {
		return false
	}
	s.fvals = s.fvals[:n+1]
	s.fvals[n] = stack.FrameValue{Args: bstr(s.held[argStart:argEnd])}
	return true
}

// commitNative completes a pending `non-Go function at pc=0x…` line, a
// frame without a file line.
func (s *section) commitNative(pc uint64) {
	s.push(s.child(nil, recNative))
	s.addValue(s.pendArgSpan[0], s.pendArgSpan[0], 0, 0, pc)
	s.hasVals = s.hasVals || pc != 0
	s.match, s.node, s.hit, s.line = nil, nil, false, nil
}

// commitCreator completes the pending `created by` line with fl (nil when
// the file line is missing).
func (s *section) commitCreator(fl *fileLine) {
	if s.hit {
		s.creator = s.match
	} else {
		s.creator = s.location(fl, 0)
		if s.cur.creator != s.creator || s.cur.creatorLoc == "" {
			// Not the trie's text: a node's creator may change at every
			// routine.
			s.cur.creator, s.cur.creatorLoc = s.creator, string(s.knownLine(fl))
		}
	}
	s.hasCreator = true
	s.match, s.node, s.hit, s.line = nil, nil, false, nil
}

// elide records an elision marker before the next frame.
func (s *section) elide(count int) {
	s.elision = stack.Elision{Elided: true, Count: count, At: s.depth}
}

// lastFunc returns the outermost frame's function so far, or "".
func (s *section) lastFunc() string {
	if s.depth == 0 {
		return ""
	}
	return s.cur.frame.Func
}

// finish returns the section's interned stack and creator. Its values are
// still there to take (hasVals, argBuf, vals); reset readies it for the
// next section.
func (s *section) finish() (st *stack.Stack, creator *stack.Frame) {
	path := s.path // the frames read, whatever the swap below does
	if s.guess != nil && (!s.onGuess || len(*s.guess) != len(s.path)) {
		// This stack is the state's next guess: swap, not copy.
		*s.guess, s.path = s.path, (*s.guess)[:0]
	}
	if s.hasCreator {
		creator = s.creator
	}
	if e := s.elision; e.Elided {
		// The same frames elided at the same place are the same stack:
		// kept on the node, which spares building and hashing a key of
		// 100 frames or more for each goroutine on it.
		if st := s.cur.elided; st != nil && st.ElidedCount == e.Count && st.ElidedAt == e.At {
			return st, creator
		}
		s.cur.elided = s.t.Stack(s.framesOf(path), e)
		return s.cur.elided, creator
	}
	if s.cur.stack == nil {
		s.cur.stack = s.t.Stack(s.framesOf(path), stack.Elision{})
	}
	return s.cur.stack, creator
}

// framesOf returns the frames of path's nodes, in s.frames.
func (s *section) framesOf(path []*stackNode) []*stack.Frame {
	s.frames = s.frames[:0]
	for _, n := range path {
		s.frames = append(s.frames, n.frame)
	}
	return s.frames
}

func (s *section) reset() {
	s.path = s.path[:0]
	s.guess, s.onGuess = nil, false
	s.frames, s.vals, s.argBuf, s.fvals = s.frames[:0], s.vals[:0], s.argBuf[:0], s.fvals[:0]
	s.direct = false
	s.cur, s.depth = s.root, 0
	s.hasVals, s.hasCreator, s.creator, s.match, s.node, s.hit, s.line = false, false, nil, nil, nil, false, nil
	s.elision = stack.Elision{}
}
