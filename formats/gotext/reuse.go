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

// takeValues takes the routine's Values from sec, a direct section (see
// section.addSpan), without copying them: the slot takes the section's
// values and argument buffer, whose views they are, and gives it its
// previous ones. Those views stay valid while the slot is lent, since the
// buffers are written again only after the slot was reclaimed and reused.
func (s *routineSlot) takeValues(sec *section) *stack.FrameValues {
	s.args, sec.argBuf = sec.argBuf, s.args[:0]
	s.values.Frames, sec.fvals = sec.fvals, s.values.Frames[:0]
	return &s.values
}
