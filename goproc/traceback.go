package goproc

import (
	"strconv"
	"strings"
)

// logical is one printed frame of a traceback: what runtime.traceback2
// prints for a logical (possibly inlined) frame.
type logical struct {
	name       string // as printed: generic shapes as [...], gopanic as panic
	file       string
	line       int
	inlined    bool
	offset     uint64 // pc − entry, printed as +0x… when hasOffset
	hasOffset  bool
	args       string
	fp, sp, pc uint64 // for System (GOTRACEBACK=system) tracebacks
}

// traced is a goroutine's traceback: its frames and where the runtime
// would have left some out.
type traced struct {
	frames      []logical
	elided      bool
	elidedCount int // 0 with elided: Go 1.20's "...additional frames elided..."
	elidedAt    int
	// complete says the walk reached the top of the stack (or, Go 1.20,
	// stopped at the most frames the runtime walks): no frame was left
	// out because the stack could not be unwound further.
	complete bool
}

// srcFunc is a logical function: a function, or one inlined into it.
type srcFunc struct {
	nameOff int32
	funcID  uint8
}

// inlineFrame is one step of an inline unwinder: pc is the pc giving the
// frame's file and line (a target address), index its inline tree entry
// (-1 for the physical function).
type inlineFrame struct {
	pc    uint64
	index int32
}

// inlTreeEntry is a runtime.inlinedCall: funcID, nameOff, parentPc.
type inlTreeEntry struct {
	funcID   uint8
	nameOff  int32
	parentPc int32
}

// inlineChain returns the logical frames of f at pc, innermost first, as
// runtime.newInlineUnwinder walks them.
func (r *reader) inlineChain(f *funcInfo, pc uint64, buf []inlineFrame) ([]inlineFrame, []inlTreeEntry) {
	buf = buf[:0]
	tab := r.bin.tab
	treeOff, ok := tab.funcdataOff(f, funcdataInlTree)
	if !ok {
		return append(buf, inlineFrame{pc: pc, index: -1}), nil
	}
	table := tab.pcdataOff(f, pcdataInlTreeIndex)
	var entries []inlTreeEntry
	for i := 0; i < 1000; i++ {
		ix := r.pcvalue(f, table, pc-r.bias)
		buf = append(buf, inlineFrame{pc: pc, index: ix})
		if ix < 0 {
			break
		}
		e, ok := r.inlEntry(treeOff, ix)
		if !ok {
			buf[len(buf)-1].index = -1
			break
		}
		entries = append(entries, e)
		pc = f.entry + r.bias + uint64(int64(e.parentPc))
	}
	return buf, entries
}

// inlEntry reads entry ix of the inline tree at gofunc+treeOff.
func (r *reader) inlEntry(treeOff uint32, ix int32) (inlTreeEntry, bool) {
	n := r.bin.tab.inlSize
	b := r.bin.funcdata(uint64(treeOff)+uint64(n)*uint64(ix), n)
	if len(b) < n {
		r.badFuncdata("an inline tree")
		return inlTreeEntry{}, false
	}
	return r.bin.tab.inlinedCall(b), true
}

// fileLine returns the file and line of pc in f, as runtime.funcline1.
func (r *reader) fileLine(f *funcInfo, pc uint64) (string, int) {
	tab := r.bin.tab
	fileno := r.pcvalue(f, f.pcfile, pc-r.bias)
	line := r.pcvalue(f, f.pcln, pc-r.bias)
	if fileno == -1 || line == -1 || int(fileno) >= len(tab.filetab) {
		return "?", 0
	}
	key := uint64(f.cuOffset)<<32 | uint64(uint32(fileno))
	file, ok := r.files[key]
	if !ok {
		file = tab.file(f, fileno)
		r.files[key] = file
	}
	return file, int(line)
}

// funcName returns the function name at nameOff.
func (r *reader) funcName(nameOff int32) string {
	name, ok := r.names[nameOff]
	if !ok {
		name = r.bin.tab.name(nameOff)
		r.names[nameOff] = name
	}
	return name
}

// printName returns a function's name as the traceback prints it
// (runtime.printFuncName): runtime.gopanic as panic, generic shapes as
// [...].
func (r *reader) printName(name string) string {
	if name == "runtime.gopanic" {
		return "panic"
	}
	return funcNameForPrint(name, r.bin.minor)
}

