package goproc

import (
	"github.com/stackdump/stackdump/stack"
)

// maxAncestors bounds what is read of one goroutine's ancestors (the
// runtime keeps at most GODEBUG=tracebackancestors of them).
const maxAncestors = 1 << 10

// ancestors reads the goroutine's creators that the runtime keeps with
// GODEBUG=tracebackancestors=N (g.ancestors, a *[]ancestorInfo: each
// creator's id, its pcs when it made the goroutine, its own go
// statement), as runtime.printAncestorTraceback prints them.
func (r *reader) ancestors(t *stack.Table, p uint64) []stack.Ancestor {
	var hdr [24]byte
	if r.mem.read(p, hdr[:16]) != nil {
		return nil
	}
	ptr, n := leUint64(hdr[:]), leUint64(hdr[8:])
	l := &r.l.Ancestor
	if ptr == 0 || n == 0 || n > maxAncestors {
		return nil
	}
	infos := make([]byte, uint64(l.Size)*n)
	if r.mem.read(ptr, infos) != nil {
		return nil
	}
	max := r.l.InnerFrames
	if r.bin.minor < 21 {
		max = r.l.MaxFrames
	}
	out := make([]stack.Ancestor, 0, n)
	for i := uint64(0); i < n; i++ {
		b := infos[uint64(l.Size)*i:]
		pcsPtr, npcs := leUint64(b[l.Pcs:]), leUint64(b[l.Pcs+8:])
		a := stack.Ancestor{ID: int64(leUint64(b[l.Goid:]))}
		gopc := leUint64(b[l.Gopc:])
		var frames []*stack.Frame
		if npcs > 0 && npcs <= uint64(max) {
			raw := make([]byte, 8*npcs)
			if r.mem.read(pcsPtr, raw) == nil {
				for k := uint64(0); k < npcs; k++ {
					if fr, ok := r.ancestorFrame(leUint64(raw[8*k:]), k == 0); ok {
						frames = append(frames, t.Frame(fr))
					}
				}
			}
		}
		var e stack.Elision
		if int(npcs) == max {
			e = stack.Elision{Elided: true, At: len(frames)}
		}
		a.Stack = t.Stack(frames, e)
		// The creator, without "in goroutine N": the next section says.
		f := r.bin.tab.findFunc(gopc - r.bias)
		if f.valid() && a.ID != 1 && r.showFrame(srcFunc{nameOff: f.nameOff, funcID: f.funcID}, false, uint8(r.l.FuncID.Normal)) {
			a.CreatedBy = t.Frame(r.creatorFrame(&f, gopc))
		}
		out = append(out, a)
	}
	return out
}

// ancestorFrame is one frame of an ancestor's stack, as
// runtime.printAncestorTracebackFuncInfo prints it: the function inlined
// at pc if any, its file and line at pc (not backed up into a call), the
// offset; ok is false for a frame the traceback hides.
func (r *reader) ancestorFrame(pc uint64, first bool) (stack.Frame, bool) {
	f := r.bin.tab.findFunc(pc - r.bias)
	if !f.valid() || !r.showFrame(srcFunc{nameOff: f.nameOff, funcID: f.funcID}, first, uint8(r.l.FuncID.Normal)) {
		return stack.Frame{}, false
	}
	nameOff := f.nameOff
	var chain [2]inlineFrame
	if ufs, tree := r.inlineChain(&f, pc, chain[:0]); len(tree) > 0 && ufs[0].index >= 0 {
		nameOff = tree[0].nameOff
	}
	name := r.funcName(nameOff)
	if r.bin.minor >= 21 {
		name = r.printName(name)
	} else if name == "runtime.gopanic" {
		name = "panic"
	}
	fr := stack.Frame{Func: name}
	fr.File, fr.Line = r.fileLine(&f, pc)
	if entry := f.entry + r.bias; pc > entry {
		fr.Offset, fr.HasOffset = pc-entry, true
	}
	return fr, true
}
