package goproc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
)

// The pcHeader magics the reader knows (abi.Go120PCLnTabMagic and
// Go118PCLnTabMagic): Go 1.18 and 1.19 lay the table out as 1.20 does but
// for a _func without startLine and a longer inlinedCall.
const (
	pclnMagic    = 0xfffffff1 // Go 1.20 and later
	pclnMagic118 = 0xfffffff0 // Go 1.18 and 1.19
)

// pclntab is the runtime's symbol and line table (runtime.pcHeader and
// the tables after it), read from the executable: function names, entry
// points, pc-value tables (stack deltas, files, lines, inline indexes),
// files.
type pclntab struct {
	addr        uint64 // link address of the pcHeader
	raw         []byte // the whole table, from the pcHeader
	size        int
	offs        [5]uint64 // the tables' offsets from the pcHeader: funcname, cu, file, pc, pcln
	nfunc       int
	funcnametab []byte
	cutab       []byte
	filetab     []byte
	pctab       []byte
	pclntable   []byte // starts with the ftab: nfunc+1 {entryoff, funcoff uint32}
	text        uint64 // moduledata.text: the base of entry offsets
	etext       uint64
	// go118 is set for the table of Go 1.18 and 1.19 (pclnMagic118).
	go118 bool
	// funcSize is the size of runtime._func before its pcdata and
	// funcdata offsets: 44, or 40 in Go 1.18–1.19, without startLine.
	funcSize uint64
	// inlSize is the size of a runtime.inlinedCall: 16, or 20 in Go
	// 1.18–1.19.
	inlSize int
}

// parsePclntab reads the pcHeader at the start of b (at link address
// addr).
func parsePclntab(b []byte, addr uint64) (*pclntab, error) {
	if len(b) < 72 {
		return nil, fmt.Errorf("pclntab too short (%d bytes)", len(b))
	}
	le := binary.LittleEndian
	m := le.Uint32(b)
	if m != pclnMagic && m != pclnMagic118 {
		return nil, fmt.Errorf("pclntab magic %#x is neither Go 1.20+'s %#x nor Go 1.18–1.19's %#x", m, uint32(pclnMagic), uint32(pclnMagic118))
	}
	if b[6] != 1 && b[6] != 4 || b[7] != 8 {
		return nil, fmt.Errorf("pclntab of a %d-byte-pointer target with %d-byte instructions: only 64-bit targets are read", b[7], b[6])
	}
	nfunc := int(le.Uint64(b[8:]))
	off := func(i int) (uint64, error) {
		o := le.Uint64(b[32+8*i:])
		if o > uint64(len(b)) {
			return 0, fmt.Errorf("pclntab table %d at offset %d is past its end (%d bytes)", i, o, len(b))
		}
		return o, nil
	}
	var offs [5]uint64
	for i := range offs {
		o, err := off(i)
		if err != nil {
			return nil, err
		}
		offs[i] = o
	}
	t := &pclntab{addr: addr, raw: b, size: len(b), offs: offs, nfunc: nfunc, funcSize: 44, inlSize: 16}
	if m == pclnMagic118 {
		t.go118, t.funcSize, t.inlSize = true, 40, 20
	}
	// The tables follow the header in an order the header does not say:
	// each ends where the next one starts.
	table := func(i int) []byte {
		end := uint64(len(b))
		for _, o := range offs {
			if o > offs[i] && o < end {
				end = o
			}
		}
		return b[offs[i]:end]
	}
	t.funcnametab, t.cutab, t.filetab, t.pctab, t.pclntable = table(0), table(1), table(2), table(3), table(4)
	if nfunc <= 0 || uint64(nfunc+1)*8 > uint64(len(t.pclntable)) {
		return nil, fmt.Errorf("pclntab claims %d functions in %d bytes", nfunc, len(t.pclntable))
	}
	return t, nil
}

// funcInfo is one function's record (runtime._func) decoded.
type funcInfo struct {
	off         uint32 // offset of the _func in pclntable; 0: invalid
	entry       uint64
	nameOff     int32
	deferreturn uint32
	pcsp        uint32
	pcfile      uint32
	pcln        uint32
	npcdata     uint32
	cuOffset    uint32
	startLine   int32
	funcID      uint8
	flag        uint8
	nfuncdata   uint8
}

func (f *funcInfo) valid() bool { return f.off != 0 }

// findFunc returns the function holding pc (a link address).
func (t *pclntab) findFunc(pc uint64) funcInfo {
	if pc < t.text || pc >= t.etext {
		return funcInfo{}
	}
	off := pc - t.text
	if off >= 1<<32 {
		return funcInfo{}
	}
	le := binary.LittleEndian
	ft := t.pclntable
	// The last entry whose entryoff <= off, among the nfunc real ones
	// (entry nfunc is the end sentinel).
	i := sort.Search(t.nfunc, func(i int) bool { return uint64(le.Uint32(ft[8*(i+1):])) > off })
	if i >= t.nfunc || uint64(le.Uint32(ft[8*i:])) > off {
		return funcInfo{}
	}
	return t.funcAt(le.Uint32(ft[8*i+4:]))
}