// funcNameForPrint replaces the type arguments of a generic function's
// name with "...", as runtime.funcNamePiecesForPrint does (Go 1.27 also
// for a generic method of a generic type: both brackets).
func funcNameForPrint(name string, minor int) string {
	i := strings.IndexByte(name, '[')
	if i < 0 {
		return name
	}
	j := strings.LastIndexByte(name, ']')
	if j <= i {
		return name
	}
	interior := name[i+1 : j]
	if minor < 27 || strings.IndexByte(interior, '[') < 0 {
		return name[:i] + "[...]" + name[j+1:]
	}
	// A generic method of a generic type: "T[...].M[...]".
	depth := 1
	rbr, lbr := -1, -1
	for k, c := range interior {
		switch c {
		case '[':
			depth++
			if depth == 1 {
				lbr = k
			}
		case ']':
			depth--
			if depth == 0 {
				rbr = k
			}
		}
		if lbr >= 0 {
			break
		}
	}
	if rbr < 0 || lbr < 0 || lbr <= rbr {
		return name[:i] + "[...]" + name[j+1:]
	}
	return name[:i] + "[...]" + interior[rbr+1:lbr] + "[...]" + name[j+1:]
}

// showFrame reports whether the traceback prints a logical frame
// (runtime.showfuncinfo at GOTRACEBACK=single or all).
func (r *reader) showFrame(sf srcFunc, firstFrame bool, callee uint8) bool {
	if r.opts.System {
		return true
	}
	l := r.l
	if int(sf.funcID) == l.FuncID.Wrapper && r.elideWrapperCalling(callee) {
		return false
	}
	if r.bin.minor >= 25 && (int(sf.funcID) == l.FuncID.RunFinalizers || int(sf.funcID) == l.FuncID.RunCleanups) {
		return true
	}
	name := r.funcName(sf.nameOff)
	if name == "runtime.gopanic" && !firstFrame {
		return true
	}
	return strings.IndexByte(name, '.') >= 0 && (!strings.HasPrefix(name, "runtime.") || isExportedRuntime(name, r.bin.minor))
}

func (r *reader) elideWrapperCalling(id uint8) bool {
	l := r.l
	return !(int(id) == l.FuncID.Gopanic || int(id) == l.FuncID.Sigpanic || int(id) == l.FuncID.Panicwrap)
}

// isExportedRuntime reports whether name is an exported runtime function
// (from Go 1.23: or an exported method of an exported runtime type).
func isExportedRuntime(name string, minor int) bool {
	rest, ok := strings.CutPrefix(name, "runtime.")
	if !ok || rest == "" {
		return false
	}
	if minor < 23 {
		return 'A' <= rest[0] && rest[0] <= 'Z'
	}
	rcvr := ""
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		rcvr, rest = rest[:i], rest[i+1:]
		if len(rcvr) >= 3 && rcvr[0] == '(' && rcvr[1] == '*' && rcvr[len(rcvr)-1] == ')' {
			rcvr = rcvr[2 : len(rcvr)-1]
		}
	}
	return len(rest) > 0 && 'A' <= rest[0] && rest[0] <= 'Z' && (rcvr == "" || 'A' <= rcvr[0] && rcvr[0] <= 'Z')
}

// traceback walks a goroutine's stack from pc, sp (lr on arm64) and
// returns the frames the runtime would print for it (runtime.traceback1).
func (r *reader) traceback(stk *stackMem, pc, sp, lr uint64, trap, isSyscall bool) traced {
	u := unwinder{r: r, stk: stk}
	if r.bin.minor < 21 {
		t := r.traceback120(&u, pc, sp, lr, trap, isSyscall, false)
		if len(t.frames) == 0 {
			t = r.traceback120(&u, pc, sp, lr, trap, isSyscall, true)
		}
		t.complete = u.top || u.valid() // valid: cut at the frame limit
		return t
	}
	var t traced
	if r.traceback121(&u, &t, pc, sp, lr, trap, isSyscall, false) == 0 {
		t = traced{}
		r.traceback121(&u, &t, pc, sp, lr, trap, isSyscall, true)
	}
	// traceback121 walked u to the end of the stack.
	t.complete = u.top
	return t
}

