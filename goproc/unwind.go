package goproc

import "encoding/binary"

// The pcdata tables and funcdata the traceback reads (abi.PCDATA_* and
// abi.FUNCDATA_*, the same in every release from 1.20 to 1.27).
const (
	pcdataInlTreeIndex = 2
	pcdataArgLiveIndex = 3
	funcdataInlTree    = 3
	funcdataArgInfo    = 5
	funcdataArgLive    = 6
)

// stackMem is a copy of a goroutine's stack from base, read in one piece
// with its record; the rest up to hi (a stack deeper than stackRead) is
// read in chunks as the walk reaches it. Words outside [base, hi) (none
// a walk of a sound stack reads) are read from the target.
type stackMem struct {
	base, hi uint64
	b        []byte
	more     map[uint64][]byte // chunks past b, by address
	r        *reader
}

const stackChunk = 64 << 10

func (s *stackMem) word(addr uint64) (uint64, bool) {
	if addr >= s.base && addr+8 <= s.base+uint64(len(s.b)) {
		return binary.LittleEndian.Uint64(s.b[addr-s.base:]), true
	}
	if s.r == nil {
		return 0, false
	}
	if end := s.base + uint64(len(s.b)); addr >= end && addr+8 <= s.hi {
		at := end + (addr-end)/stackChunk*stackChunk
		c, ok := s.more[at]
		if !ok {
			c = make([]byte, min(stackChunk+8, s.hi-at))
			if s.r.mem.read(at, c) != nil {
				c = nil
			}
			if s.more == nil {
				s.more = map[uint64][]byte{}
			}
			s.more[at] = c
		}
		if addr+8 <= at+uint64(len(c)) {
			return binary.LittleEndian.Uint64(c[addr-at:]), true
		}
		return 0, false
	}
	v, err := s.r.mem.word(addr)
	return v, err == nil
}

// frame is one physical stack frame, as runtime.stkframe: pc, sp and fp
// are the target's addresses.
type frame struct {
	fn   funcInfo
	pc   uint64
	sp   uint64
	fp   uint64 // the caller's sp
	lr   uint64 // the return address
	argp uint64
}

// unwinder walks a goroutine's physical frames as the runtime's unwinder
// does (runtime/traceback.go, unwinder.initAt, resolveInternal, next) in
// its printing mode: an error ends the walk. Addresses are the target's:
// the binary is looked up at pc − bias.
type unwinder struct {
	r            *reader
	stk          *stackMem
	frame        frame
	calleeFuncID uint8
	// trap says the frame's pc is not a return address (the innermost
	// frame read from a stopped thread, or a frame a signal interrupted):
	// it is not backed up into the call for symbolizing.
	trap bool
	// trapInit is trap for the innermost frame (Go 1.20's rule needs it
	// apart).
	trapInit  bool
	innermost bool
	// top says the walk reached a function that marks the top of a
	// stack (runtime.goexit, mstart, rt0_go): it ended where the
	// goroutine began, not where it could go no further.
	top bool
}

func (u *unwinder) valid() bool { return u.frame.pc != 0 }

// findFunc looks up a target pc.
func (u *unwinder) findFunc(pc uint64) funcInfo { return u.r.bin.tab.findFunc(pc - u.r.bias) }

// spdelta returns the stack delta of f at a target pc.
func (u *unwinder) spdelta(f *funcInfo, pc uint64) int32 {
	return u.r.pcvalue(f, f.pcsp, pc-u.r.bias)
}

// init positions u on the innermost frame at pc, sp (and lr on arm64).
// isSyscall says they are the goroutine's syscallpc and syscallsp.
func (u *unwinder) init(pc, sp, lr uint64, trap, isSyscall bool) {
	usesLR := u.r.bin.Arch == "arm64"
	u.frame = frame{pc: pc, sp: sp}
	if usesLR {
		u.frame.lr = lr
	}
	u.trap, u.trapInit, u.innermost, u.top = trap, trap, true, false
	u.calleeFuncID = uint8(u.r.l.FuncID.Normal)
	// A zero pc is likely a nil function call: start in the caller.
	if u.frame.pc == 0 {
		w, ok := u.stk.word(u.frame.sp)
		if !ok {
			u.frame = frame{}
			return
		}
		u.frame.pc = w
		if usesLR {
			u.frame.lr = 0
		} else {
			u.frame.sp += 8
		}
	}
	f := u.findFunc(u.frame.pc)
	if !f.valid() {
		u.frame = frame{}
		return
	}
	u.frame.fn = f
	u.resolve(true, isSyscall)
}

