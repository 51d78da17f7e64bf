package rtlayout

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// FromELF reads the layout of the runtime linked into f from its DWARF:
// struct offsets, constants, and the runtime's tables of names read from
// its data. toolchain is the Go version that built f ("go1.22.12").
func FromELF(f *elf.File, toolchain string) (*Layout, error) {
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("rtlayout: no DWARF: %w", err)
	}
	arch, err := archOf(f)
	if err != nil {
		return nil, err
	}
	minor, ok := Minor(toolchain)
	if !ok {
		return nil, fmt.Errorf("rtlayout: %q is not a Go release", toolchain)
	}
	x := &extractor{f: f, d: d, structs: map[string]dwarf.Offset{}, consts: map[string]int64{}, vars: map[string]dwarfVar{}}
	if err := x.index(); err != nil {
		return nil, err
	}
	l := &Layout{Version: fmt.Sprintf("go1.%d", minor), Toolchain: toolchain, Arch: arch}
	l.G = G{
		Size:            x.size("runtime.g"),
		StackLo:         x.off("runtime.g", "stack.lo"),
		StackHi:         x.off("runtime.g", "stack.hi"),
		SchedSP:         x.off("runtime.g", "sched.sp"),
		SchedPC:         x.off("runtime.g", "sched.pc"),
		SchedLR:         x.off("runtime.g", "sched.lr"),
		SchedBP:         x.off("runtime.g", "sched.bp"),
		SyscallSP:       x.off("runtime.g", "syscallsp"),
		SyscallPC:       x.off("runtime.g", "syscallpc"),
		SyscallBP:       x.opt("runtime.g", "syscallbp"),
		StkTopSP:        x.off("runtime.g", "stktopsp"),
		Status:          x.off("runtime.g", "atomicstatus"),
		Goid:            x.off("runtime.g", "goid"),
		WaitSince:       x.off("runtime.g", "waitsince"),
		WaitReason:      x.off("runtime.g", "waitreason"),
		TrackingSeq:     x.off("runtime.g", "trackingSeq"),
		M:               x.off("runtime.g", "m"),
		LockedM:         x.off("runtime.g", "lockedm"),
		ParentGoid:      x.opt("runtime.g", "parentGoid"),
		GoPC:            x.off("runtime.g", "gopc"),
		StartPC:         x.off("runtime.g", "startpc"),
		Labels:          x.off("runtime.g", "labels"),
		RunningCleanups: x.opt("runtime.g", "runningCleanups"),
		Bubble:          x.opt("runtime.g", "bubble"),
		Ancestors:       x.off("runtime.g", "ancestors"),
	}
	l.M = M{
		Size:   x.size("runtime.m"),
		ProcID: x.off("runtime.m", "procid"),
		ID:     x.off("runtime.m", "id"),
		CurG:   x.off("runtime.m", "curg"),
		VdsoSP: x.off("runtime.m", "vdsoSP"),
		VdsoPC: x.off("runtime.m", "vdsoPC"),
	}
	l.Module = Module{
		Size:       x.size("runtime.moduledata"),
		PcHeader:   x.off("runtime.moduledata", "pcHeader"),
		Ftab:       x.off("runtime.moduledata", "ftab"),
		MinPC:      x.off("runtime.moduledata", "minpc"),
		MaxPC:      x.off("runtime.moduledata", "maxpc"),
		Text:       x.off("runtime.moduledata", "text"),
		Etext:      x.off("runtime.moduledata", "etext"),
		Noptrdata:  x.off("runtime.moduledata", "noptrdata"),
		Enoptrdata: x.off("runtime.moduledata", "enoptrdata"),
		Data:       x.off("runtime.moduledata", "data"),
		Edata:      x.off("runtime.moduledata", "edata"),
		Bss:        x.off("runtime.moduledata", "bss"),
		Ebss:       x.off("runtime.moduledata", "ebss"),
		Noptrbss:   x.off("runtime.moduledata", "noptrbss"),
		Enoptrbss:  x.off("runtime.moduledata", "enoptrbss"),
		Gofunc:     x.off("runtime.moduledata", "gofunc"),
	}
	l.Hmap = Hmap{Count: -1, B: -1, Buckets: -1, OldBuckets: -1}
	if minor < 24 {
		l.Hmap = Hmap{
			Count:      x.off("runtime.hmap", "count"),
			B:          x.off("runtime.hmap", "B"),
			Buckets:    x.off("runtime.hmap", "buckets"),
			OldBuckets: x.off("runtime.hmap", "oldbuckets"),
		}
	}
	l.Ancestor = Ancestor{
		Size: x.size("runtime.ancestorInfo"),
		Pcs:  x.off("runtime.ancestorInfo", "pcs"),
		Goid: x.off("runtime.ancestorInfo", "goid"),
		Gopc: x.off("runtime.ancestorInfo", "gopc"),
	}
	l.BubbleID = -1
	if l.G.Bubble >= 0 {
		l.BubbleID = x.off("runtime.synctestBubble", "id")
	}
	l.Status = Status{
		Idle:      x.konst("runtime._Gidle"),
		Runnable:  x.konst("runtime._Grunnable"),
		Running:   x.konst("runtime._Grunning"),
		Syscall:   x.konst("runtime._Gsyscall"),
		Waiting:   x.konst("runtime._Gwaiting"),
		Dead:      x.konst("runtime._Gdead"),
		Copystack: x.konst("runtime._Gcopystack"),
		Preempted: x.konst("runtime._Gpreempted"),
		Leaked:    x.optKonst("runtime._Gleaked"),
		DeadExtra: x.optKonst("runtime._Gdeadextra"),
		Scan:      x.konst("runtime._Gscan"),
	}
	// Function ids and flags moved from runtime (funcID_x) to internal/abi
	// (FuncID_x) in Go 1.21.
	id := func(name string) int {
		if minor < 21 {
			if name == "Normal" || name == "Wrapper" {
				name = strings.ToLower(name)
			}
			return x.optKonst("runtime.funcID_" + name)
		}
		if name == "Normal" || name == "Wrapper" {
			return x.optKonst("internal/abi.FuncID" + name)
		}
		return x.optKonst("internal/abi.FuncID_" + name)
	}
	l.FuncID = FuncID{
		Normal: id("Normal"), Wrapper: id("Wrapper"),
		AsyncPreempt: id("asyncPreempt"), DebugCallV2: id("debugCallV2"), Sigpanic: id("sigpanic"),
		Gopanic: id("gopanic"), Panicwrap: id("panicwrap"),
		Systemstack: id("systemstack"), Morestack: id("morestack"), Cgocallback: id("cgocallback"),
		RuntimeMain: id("runtime_main"), Corostart: id("corostart"), HandleAsync: id("handleAsyncEvent"),
		RunFinalizers: id("runFinalizers"), RunCleanups: id("runCleanups"),
	}
	if l.FuncID.RunFinalizers < 0 {
		l.FuncID.RunFinalizers = id("runfinq")
	}
	if minor < 21 {
		l.FuncFlag = FuncFlag{
			TopFrame: x.konst("runtime.funcFlag_TOPFRAME"),
			SPWrite:  x.konst("runtime.funcFlag_SPWRITE"),
			Asm:      x.konst("runtime.funcFlag_ASM"),
		}
		l.MaxFrames = x.konst("runtime._TracebackMaxFrames")
	} else {
		l.FuncFlag = FuncFlag{
			TopFrame: x.konst("internal/abi.FuncFlagTopFrame"),
			SPWrite:  x.konst("internal/abi.FuncFlagSPWrite"),
			Asm:      x.konst("internal/abi.FuncFlagAsm"),
		}
		l.InnerFrames = x.konst("runtime.tracebackInnerFrames")
		l.OuterFrames = x.konst("runtime.tracebackOuterFrames")
	}
	for _, v := range []struct {
		name     string
		required bool
		strs     *[]string
		bools    *[]bool
	}{
		{"runtime.waitReasonStrings", true, &l.WaitReasons, nil},
		{"runtime.gStatusStrings", true, &l.StatusNames, nil},
		{"runtime.isIdleInSynctest", false, nil, &l.IdleInSynctest},
	} {
		dv, ok := x.vars[v.name]
		if !ok {
			if v.required {
				x.fail(fmt.Errorf("no variable %s", v.name))
			}
			continue
		}
		if v.strs != nil {
			*v.strs = x.strings(dv)
		} else {
			*v.bools = x.bools(dv)
		}
	}
	if x.err != nil {
		return nil, fmt.Errorf("rtlayout: %s/%s: %w", toolchain, arch, x.err)
	}
	return l, nil
}