// traceback121 is tracebackWithRuntime of Go 1.21 and later: the 50
// innermost frames, then, past 100, "...N frames elided..." and the 50
// outermost.
func (r *reader) traceback121(u *unwinder, t *traced, pc, sp, lr uint64, trap, isSyscall, showRuntime bool) int {
	emit := func(lf logical) { t.frames = append(t.frames, lf) }
	u.init(pc, sp, lr, trap, isSyscall)
	inner, outer := r.l.InnerFrames, r.l.OuterFrames
	n, lastN := r.traceback2(u, showRuntime, 0, inner, emit)
	if n < inner {
		return n
	}
	u2 := *u
	remaining, _ := r.traceback2(u, showRuntime, int(^uint(0)>>1), 0, nil)
	elide := remaining - lastN - outer
	if elide > 0 {
		t.elided, t.elidedCount, t.elidedAt = true, elide, len(t.frames)
		r.traceback2(&u2, showRuntime, lastN+elide, outer, emit)
	} else {
		r.traceback2(&u2, showRuntime, lastN, outer, emit)
	}
	return n
}

// traceback2 is runtime.traceback2: it skips the first skip logical
// frames, then emits at most max; it returns how many it skipped and
// emitted, and how many of those were in u's current physical frame.
func (r *reader) traceback2(u *unwinder, showRuntime bool, skip, max int, emit func(logical)) (n, lastN int) {
	var chain [8]inlineFrame
	for ; u.valid(); u.next() {
		lastN = 0
		f := u.frame.fn
		ufs, tree := r.inlineChain(&f, u.symPC(), chain[:0])
		for k, uf := range ufs {
			sf := srcFunc{nameOff: f.nameOff, funcID: f.funcID}
			if uf.index >= 0 {
				sf = srcFunc{nameOff: tree[k].nameOff, funcID: tree[k].funcID}
			}
			callee := u.calleeFuncID
			u.calleeFuncID = sf.funcID
			if !(showRuntime || r.showFrame(sf, n == 0, callee)) {
				continue
			}
			if skip == 0 && max == 0 {
				return n, lastN
			}
			n++
			lastN++
			if skip > 0 {
				skip--
				continue
			}
			max--
			if emit == nil {
				continue
			}
			lf := logical{name: r.printName(r.funcName(sf.nameOff)), inlined: uf.index >= 0}
			lf.file, lf.line = r.fileLine(&f, uf.pc)
			if !lf.inlined {
				lf.args = r.printArgs(&f, u.frame.argp, u.symPC(), u.stk)
				if u.frame.pc > f.entry+r.bias {
					lf.offset, lf.hasOffset = u.frame.pc-(f.entry+r.bias), true
				}
				if r.opts.System {
					lf.fp, lf.sp, lf.pc = u.frame.fp, u.frame.sp, u.frame.pc
				}
			}
			emit(lf)
		}
	}
	return n, 0
}

// traceback120 is Go 1.19 and 1.20's printing gentraceback: at most 100 physical
// frames, "...additional frames elided..." when exactly 100 logical ones
// were printed.
func (r *reader) traceback120(u *unwinder, pc, sp, lr uint64, trap, isSyscall, showRuntime bool) traced {
	var t traced
	var chain [8]inlineFrame
	max := r.l.MaxFrames
	lastFuncID := uint8(r.l.FuncID.Normal)
	u.init(pc, sp, lr, trap, isSyscall)
	for n := 0; n < max && u.valid(); n++ {
		f := u.frame.fn
		tracepc := u.symPC()
		ufs, tree := r.inlineChain(&f, tracepc, chain[:0])
		for k, uf := range ufs {
			if uf.index < 0 {
				tracepc = uf.pc
				break
			}
			e := tree[k]
			if showRuntime || r.showFrame(srcFunc{nameOff: e.nameOff, funcID: e.funcID}, len(t.frames) == 0, lastFuncID) {
				lf := logical{name: r.funcName(e.nameOff), inlined: true}
				lf.file, lf.line = r.fileLine(&f, uf.pc)
				t.frames = append(t.frames, lf)
			}
			lastFuncID = e.funcID
		}
		if showRuntime || r.showFrame(srcFunc{nameOff: f.nameOff, funcID: f.funcID}, len(t.frames) == 0, lastFuncID) {
			name := r.funcName(f.nameOff)
			if name == "runtime.gopanic" {
				name = "panic"
			}
			lf := logical{name: name, args: r.printArgs(&f, u.frame.argp, tracepc, u.stk)}
			lf.file, lf.line = r.fileLine(&f, tracepc)
			if u.frame.pc > f.entry+r.bias {
				lf.offset, lf.hasOffset = u.frame.pc-(f.entry+r.bias), true
			}
			if r.opts.System {
				lf.fp, lf.sp, lf.pc = u.frame.fp, u.frame.sp, u.frame.pc
			}
			t.frames = append(t.frames, lf)
		}
		lastFuncID = f.funcID
		u.next()
	}
	if len(t.frames) == max {
		t.elided, t.elidedAt = true, max
	}
	return t
}

