package gotext

import "github.com/stackdump/stackdump/stack"

// routineSlot is a Routine together with the storage it keeps between uses
// when the reader reuses routines (ReadOptions.ReuseRoutines): its frame
// values, the text their Args point into, and the rare parts a routine
// would otherwise allocate.
type routineSlot struct {
	r       stack.Routine
	values  stack.FrameValues
	args    []byte // the argument text of the routine's own stack
	created stack.FrameValue
	anc     []stack.Ancestor
}

// routinePool hands out routine slots and takes back the one last yielded
// once the caller asks for the next routine. In steady state it holds two:
// the routine being read and the one the caller holds.
type routinePool struct {
	free []*routineSlot
	lent *routineSlot // yielded, valid until the next nextRoutine or nextDump
}

// get returns a slot whose routine is zeroed; its storage is kept.
func (p *routinePool) get() *routineSlot {
	var s *routineSlot
	if n := len(p.free); n > 0 {
		s, p.free = p.free[n-1], p.free[:n-1]
	} else {
		s = new(routineSlot)
	}
	if cap(s.r.Ancestors) > cap(s.anc) {
		s.anc = s.r.Ancestors[:0]
	}
	s.r = stack.Routine{}
	return s
}

// put returns a slot that is no longer in use.
func (p *routinePool) put(s *routineSlot) { p.free = append(p.free, s) }

// lend records the slot of the routine handed to the caller.
func (p *routinePool) lend(s *routineSlot) { p.lent = s }

// reclaim takes back the routine the caller held: it asked for the next.
func (p *routinePool) reclaim() {
	if p.lent != nil {
		p.put(p.lent)
		p.lent = nil
	}
}

// takeValues builds the routine's Values from the section's frames
// without allocating: the slot takes the section's argument buffer (and
// gives it its previous one), and each Args is a string view of it, or of
// the input held in memory for the frames taken there (takeHeldFrame). The
// views stay valid while the slot is lent, since the buffer is written
// again only after the slot was reclaimed and reused.
func (s *routineSlot) takeValues(sec *section) *stack.FrameValues {
	s.args, sec.argBuf = sec.argBuf, s.args[:0]
	n := len(sec.vals)
	if cap(s.values.Frames) < n {
		s.values.Frames = make([]stack.FrameValue, n, 2*n)
	}
	fv := s.values.Frames[:n]
	for i, v := range sec.vals {
		f := &fv[i]
		if v.held {
			f.Args = bstr(sec.held[v.argStart:v.argEnd])
		} else {
			f.Args = bstr(s.args[v.argStart:v.argEnd])
		}
		f.FP, f.SP, f.PC = v.fp, v.sp, v.pc
	}
	s.values.Frames = fv
	return &s.values
}