func archOf(f *elf.File) (string, error) {
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64", nil
	case elf.EM_AARCH64:
		return "arm64", nil
	}
	return "", fmt.Errorf("rtlayout: unsupported machine %v (amd64 and arm64 are)", f.Machine)
}

type dwarfVar struct {
	addr uint64
	typ  dwarf.Offset
}

type extractor struct {
	f       *elf.File
	d       *dwarf.Data
	structs map[string]dwarf.Offset
	consts  map[string]int64
	vars    map[string]dwarfVar
	err     error
}

func (x *extractor) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

// index records the runtime's structs, constants and variables by name.
func (x *extractor) index() error {
	r := x.d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("rtlayout: reading DWARF: %w", err)
		}
		if e == nil {
			return nil
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		switch e.Tag {
		case dwarf.TagStructType:
			if _, seen := x.structs[name]; !seen && name != "" {
				x.structs[name] = e.Offset
			}
		case dwarf.TagConstant:
			switch v := e.Val(dwarf.AttrConstValue).(type) {
			case int64:
				x.consts[name] = v
			case uint64:
				x.consts[name] = int64(v)
			}
		case dwarf.TagVariable:
			loc, _ := e.Val(dwarf.AttrLocation).([]byte)
			typ, _ := e.Val(dwarf.AttrType).(dwarf.Offset)
			// DW_OP_addr followed by the address: a global.
			if len(loc) == 9 && loc[0] == 0x03 {
				x.vars[name] = dwarfVar{addr: binary.LittleEndian.Uint64(loc[1:]), typ: typ}
			}
		}
		if e.Children && e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
		}
	}
}