// resolve fills in fp, lr and argp of the current frame.
func (u *unwinder) resolve(innermost, isSyscall bool) {
	fr := &u.frame
	f := &fr.fn
	l := u.r.l
	usesLR := u.r.bin.Arch == "arm64"
	if f.pcsp == 0 {
		// No frame information: an external function.
		u.finish()
		return
	}
	flag := int(f.flag)
	if int(f.funcID) == l.FuncID.Cgocallback || isSyscall {
		flag &^= l.FuncFlag.SPWrite
	}
	if fr.fp == 0 {
		fr.fp = fr.sp + uint64(int64(u.spdelta(f, fr.pc)))
		if !usesLR {
			fr.fp += 8 // the return address the call pushed
		}
	}
	switch {
	case flag&l.FuncFlag.TopFrame != 0:
		fr.lr = 0
		u.top = true
	case flag&l.FuncFlag.SPWrite != 0 && !(u.trapInit && (innermost || !usesLR || fr.fp > fr.sp)):
		// The function writes SP in a way the tables do not say: a
		// printing traceback stops here. A walk from the registers of a
		// thread stopped on the goroutine's own stack goes on through it:
		// the function has not switched stacks yet (once it has, the
		// thread's SP is elsewhere and the walk starts from the
		// goroutine's saved registers), and the runtime's functions that
		// write SP realign it only on the system and signal stacks. The
		// innermost frame is walked as the runtime's precise unwinder
		// walks it; a caller (systemstack or asmcgocall caught in
		// gosave_systemstack_switch, or save_g on arm64, which they call
		// before the switch) has its return address on this stack: on
		// arm64 only in a frame it made, for a frameless caller's was in
		// the link register, which the call overwrote.
		fr.lr = 0
	case usesLR && innermost && u.trapInit && flag&l.FuncFlag.SPWrite != 0 && fr.fp == fr.sp && u.findFunc(fr.lr).entry == f.entry:
		// A frameless function that writes SP and whose link register
		// points into itself: it called something (mcall and morestack
		// call save_g before they switch stacks), and where it returns
		// to is neither in a register nor on the stack.
		fr.lr = 0
	case usesLR && !innermost && fr.lr == 0 && fr.fp == fr.sp:
		// A caller with no frame at its pc has its return address in no
		// place the walk can read: a function stopped in its prologue
		// calling morestack, whose return address morestack keeps in a
		// register. (Only a thread's registers start such a walk; the
		// saved ones morestack writes skip it.)
		fr.lr = 0
	default:
		if usesLR {
			if innermost && fr.sp < fr.fp || fr.lr == 0 {
				w, ok := u.stk.word(fr.sp)
				if !ok {
					fr.lr = 0
					break
				}
				fr.lr = w
			}
		} else if fr.lr == 0 {
			w, ok := u.stk.word(fr.fp - 8)
			if !ok {
				break
			}
			fr.lr = w
		}
	}
	fr.argp = fr.fp
	if usesLR {
		fr.argp += 8 // sys.MinFrameSize
	}
}

func (u *unwinder) finish() { u.frame.pc = 0 }

// isInjected reports whether a function id is one a signal handler calls
// into a goroutine (sigpanic, asyncPreempt, debugCallV2).
func (u *unwinder) isInjected(id uint8) bool {
	l := u.r.l
	return int(id) == l.FuncID.Sigpanic || int(id) == l.FuncID.AsyncPreempt || int(id) == l.FuncID.DebugCallV2
}

// next moves u to the caller's frame.
func (u *unwinder) next() {
	fr := &u.frame
	f := fr.fn
	usesLR := u.r.bin.Arch == "arm64"
	if fr.lr == 0 {
		u.finish()
		return
	}
	flr := u.findFunc(fr.lr)
	if !flr.valid() {
		// An unknown return pc ends a printing traceback.
		u.finish()
		return
	}
	if fr.pc == fr.lr && fr.sp == fr.fp {
		// No progress: the runtime would throw "traceback stuck".
		u.finish()
		return
	}
	injected := u.isInjected(f.funcID)
	if u.r.bin.minor >= 21 {
		u.trap = injected
	} else {
		// Go 1.20 backs up every pc but a sigpanic's caller's.
		u.trap = int(f.funcID) == u.r.l.FuncID.Sigpanic
	}
	u.innermost = false
	u.calleeFuncID = f.funcID
	fr.fn = flr
	fr.pc = fr.lr
	fr.lr = 0
	fr.sp = fr.fp
	fr.fp = 0
	// On link register machines, the signal handler saves LR on the
	// stack before faking a call.
	if usesLR && injected {
		x, _ := u.stk.word(fr.sp)
		fr.sp += 16 // alignUp(sys.MinFrameSize, sys.StackAlign)
		nf := u.findFunc(fr.pc)
		fr.fn = nf
		if !nf.valid() {
			fr.pc = x
		} else if u.spdelta(&nf, fr.pc) == 0 {
			fr.lr = x
		}
		if !fr.fn.valid() {
			u.finish()
			return
		}
	}
	u.resolve(false, false)
}

// symPC returns the pc to symbolize the current frame with: the call
// instruction for a return address, the pc itself for a trapped
// instruction or a function's entry.
func (u *unwinder) symPC() uint64 {
	if !u.trap && u.frame.pc > u.frame.fn.entry+u.r.bias {
		return u.frame.pc - 1
	}
	return u.frame.pc
}
