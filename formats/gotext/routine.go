package gotext

import (
	"github.com/stackdump/stackdump/stack"
)

// routine is the routine being read: a goroutine, or a part of the dump
// read like one (a race report's access or creation, a crash's `runtime
// stack:`), with its frames.
type routine struct {
	r    *stack.Routine
	slot *routineSlot // r's slot when routines are reused (the pool)
	// part is what r is: a goroutine, or a part kept on the dump; partR
	// is r for parts.
	part  partKind
	partR stack.Routine
	want  routineWant
	// unconfirmed is set for a routine started at a function line
	// without a header: it is kept only once a frame completes.
	// headerMissing is set when its header is missing from the input
	// (rather than never printed).
	unconfirmed, headerMissing bool
	// ancestor is the index in r.Ancestors of the section being read, -1
	// while its own stack is.
	ancestor int
	frames   *section
	// viewsOfWindow is set when a routine's values may be views of the
	// line reader's window over a stream (see goTextDecoder.start).
	viewsOfWindow bool
	awaiting      pendingCall
	frameLine     int // the number of the last file line read into a frame
}

// pendingCall is a function or `created by` line waiting for its file
// line; its name and args wait in the section.
type pendingCall struct {
	form    callForm
	creator bool
	parent  int64 // created by … in goroutine N
	num     int
	off     int64
	text    []byte // the line, for errors, kept for the rare forms only
}

// header starts a routine from the parsed header h.
func (g *goTextDecoder) header(h *goHeader) {
	if g.dump.seen.has(h.ID) && !g.threads.joined {
		g.endDump() // a second dump of the same process
	}
	g.threads.ended = false
	sg := g.state(h.State)
	g.startRoutine(h.ID, sg.state)
	g.rt.frames.setGuess(&sg.path)
	g.dump.seen.add(h.ID)
	r := g.rt.r
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
	if !g.dump.published {
		g.publish()
	}
	rt := &g.rt
	if g.pool != nil {
		rt.slot = g.pool.get()
		rt.r = &rt.slot.r
		rt.frames.direct = true // its own stack's values go to the slot as they are read
	} else {
		rt.r = new(stack.Routine)
	}
	r := rt.r
	r.ID, r.Count, r.State, r.Line = id, 1, state, g.at.num
	g.dump.nRoutines++
	g.dump.interrupted = 0
	rt.want = wantFrame
	g.pre.open = false
}

// startHeaderless opens a routine at a function line with no header
// before it (see routine.unconfirmed); headerMissing says whether a
// warning is to say the header went missing.
func (g *goTextDecoder) startHeaderless(headerMissing bool) {
	gap := g.foreign.orphanGap
	g.startRoutine(0, "")
	g.rt.unconfirmed, g.rt.headerMissing = true, headerMissing
	g.foreign.orphanGap = gap
}

// startAncestor closes the section being read and opens the stack of
// ancestor id (`[originating from goroutine N]:`).
func (g *goTextDecoder) startAncestor(id int64) {
	rt := &g.rt
	g.closeSection()
	if rt.r.Ancestors == nil && rt.slot != nil {
		rt.r.Ancestors = rt.slot.anc[:0]
	}
	rt.r.Ancestors = append(rt.r.Ancestors, stack.Ancestor{ID: id})
	rt.ancestor = len(rt.r.Ancestors) - 1
	rt.want = wantFrame
}

// call handles a function line of the open routine, split by parseCall.
func (g *goTextDecoder) call(name, args []byte, form callForm, line []byte) {
	if form == callInlined && g.rt.ancestor >= 0 {
		// Ancestor frames always print `(...)`: their arguments are
		// unknown, the calls were not inlined.
		form = callGo
	}
	g.awaitFile(false, name, args, form, 0, line)
	g.rt.want = wantFile
}

// awaitFile records a function line (creator false) or a `created by`
// line that waits for its file line.
func (g *goTextDecoder) awaitFile(creator bool, name, args []byte, form callForm, parent int64, line []byte) {
	g.rt.frames.begin(creator, name, args)
	c := &g.rt.awaiting
	c.form, c.parent, c.creator = form, parent, creator
	c.num, c.off = g.at.num, g.offset()
	c.text = c.text[:0]
	if form != callGo && form != callInlined || c.creator {
		c.text = append(c.text, line...) // rare forms keep their line for errors
	}
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
	rt := &g.rt
	c := &rt.awaiting
	rt.want = wantFrame
	if c.form == callBad {
		// Plain function lines are not kept (they are most of a dump), and
		// a rebuilt line could quote text the input does not hold: their
		// errors name the line by number only.
		g.problemAt(c.num, c.off, "invalid function call line", c.text)
		rt.frames.rollback()
		g.abort()
		return
	}
	if rt.unconfirmed {
		rt.unconfirmed = false
		g.publishDump()
		if rt.headerMissing {
			rt.headerMissing = false
			g.problemAt(rt.r.Line, c.off, "goroutine header missing (the input starts inside the goroutine, or left its header out): its frames are read as goroutine 0 in an unknown state", nil)
		}
	}
	rt.frames.commitFrame(&g.fl, c.callFlags())
	rt.frameLine = g.at.num
}