// The encoding of FUNCDATA_ArgInfo (abi.TraceArgs*).
const (
	argsEndSeq         = 0xff
	argsStartAgg       = 0xfe
	argsEndAgg         = 0xfd
	argsDotdotdot      = 0xfc
	argsOffsetTooLarge = 0xfb
	argsMaxLen         = (5*3+2)*10 + 1
)

// printArgs returns a frame's arguments as runtime.printArgs prints them,
// from the argument area at argp: each word in hex, "?" after one whose
// register spill slot is not live at pc, {…} around aggregates, "..."
// where the compiler cut the list, "_" for an offset too large.
func (r *reader) printArgs(f *funcInfo, argp, pc uint64, stk *stackMem) string {
	tab := r.bin.tab
	infoOff, ok := tab.funcdataOff(f, funcdataArgInfo)
	if !ok {
		return ""
	}
	p := r.bin.funcdata(uint64(infoOff), argsMaxLen)
	if len(p) == 0 {
		return ""
	}
	var liveInfo []byte
	startOffset := uint8(0xff)
	liveIdx := int32(-1)
	if off, ok := tab.funcdataOff(f, funcdataArgLive); ok {
		if liveInfo = r.bin.funcdata(uint64(off), 1<<16); len(liveInfo) > 0 {
			startOffset = liveInfo[0]
		}
		liveIdx = r.pcvalue(f, tab.pcdataOff(f, pcdataArgLiveIndex), pc-r.bias)
	}
	isLive := func(off, slot uint8) bool {
		if len(liveInfo) == 0 || liveIdx <= 0 || off < startOffset {
			return true
		}
		i := int(liveIdx) + int(slot/8)
		if i >= len(liveInfo) {
			r.badFuncdata("argument liveness")
			return true
		}
		return liveInfo[i]&(1<<(slot%8)) != 0
	}
	out := r.argBuf[:0]
	start := true
	comma := func() {
		if !start {
			out = append(out, ", "...)
		}
	}
	slot := uint8(0)
	for pi := 0; pi < len(p); {
		o := p[pi]
		pi++
		switch o {
		case argsEndSeq:
			r.argBuf = out
			return string(out)
		case argsStartAgg:
			comma()
			out = append(out, '{')
			start = true
			continue
		case argsEndAgg:
			out = append(out, '}')
		case argsDotdotdot:
			comma()
			out = append(out, "..."...)
		case argsOffsetTooLarge:
			comma()
			out = append(out, '_')
		default:
			comma()
			if pi >= len(p) {
				break
			}
			sz := p[pi]
			pi++
			x, _ := stk.word(argp + uint64(o))
			if sz < 8 {
				shift := 64 - uint(sz)*8
				x = x << shift >> shift
			}
			out = append(out, "0x"...)
			out = strconv.AppendUint(out, x, 16)
			if !isLive(o, slot) {
				out = append(out, '?')
			}
			if o >= startOffset {
				slot++
			}
		}
		start = false
	}
	r.argBuf = out
	return string(out)
}

// badFuncdata records, once, function data that ends too soon: frames
// then lack their inlined callers or arguments, and the dump says why.
func (r *reader) badFuncdata(what string) {
	if !r.funcdataBad {
		r.funcdataBad = true
		r.warn(0, "the executable's function data ends inside "+what+": inlined frames or arguments may be missing")
	}
}
