package goproc

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// findGlobals finds runtime.allglen and runtime.allgptr in an executable
// without a symbol table, from the code of runtime.forEachGRace, which
// reads them first thing in every release from 1.19 to 1.27 (inlined
// atomicAllG: "length := atomic.Loaduintptr(&allglen); ptr :=
// atomic.Loadp(&allgptr)"): the first two global addresses its code
// loads, RIP-relative MOVs on amd64, ADRP+ADD or ADRP+LDR pairs on arm64.
// Both must lie in the writable data, apart.
func (b *Binary) findGlobals() error {
	const fn = "runtime.forEachGRace"
	f := b.tab.funcByName(fn)
	if !f.valid() {
		return fmt.Errorf("the executable has no %s", fn)
	}
	n := min(uint64(256), b.tab.etext-f.entry)
	code, err := b.img.read(f.entry, n)
	if err != nil {
		return err
	}
	var addrs []uint64
	if b.Arch == "amd64" {
		addrs = amd64Globals(code, f.entry, 2)
	} else {
		addrs = arm64Globals(code, f.entry, 2)
	}
	if len(addrs) < 2 {
		return fmt.Errorf("%s loads %d globals, not 2", fn, len(addrs))
	}
	for _, a := range addrs {
		s := b.img.segmentOf(a)
		if s == nil || s.flags&0x2 == 0 { // elf.PF_W
			return fmt.Errorf("%s loads %#x, outside the writable data", fn, a)
		}
	}
	if addrs[0] == addrs[1] {
		return errors.New(fn + " loads one global twice")
	}
	b.allglen, b.allgptr = addrs[0], addrs[1]
	b.globalsFrom = "code of " + fn
	return nil
}

// amd64Globals returns the addresses of the first max RIP-relative 64-bit
// loads (MOVQ disp32(RIP), reg: REX.W 8B /r with mod 00, r/m 101) in
// code at pc.
func amd64Globals(code []byte, pc uint64, max int) []uint64 {
	var out []uint64
	for i := 0; i+7 <= len(code) && len(out) < max; i++ {
		rex, op, modrm := code[i], code[i+1], code[i+2]
		if rex&0xf8 != 0x48 || op != 0x8b || modrm&0xc7 != 0x05 {
			continue
		}
		disp := int32(binary.LittleEndian.Uint32(code[i+3:]))
		next := pc + uint64(i) + 7
		out = append(out, uint64(int64(next)+int64(disp)))
		i += 6
	}
	return out
}

// arm64Globals returns the addresses of the first max globals code at pc
// addresses through ADRP followed by ADD (immediate) or LDR (unsigned
// offset) on the same register.
func arm64Globals(code []byte, pc uint64, max int) []uint64 {
	var page [32]uint64
	var has [32]bool
	var out []uint64
	for i := 0; i+4 <= len(code) && len(out) < max; i += 4 {
		insn := binary.LittleEndian.Uint32(code[i:])
		at := pc + uint64(i)
		rd, rn := insn&31, (insn>>5)&31
		switch {
		case insn&0x9f000000 == 0x90000000: // ADRP
			imm := int64((insn>>5)&0x7ffff)<<2 | int64((insn>>29)&3)
			imm = imm << 43 >> 43 // sign-extend 21 bits
			page[rd], has[rd] = uint64(int64(at&^0xfff)+imm<<12), true
		case insn&0xff800000 == 0x91000000 && has[rn]: // ADD Xd, Xn, #imm12
			out = append(out, page[rn]+uint64((insn>>10)&0xfff))
			has[rn] = false
		case insn&0xffc00000 == 0xf9400000 && has[rn]: // LDR Xt, [Xn, #imm12*8]
			out = append(out, page[rn]+uint64((insn>>10)&0xfff)*8)
			has[rn] = false
		}
	}
	return out
}