// funcAt decodes the _func at offset funcoff of pclntable.
func (t *pclntab) funcAt(funcoff uint32) funcInfo {
	if funcoff == 0 || uint64(funcoff)+t.funcSize > uint64(len(t.pclntable)) {
		return funcInfo{}
	}
	b := t.pclntable[funcoff:]
	le := binary.LittleEndian
	f := funcInfo{
		off:         funcoff,
		entry:       t.text + uint64(le.Uint32(b)),
		nameOff:     int32(le.Uint32(b[4:])),
		deferreturn: le.Uint32(b[12:]),
		pcsp:        le.Uint32(b[16:]),
		pcfile:      le.Uint32(b[20:]),
		pcln:        le.Uint32(b[24:]),
		npcdata:     le.Uint32(b[28:]),
		cuOffset:    le.Uint32(b[32:]),
	}
	if t.go118 {
		f.funcID, f.flag, f.nfuncdata = b[36], b[37], b[39]
	} else {
		f.startLine = int32(le.Uint32(b[36:]))
		f.funcID, f.flag, f.nfuncdata = b[40], b[41], b[43]
	}
	if uint64(funcoff)+t.funcSize+4*uint64(f.npcdata)+4*uint64(f.nfuncdata) > uint64(len(t.pclntable)) {
		return funcInfo{}
	}
	return f
}

// funcByName returns the function named name, by a scan of every
// function (for the few the reader looks up once).
func (t *pclntab) funcByName(name string) funcInfo {
	le := binary.LittleEndian
	for i := 0; i < t.nfunc; i++ {
		f := t.funcAt(le.Uint32(t.pclntable[8*i+4:]))
		if f.valid() && t.name(f.nameOff) == name {
			return f
		}
	}
	return funcInfo{}
}

// name returns the function name at nameOff of funcnametab.
func (t *pclntab) name(nameOff int32) string {
	if nameOff < 0 || int(nameOff) >= len(t.funcnametab) {
		return "?"
	}
	b := t.funcnametab[nameOff:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// pcdataOff returns the pctab offset of pcdata table i of f, 0 if none.
func (t *pclntab) pcdataOff(f *funcInfo, i uint32) uint32 {
	if i >= f.npcdata {
		return 0
	}
	return binary.LittleEndian.Uint32(t.pclntable[uint64(f.off)+t.funcSize+4*uint64(i):])
}

// funcdataOff returns the offset past moduledata.gofunc of funcdata i of
// f, and false when f has none.
func (t *pclntab) funcdataOff(f *funcInfo, i uint8) (uint32, bool) {
	if i >= f.nfuncdata {
		return 0, false
	}
	off := binary.LittleEndian.Uint32(t.pclntable[uint64(f.off)+t.funcSize+4*uint64(f.npcdata)+4*uint64(i):])
	return off, off != ^uint32(0)
}

// pcvalue returns the value of the pc-value table at pctab offset off for
// targetpc (a link address) in f, or -1.
func (t *pclntab) pcvalue(f *funcInfo, off uint32, targetpc uint64, quantum uint64) int32 {
	if off == 0 || int(off) >= len(t.pctab) {
		return -1
	}
	p := t.pctab[off:]
	pc := f.entry
	val := int32(-1)
	for {
		var uvdelta, pcdelta uint32
		var n int
		if len(p) == 0 {
			return -1
		}
		uvdelta, n = readVarint(p)
		if uvdelta == 0 && pc != f.entry || n == 0 {
			return -1
		}
		val += int32(-(uvdelta & 1) ^ (uvdelta >> 1))
		p = p[n:]
		pcdelta, n = readVarint(p)
		if n == 0 {
			return -1
		}
		p = p[n:]
		pc += uint64(pcdelta) * quantum
		if targetpc < pc {
			return val
		}
	}
}

// readVarint reads an unsigned varint; n is 0 when p ends inside it.
func readVarint(p []byte) (v uint32, n int) {
	var shift uint32
	for n < len(p) {
		b := p[n]
		n++
		v |= uint32(b&0x7f) << (shift & 31)
		if b&0x80 == 0 {
			return v, n
		}
		shift += 7
	}
	return 0, 0
}

// file returns file number fileno of f's compilation unit.
func (t *pclntab) file(f *funcInfo, fileno int32) string {
	i := uint64(f.cuOffset) + uint64(fileno)
	if fileno < 0 || 4*i+4 > uint64(len(t.cutab)) {
		return "?"
	}
	off := binary.LittleEndian.Uint32(t.cutab[4*i:])
	if off == ^uint32(0) || int(off) >= len(t.filetab) {
		return "?"
	}
	b := t.filetab[off:]
	if j := bytes.IndexByte(b, 0); j >= 0 {
		b = b[:j]
	}
	return string(b)
}

// inlinedCall decodes an entry of an inline tree (runtime.inlinedCall,
// inlSize bytes): in Go 1.20 and later {funcID uint8; _ [3]byte; nameOff,
// parentPc, startLine int32}, in 1.18–1.19 {parent int16; funcID uint8; _
// byte; file, line, nameOff, parentPc int32}.
func (t *pclntab) inlinedCall(b []byte) inlTreeEntry {
	le := binary.LittleEndian
	if t.go118 {
		return inlTreeEntry{funcID: b[2], nameOff: int32(le.Uint32(b[12:])), parentPc: int32(le.Uint32(b[16:]))}
	}
	return inlTreeEntry{funcID: b[0], nameOff: int32(le.Uint32(b[4:])), parentPc: int32(le.Uint32(b[8:]))}
}
