package formats

import (
	"encoding/binary"
	"hash/maphash"
)

// section collects the frames of one stack section of a routine (its own
// stack, or one `[originating from goroutine N]:` ancestor) and turns them
// into interned values when the section ends.
//
// Frames are not interned one by one. Their identity (function, file,
// line, offset, flags, and the creator) is appended to ident as the lines
// come, and the finished section is looked up in a small cache keyed by a
// hash of ident: a stack met before costs one hash and one comparison, not
// a Table lookup per frame. Only a miss interns each frame in the Table.
type section struct {
	ident  []byte // tag, name, file and numbers of each frame and the creator
	recs   []frameRec
	vals   []valueSpan
	argBuf []byte
	// hasVals is set when some frame has arguments or fp/sp/pc.
	hasVals bool

	elided      bool
	elidedCount int
	elidedAt    int

	creator    frameRec
	hasCreator bool

	// pend* mark where the pending call began, to roll it back.
	pendIdent, pendArgs int
	pendName            [2]int // span of the pending name in ident
	pendArgSpan         [2]int // span of the pending args in argBuf

	cache  *[stackCacheSize]stackEntry // direct-mapped by hash of ident
	seed   maphash.Seed
	frames []*Frame
}

// frameRec locates one frame's strings in ident.
type frameRec struct {
	name, file [2]int
	line       int
	offset     uint64
	flags      uint8
}

const (
	recHasOffset = 1 << iota
	recInlined
	recNative
)

// stackEntry is a cached section: its identity and what it interned to.
type stackEntry struct {
	hash    uint64
	ident   string
	stack   *Stack
	creator *Frame
}

// stackCacheSize is the number of slots of the section cache; a power of two.
const stackCacheSize = 1 << 10

func newSection() *section {
	return &section{cache: new([stackCacheSize]stackEntry), seed: maphash.MakeSeed()}
}

// begin records a function line (tag 'F') or a `created by` line (tag
// 'C') that waits for its file line.
func (s *section) begin(tag byte, name, args []byte) {
	s.pendIdent, s.pendArgs = len(s.ident), len(s.argBuf)
	s.ident = append(s.ident, tag)
	s.pendName = [2]int{len(s.ident), len(s.ident) + len(name)}
	s.ident = append(s.ident, name...)
	s.ident = append(s.ident, 0)
	s.argBuf = append(s.argBuf, args...)
	s.pendArgSpan = [2]int{s.pendArgs, len(s.argBuf)}
}

// pendingName and pendingArgs return the pending call's text.
func (s *section) pendingName() []byte { return s.ident[s.pendName[0]:s.pendName[1]] }
func (s *section) pendingArgs() []byte { return s.argBuf[s.pendArgSpan[0]:s.pendArgSpan[1]] }

// rollback forgets the pending call.
func (s *section) rollback() {
	s.ident, s.argBuf = s.ident[:s.pendIdent], s.argBuf[:s.pendArgs]
}

// location appends the file line's identity (fl nil: none) and returns the
// frame record of the pending call.
func (s *section) location(fl *fileLine, flags uint8) frameRec {
	rec := frameRec{name: s.pendName, flags: flags}
	start := len(s.ident)
	if fl != nil {
		s.ident = append(s.ident, fl.File...)
		rec.line, rec.offset = fl.Line, fl.Offset
		if fl.HasOffset {
			rec.flags |= recHasOffset
		}
	}
	rec.file = [2]int{start, len(s.ident)}
	s.ident = append(s.ident, 0, rec.flags)
	s.ident = binary.AppendUvarint(s.ident, uint64(rec.line))
	s.ident = binary.AppendUvarint(s.ident, rec.offset)
	return rec
}

// commitFrame completes the pending function line with fl (nil when the
// file line is missing).
func (s *section) commitFrame(fl *fileLine, flags uint8) {
	rec := s.location(fl, flags)
	var fp, sp, pc uint64
	if fl != nil {
		fp, sp, pc = fl.FP, fl.SP, fl.PC
	}
	s.recs = append(s.recs, rec)
	s.vals = append(s.vals, valueSpan{argStart: s.pendArgSpan[0], argEnd: s.pendArgSpan[1], fp: fp, sp: sp, pc: pc})
	if s.pendArgSpan[1] > s.pendArgSpan[0] || fp != 0 || sp != 0 || pc != 0 {
		s.hasVals = true
	}
}

// commitNative completes a pending `non-Go function at pc=0x…` line, a
// frame without a file line.
func (s *section) commitNative(pc uint64) {
	s.recs = append(s.recs, s.location(nil, recNative))
	s.vals = append(s.vals, valueSpan{argStart: s.pendArgSpan[0], argEnd: s.pendArgSpan[0], pc: pc})
	s.hasVals = s.hasVals || pc != 0
}

// commitCreator completes the pending `created by` line with fl (nil when
// the file line is missing).
func (s *section) commitCreator(fl *fileLine) {
	s.creator, s.hasCreator = s.location(fl, 0), true
}

// elide records an elision marker before the next frame.
func (s *section) elide(count int) {
	s.elided, s.elidedCount, s.elidedAt = true, count, len(s.recs)
}

// lastFunc returns the outermost frame's function so far, or nil.
func (s *section) lastFunc() []byte {
	if len(s.recs) == 0 {
		return nil
	}
	n := s.recs[len(s.recs)-1].name
	return s.ident[n[0]:n[1]]
}

// finish interns the section and resets it for the next one.
func (s *section) finish(t *Table) (st *Stack, creator *Frame, vs *FrameValues) {
	if s.elided {
		s.ident = append(s.ident, 'E')
		s.ident = binary.AppendUvarint(s.ident, uint64(s.elidedCount))
		s.ident = binary.AppendUvarint(s.ident, uint64(s.elidedAt))
	}
	h := maphash.Bytes(s.seed, s.ident)
	e := &s.cache[h&(stackCacheSize-1)]
	if e.stack != nil && e.hash == h && e.ident == string(s.ident) {
		st, creator = e.stack, e.creator
	} else {
		s.frames = s.frames[:0]
		for _, r := range s.recs {
			s.frames = append(s.frames, t.Frame(s.frame(r)))
		}
		st = t.Stack(s.frames, s.elided, s.elidedCount, s.elidedAt)
		clear(s.frames)
		if s.hasCreator {
			creator = t.Frame(s.frame(s.creator))
		}
		*e = stackEntry{hash: h, ident: string(s.ident), stack: st, creator: creator}
	}
	if s.hasVals {
		vs = t.valuesOf(s.argBuf, s.vals)
	}
	s.reset()
	return st, creator, vs
}

// frame builds the lookup key of a record; its strings point into ident
// and are copied by the Table when kept.
func (s *section) frame(r frameRec) Frame {
	return Frame{
		Func:      bstr(s.ident[r.name[0]:r.name[1]]),
		File:      bstr(s.ident[r.file[0]:r.file[1]]),
		Line:      r.line,
		Offset:    r.offset,
		HasOffset: r.flags&recHasOffset != 0,
		Inlined:   r.flags&recInlined != 0,
		Native:    r.flags&recNative != 0,
	}
}

func (s *section) reset() {
	s.ident, s.recs, s.vals, s.argBuf = s.ident[:0], s.recs[:0], s.vals[:0], s.argBuf[:0]
	s.hasVals, s.hasCreator = false, false
	s.elided, s.elidedCount, s.elidedAt = false, 0, 0
}