func (x *extractor) structType(name string) (*dwarf.StructType, error) {
	off, ok := x.structs[name]
	if !ok {
		return nil, fmt.Errorf("no struct %s", name)
	}
	t, err := x.d.Type(off)
	if err != nil {
		return nil, fmt.Errorf("struct %s: %w", name, err)
	}
	st, ok := t.(*dwarf.StructType)
	if !ok {
		return nil, fmt.Errorf("%s is a %T, not a struct", name, t)
	}
	return st, nil
}

var errNoField = errors.New("no such field")

// field returns the offset of a dotted field path in struct name.
func (x *extractor) field(name, path string) (int, error) {
	st, err := x.structType(name)
	if err != nil {
		return -1, err
	}
	off := 0
	parts := strings.Split(path, ".")
	for i, p := range parts {
		var found *dwarf.StructField
		for _, fl := range st.Field {
			if fl.Name == p {
				found = fl
				break
			}
		}
		if found == nil {
			return -1, fmt.Errorf("%s.%s: %w", name, path, errNoField)
		}
		off += int(found.ByteOffset)
		if i == len(parts)-1 {
			break
		}
		t := found.Type
		for {
			td, ok := t.(*dwarf.TypedefType)
			if !ok {
				break
			}
			t = td.Type
		}
		var isStruct bool
		st, isStruct = t.(*dwarf.StructType)
		if !isStruct {
			return -1, fmt.Errorf("%s.%s: %s is not a struct", name, path, p)
		}
	}
	return off, nil
}

func (x *extractor) off(name, path string) int {
	off, err := x.field(name, path)
	if err != nil {
		x.fail(err)
	}
	return off
}

// opt is off for a field some releases do not have: -1 when absent.
func (x *extractor) opt(name, path string) int {
	off, err := x.field(name, path)
	if errors.Is(err, errNoField) {
		return -1
	}
	if err != nil {
		x.fail(err)
	}
	return off
}

func (x *extractor) size(name string) int {
	st, err := x.structType(name)
	if err != nil {
		x.fail(err)
		return -1
	}
	return int(st.ByteSize)
}

func (x *extractor) konst(name string) int {
	v, ok := x.consts[name]
	if !ok {
		x.fail(fmt.Errorf("no constant %s", name))
		return -1
	}
	return int(v)
}

func (x *extractor) optKonst(name string) int {
	v, ok := x.consts[name]
	if !ok {
		return -1
	}
	return int(v)
}

// arrayLen returns the element count and size of v's array type.
func (x *extractor) array(v dwarfVar) (n, size int64, ok bool) {
	t, err := x.d.Type(v.typ)
	if err != nil {
		x.fail(err)
		return 0, 0, false
	}
	at, isArray := t.(*dwarf.ArrayType)
	if !isArray {
		x.fail(fmt.Errorf("variable at %#x is a %T, not an array", v.addr, t))
		return 0, 0, false
	}
	return at.Count, at.Type.Size(), true
}

func (x *extractor) strings(v dwarfVar) []string {
	n, size, ok := x.array(v)
	if !ok {
		return nil
	}
	if size != 16 {
		x.fail(fmt.Errorf("array at %#x: %d-byte elements, not strings", v.addr, size))
		return nil
	}
	hdr := x.read(v.addr, n*16)
	out := make([]string, n)
	for i := range out {
		p := binary.LittleEndian.Uint64(hdr[i*16:])
		l := binary.LittleEndian.Uint64(hdr[i*16+8:])
		if l > 0 {
			out[i] = string(x.read(p, int64(l)))
		}
	}
	return out
}

func (x *extractor) bools(v dwarfVar) []bool {
	n, size, ok := x.array(v)
	if !ok {
		return nil
	}
	if size != 1 {
		x.fail(fmt.Errorf("array at %#x: %d-byte elements, not bools", v.addr, size))
		return nil
	}
	b := x.read(v.addr, n)
	out := make([]bool, n)
	for i := range out {
		out[i] = b[i] != 0
	}
	return out
}

// read returns n bytes of f's image at address addr (zeros past a
// segment's file bytes, as in .bss).
func (x *extractor) read(addr uint64, n int64) []byte {
	out := make([]byte, n)
	for _, p := range x.f.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr+uint64(n) > p.Vaddr+p.Memsz {
			continue
		}
		if addr-p.Vaddr < p.Filesz {
			end := min(uint64(n), p.Filesz-(addr-p.Vaddr))
			if _, err := p.ReadAt(out[:end], int64(addr-p.Vaddr)); err != nil {
				x.fail(fmt.Errorf("reading %#x: %w", addr, err))
			}
		}
		return out
	}
	x.fail(fmt.Errorf("address %#x is in no loaded segment", addr))
	return out
}