// fileMissing handles a pending function line whose next line is not a
// file line.
func (g *goTextDecoder) fileMissing() {
	rt := &g.rt
	c := &rt.awaiting
	rt.want = wantFrame
	switch {
	case rt.unconfirmed:
		g.dropRoutine() // it was junk that looked like a frame
	case c.form == callNonGo:
		// `non-Go function at pc=0x…` stands alone.
		var pc uint64
		if k := lastIndexStr(c.text, " pc=0x"); k >= 0 {
			pc, _ = scanHex(c.text[k+len(" pc=0x"):])
		}
		rt.frames.commitNative(pc)
	case c.form == callBare || c.form == callBad:
		rt.frames.rollback() // a word on a line of its own: junk
	default:
		g.problemAt(c.num, c.off, "function line without a file line", c.text)
		rt.frames.commitFrame(nil, c.callFlags())
		if rt.part == partNone && rt.ancestor < 0 {
			g.dump.interrupted = c.num
		}
		g.abort()
	}
}

// commitCreatedBy sets the pending creator with the file line in g.fl.
func (g *goTextDecoder) commitCreatedBy() {
	rt := &g.rt
	c, fl := &rt.awaiting, &g.fl
	rt.want = wantFrame
	rt.frames.commitCreator(fl)
	if rt.ancestor < 0 {
		rt.r.ParentID = c.parent
		if fl.FP != 0 || fl.SP != 0 || fl.PC != 0 {
			v := &stack.FrameValue{}
			if rt.slot != nil {
				v = &rt.slot.created
			}
			*v = stack.FrameValue{FP: fl.FP, SP: fl.SP, PC: fl.PC}
			rt.r.CreatedByValues = v
		}
	}
}

// createdByFileMissing keeps a creator whose file line is missing.
func (g *goTextDecoder) createdByFileMissing() {
	rt := &g.rt
	c := &rt.awaiting
	rt.want = wantFrame
	g.problemAt(c.num, c.off, "created by line without a file line", c.text)
	g.keepCreatorWithoutFile()
	g.abort()
}

// keepCreatorWithoutFile keeps the pending `created by` line without
// its file line.
func (g *goTextDecoder) keepCreatorWithoutFile() {
	rt := &g.rt
	rt.frames.commitCreator(nil)
	if rt.ancestor < 0 {
		rt.r.ParentID = rt.awaiting.parent
	}
}

// abort ends the open routine after a problem, keeping what was read, and
// skips to the next routine.
func (g *goTextDecoder) abort() {
	g.endRoutine()
	g.rt.want = skipToNext
}

// closeSection interns the frames read into the routine's stack or its
// current ancestor section.
func (g *goTextDecoder) closeSection() {
	rt := &g.rt
	if rt.r == nil {
		return
	}
	sec := rt.frames
	st, creator := sec.finish()
	var vs *stack.FrameValues
	if sec.hasVals {
		if sec.direct {
			vs = rt.slot.takeValues(sec)
		} else {
			vs = g.values.valuesOf(sec.argBuf, sec.vals)
		}
	}
	sec.reset()
	if rt.ancestor < 0 {
		rt.r.Stack, rt.r.CreatedBy, rt.r.Values = st, creator, vs
	} else {
		a := &rt.r.Ancestors[rt.ancestor]
		a.Stack, a.CreatedBy, a.Values = st, creator, vs
	}
}

// endRoutine queues the open routine.
func (g *goTextDecoder) endRoutine() {
	rt := &g.rt
	if rt.r == nil {
		return
	}
	if rt.part != partNone {
		g.endPart()
		return
	}
	if rt.unconfirmed {
		g.dropRoutine()
		return
	}
	g.closeSection()
	g.queue.push(goEvent{kind: evRoutine, r: rt.r, slot: rt.slot})
	rt.r, rt.slot, rt.ancestor = nil, nil, -1
	if rt.want != skipToNext {
		rt.want = betweenRoutines
	}
}

// dropRoutine forgets a header-less routine that turned out to be junk.
func (g *goTextDecoder) dropRoutine() {
	rt := &g.rt
	if rt.slot != nil {
		g.pool.put(rt.slot)
	}
	rt.r, rt.slot, rt.ancestor, rt.unconfirmed, rt.headerMissing = nil, nil, -1, false, false
	g.dump.nRoutines--
	rt.frames.reset()
	rt.want = betweenRoutines
}
