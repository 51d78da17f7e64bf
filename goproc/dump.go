package goproc

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// finish makes g's routine as soon as g is read, and lets go of its
// stack: it walks the stack, leaves out what runtime.tracebackothers
// leaves out (unless Options.System, the runtime's own goroutines) and
// interns the frames, so that memory follows the distinct stacks, not
// the goroutines.
func (r *reader) finish(g *gState) {
	var tr traced
	if g.walk {
		tr = r.traceback(&g.stk, g.pc, g.sp, g.lr, g.trap, g.isSyscall)
		g.stk = stackMem{}
		if g.running && !tr.complete {
			// Caught by the stop where its stack cannot be unwound to
			// its start (a stack switch the tables do not describe):
			// written without its stack rather than with a short one.
			r.notWalked(g, "its stack cannot be walked from "+r.where(g.pc)+" to its start")
			tr = traced{}
		}
	}
	g.finished = true
	if !r.opts.System && r.isSystem(g, &tr) {
		return
	}
	t := r.t
	rt := r.routine(t, g)
	frames, values := r.frames[:0], r.values[:0]
	hasValues := false
	for _, lf := range tr.frames {
		frames = append(frames, t.Frame(stack.Frame{Func: lf.name, File: lf.file, Line: lf.line, Offset: lf.offset, HasOffset: lf.hasOffset, Inlined: lf.inlined}))
		values = append(values, stack.FrameValue{Args: lf.args, FP: lf.fp, SP: lf.sp, PC: lf.pc})
		hasValues = hasValues || lf.args != "" || lf.pc != 0
	}
	rt.Stack = t.Stack(frames, stack.Elision{Elided: tr.elided, Count: tr.elidedCount, At: tr.elidedAt})
	if hasValues {
		rt.Values = t.Values(values)
	}
	r.frames, r.values = frames, values
	g.rt = rt
}

// dump makes the stack.Dump of what was read, in the runtime's order,
// leaving out what runtime.tracebackothers leaves out: dead goroutines
// and, unless Options.System, the runtime's own.
func (r *reader) dump() *stack.Dump {
	d := &stack.Dump{Source: stack.Source{
		Kind:       stack.KindGoTraceback,
		Runtime:    r.bin.GoVersion(),
		Target:     r.opts.Target,
		CapturedAt: time.Now(),
		Capture:    &stack.Capture{Mode: r.mode},
	}}
	if r.mode == ModeStopped {
		d.Source.Capture.Pause, d.Source.Capture.Pauses = r.stats.Stall, 1
	}
	if r.now == 0 {
		d.Source.Capture.Missing = append(d.Source.Capture.Missing, "wait_minutes")
	}
	var gone []int64
	for _, g := range r.gs {
		if g.gone {
			gone = append(gone, int64(g.rec.goid))
			continue
		}
		if !g.finished {
			r.finish(g)
		}
		if g.rt == nil {
			continue
		}
		d.Routines = append(d.Routines, g.rt)
		d.Total++
	}
	r.stats.Goroutines = len(d.Routines)
	d.Source.Capture.Goroutines = len(d.Routines)
	if len(r.kept) > 0 {
		r.warn(0, fmt.Sprintf("%s kept moving each of the %d times %s read: written without %s: %s", words.Count(len(r.kept), "goroutine"), max(r.opts.Retries, 0)+1, were(len(r.kept)), pronoun(len(r.kept)), ids(r.kept)))
	}
	if len(gone) > 0 && r.mode == ModeStopped {
		r.warn(0, fmt.Sprintf("%s exited before %s could be read: %s", words.Count(len(gone), "goroutine"), pronoun(len(gone)), ids(gone)))
	}
	d.Warnings = r.warnings
	return d
}

func were(n int) string {
	if n == 1 {
		return "it was"
	}
	return "they were"
}

func pronoun(n int) string {
	if n == 1 {
		return "its stack"
	}
	return "their stacks"
}

func ids(list []int64) string {
	sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
	return string(words.AppendIDList(nil, list, 0, 20))
}

// warn records a problem as a warning of the dump.
func (r *reader) warn(goid uint64, msg string) {
	r.warnings = append(r.warnings, &stack.ParseError{Msg: msg, Offset: int64(goid)})
}

// routine makes g's routine, all but its stack: the header as
// runtime.goroutineheader prints it, labels, creator.
func (r *reader) routine(t *stack.Table, g *gState) *stack.Routine {
	l := r.l
	rec := &g.rec
	rt := &stack.Routine{ID: int64(rec.goid), Count: 1}
	status := r.status(rec)
	rt.Scan = int(rec.status)&l.Status.Scan != 0
	state := "???"
	if status >= 0 && status < len(l.StatusNames) && l.StatusNames[status] != "" {
		state = l.StatusNames[status]
	}
	waiting := status == l.Status.Waiting
	leaked := l.Status.Leaked >= 0 && status == l.Status.Leaked
	if (waiting || leaked) && rec.waitReason != 0 {
		if int(rec.waitReason) < len(l.WaitReasons) {
			state = l.WaitReasons[rec.waitReason]
		} else {
			state = "unknown wait reason"
		}
	}
	rt.State = t.String(state)
	rt.Leaked = leaked
	if (waiting || status == l.Status.Syscall) && rec.waitSince != 0 && r.now > 0 {
		if m := (r.now - rec.waitSince) / 60e9; m >= 1 {
			rt.WaitMinutes = int(m)
		}
	}
	rt.Locked = rec.lockedM != 0
	if rec.bubble != 0 && l.BubbleID >= 0 {
		if id, err := r.mem.word(rec.bubble + uint64(l.BubbleID)); err == nil {
			rt.Bubble = int64(id)
		}
		idle := int(rec.waitReason) < len(l.IdleInSynctest) && l.IdleInSynctest[rec.waitReason]
		if idle && (r.bin.minor < 26 || waiting) && !strings.HasSuffix(state, "(durable)") {
			rt.Durable = true
		}
	}
	if r.opts.System && r.bin.minor >= 22 {
		rt.HasGP, rt.GP, rt.M = true, rec.addr, -1
		if rec.m != 0 {
			m := g.m
			if m.addr == 0 {
				m = r.readM(rec.m)
			}
			rt.M, rt.MP = m.id, rec.m
		}
	}
	if rec.labels != 0 {
		rt.Labels = t.Labels(r.labels(rec.labels))
	}
	rt.Unavailable = g.unavailable && g.running
	rt.Stale = g.moved
	r.createdBy(t, rt, rec)
	if rec.ancestors != 0 {
		rt.Ancestors = r.ancestors(t, rec.ancestors)
	}
	return rt
}

// createdBy fills the routine's creator as runtime.printcreatedby prints
// it: the function holding gopc (not the one inlined there), its file and
// line at the go statement, the parent goroutine (Go 1.21+); none for
// goroutine 1 or a creator the traceback hides.
func (r *reader) createdBy(t *stack.Table, rt *stack.Routine, rec *gRecord) {
	pc := rec.goPC
	f := r.bin.tab.findFunc(pc - r.bias)
	if !f.valid() || rec.goid == 1 || !r.showFrame(srcFunc{nameOff: f.nameOff, funcID: f.funcID}, false, uint8(r.l.FuncID.Normal)) {
		return
	}
	if r.bin.minor >= 21 {
		rt.ParentID = int64(rec.parentGoid)
	}
	fr := r.creatorFrame(&f, pc)
	rt.CreatedBy = t.Frame(fr)
}

// creatorFrame is the frame of a go statement at pc in f, as
// runtime.printcreatedby1 prints it.
func (r *reader) creatorFrame(f *funcInfo, pc uint64) stack.Frame {
	name := r.funcName(f.nameOff)
	if r.bin.minor >= 21 {
		name = r.printName(name)
	}
	tracepc := pc
	entry := f.entry + r.bias
	if pc > entry {
		tracepc -= r.bin.quantum
	}
	fr := stack.Frame{Func: name}
	fr.File, fr.Line = r.fileLine(f, tracepc)
	if pc > entry {
		fr.Offset, fr.HasOffset = pc-entry, true
	}
	return fr
}

// isSystem reports whether runtime.isSystemGoroutine would leave g out of
// a traceback: a goroutine started at a runtime function other than
// runtime.main (and coroutine starts, Go 1.22+), the finalizer goroutine
// unless it runs a finalizer (seen here as a frame of its stack outside
// the runtime: the runtime's flag for it is not read), cleanup goroutines
// (Go 1.25+) unless they run a cleanup.
func (r *reader) isSystem(g *gState, tr *traced) bool {
	l := r.l
	f := r.bin.tab.findFunc(g.rec.startPC - r.bias)
	if !f.valid() {
		return false
	}
	id := int(f.funcID)
	switch {
	case id == l.FuncID.RuntimeMain || id == l.FuncID.HandleAsync || l.FuncID.Corostart >= 0 && id == l.FuncID.Corostart:
		return false
	case id == l.FuncID.RunFinalizers:
		for _, lf := range tr.frames {
			if !strings.HasPrefix(lf.name, "runtime.") && lf.name != "panic" {
				return false
			}
		}
		return true
	case l.FuncID.RunCleanups >= 0 && id == l.FuncID.RunCleanups:
		return !g.rec.runningCleanups
	}
	return strings.HasPrefix(r.funcName(f.nameOff), "runtime.")
}

// where names a target pc as function+offset.
func (r *reader) where(pc uint64) string {
	f := r.bin.tab.findFunc(pc - r.bias)
	if !f.valid() {
		return fmt.Sprintf("%#x", pc)
	}
	return fmt.Sprintf("%s+%#x", r.funcName(f.nameOff), pc-(f.entry+r.bias))
}
