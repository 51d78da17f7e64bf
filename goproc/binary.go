package goproc

import (
	"debug/buildinfo"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
)

// ErrNotGo is returned by OpenBinary for an executable that is not a Go
// program (it has no Go build information).
var ErrNotGo = errors.New("not a Go program")

// Binary is a Go executable opened for reading the goroutines of the
// processes (or cores) that run it: its symbol and line table, where the
// runtime keeps its goroutine list, and the runtime's layouts for its Go
// release. A Binary is safe for concurrent use.
type Binary struct {
	// BuildInfo is the executable's build information: Go version, main
	// module and its dependencies, build settings.
	BuildInfo *debug.BuildInfo
	// Arch is "amd64" or "arm64".
	Arch string
	// Stripped is set when the executable has no symbol table (-ldflags=-s):
	// the runtime's globals were then found from its code.
	Stripped bool
	// PIE is set for a position-independent executable, whose addresses
	// move by a load bias in each process (Options.LoadBias).
	PIE bool

	layout  *rtlayout.Layout
	minor   int
	img     *image // the executable, read while it is opened
	tab     *pclntab
	quantum uint64 // sys.PCQuantum: 1 on amd64, 4 on arm64
	gofunc  uint64 // moduledata.gofunc: the base of funcdata offsets
	// fdata is the function data (go:func.*) from gofunc on: inline
	// trees, argument layouts and liveness.
	fdata []byte
	// allglen and allgptr are the link addresses of runtime.allglen and
	// runtime.allgptr, the goroutine list as the runtime reads it
	// without its lock (forEachGRace).
	allglen, allgptr uint64
	// How each was found: "symbol table" or "code of runtime.forEachGRace".
	globalsFrom string
	entry       uint64 // the ELF entry point (a PIE's load bias is AT_ENTRY minus it)
}

// GoVersion returns the Go release that built the executable ("go1.22.12").
func (b *Binary) GoVersion() string { return b.BuildInfo.GoVersion }

// OpenBinary reads a Go executable for Linux on amd64 or arm64, built by Go
// 1.19 to 1.27, stripped or not. It reads what it needs of exe before it
// returns (the symbol and line table, the function data, a few words of
// code and data): exe may be closed then. It refuses any other executable with an
// error that says why: not ELF, not Go (ErrNotGo), another architecture,
// or a Go release outside the runtime layouts it knows, named.
func OpenBinary(exe io.ReaderAt) (*Binary, error) {
	f, err := elf.NewFile(exe)
	if err != nil {
		return nil, fmt.Errorf("goproc: not an ELF executable: %w", err)
	}
	b := &Binary{}
	switch f.Machine {
	case elf.EM_X86_64:
		b.Arch, b.quantum = "amd64", 1
	case elf.EM_AARCH64:
		b.Arch, b.quantum = "arm64", 4
	default:
		return nil, fmt.Errorf("goproc: an executable for %v: only amd64 and arm64 are read", f.Machine)
	}
	bi, err := buildinfo.Read(exe)
	if err != nil {
		return nil, fmt.Errorf("goproc: %w: %v", ErrNotGo, err)
	}
	b.BuildInfo = bi
	b.PIE, b.entry = f.Type == elf.ET_DYN, f.Entry
	minor, _ := rtlayout.Minor(bi.GoVersion)
	b.minor = minor
	if b.layout, err = rtlayout.Lookup(bi.GoVersion, b.Arch); err != nil {
		return nil, fmt.Errorf("goproc: %s was built by %s, which is not supported (%s are)", describe(bi), bi.GoVersion, rtlayout.Supported())
	}
	if b.img, err = newImage(f); err != nil {
		return nil, fmt.Errorf("goproc: %w", err)
	}
	syms, _ := f.Symbols()
	b.Stripped = len(syms) == 0
	sym := func(name string) uint64 {
		for _, s := range syms {
			if s.Name == name {
				return s.Value
			}
		}
		return 0
	}
	if err := b.readPclntab(f); err != nil {
		return nil, fmt.Errorf("goproc: %w", err)
	}
	if err := b.readModuledata(f, sym("runtime.firstmoduledata")); err != nil {
		return nil, fmt.Errorf("goproc: %w", err)
	}
	if err := b.readFuncdata(f); err != nil {
		return nil, fmt.Errorf("goproc: %w", err)
	}
	if b.allglen, b.allgptr = sym("runtime.allglen"), sym("runtime.allgptr"); b.allglen != 0 && b.allgptr != 0 {
		b.globalsFrom = "symbol table"
	} else if err := b.findGlobals(); err != nil {
		return nil, fmt.Errorf("goproc: finding the goroutine list: %w", err)
	}
	return b, nil
}

// describe names a program by its main module, for errors.
func describe(bi *debug.BuildInfo) string {
	if bi.Path != "" {
		return bi.Path
	}
	return "the program"
}

// readPclntab reads the symbol and line table: the .gopclntab section
// (.data.rel.ro.gopclntab in a PIE of Go 1.19 or 1.20), or, without section
// headers, the pcHeader found by its magic in the data segments.
func (b *Binary) readPclntab(f *elf.File) error {
	var addr, size uint64
	s := f.Section(".gopclntab")
	if s == nil {
		s = f.Section(".data.rel.ro.gopclntab")
	}
	if s != nil {
		addr, size = s.Addr, s.Size
	} else {
		for _, seg := range b.img.segs {
			if seg.flags&elf.PF_X != 0 {
				continue
			}
			for off := uint64(0); off+8 <= seg.filesz; off += 8 {
				hdr, err := b.img.read(seg.addr+off, 8)
				if err != nil {
					break
				}
				if m := binary.LittleEndian.Uint32(hdr); (m == pclnMagic || m == pclnMagic118) && hdr[4] == 0 && hdr[5] == 0 && (hdr[6] == 1 || hdr[6] == 4) && hdr[7] == 8 {
					addr, size = seg.addr+off, seg.filesz-off
					break
				}
			}
			if addr != 0 {
				break
			}
		}
		if addr == 0 {
			return errors.New("no Go symbol table (pclntab) in the executable")
		}
	}
	data, err := b.img.read(addr, size)
	if err != nil {
		return fmt.Errorf("reading pclntab: %w", err)
	}
	b.tab, err = parsePclntab(data, addr)
	return err
}

// readModuledata finds runtime.firstmoduledata (at addr when the symbol
// table names it, otherwise as the one word in the writable data that
// points to the pcHeader and whose slices match the pcHeader's tables)
// and reads the text range and gofunc from it.
func (b *Binary) readModuledata(f *elf.File, addr uint64) error {
	l := &b.layout.Module
	check := func(md uint64) bool {
		w := func(off int) uint64 {
			v, err := b.img.word(md + uint64(off))
			if err != nil {
				return 0
			}
			return v
		}
		// funcnametab is the slice right after pcHeader; ftab has nfunc+1 entries.
		return w(l.PcHeader) == b.tab.addr &&
			w(l.PcHeader+8) == b.tab.addr+b.tab.offs[0] &&
			w(l.Ftab+8) == uint64(b.tab.nfunc+1)
	}
	if addr == 0 || !check(addr) {
		addr = 0
		for _, seg := range b.img.segs {
			if seg.flags&elf.PF_W == 0 {
				continue
			}
			for off := uint64(0); off+uint64(l.Size) <= seg.memsz && off < seg.filesz; off += 8 {
				v, err := b.img.word(seg.addr + off)
				if err == nil && v == b.tab.addr && check(seg.addr+off) {
					addr = seg.addr + off
					break
				}
			}
			if addr != 0 {
				break
			}
		}
		if addr == 0 {
			return errors.New("no runtime.firstmoduledata points to the pclntab")
		}
	}
	for _, fld := range []struct {
		off int
		dst *uint64
	}{{l.Text, &b.tab.text}, {l.Etext, &b.tab.etext}, {l.Gofunc, &b.gofunc}} {
		v, err := b.img.word(addr + uint64(fld.off))
		if err != nil {
			return fmt.Errorf("reading moduledata: %w", err)
		}
		*fld.dst = v
	}
	if b.tab.text == 0 || b.tab.etext <= b.tab.text || b.gofunc == 0 {
		return fmt.Errorf("moduledata at %#x has text [%#x, %#x) and gofunc %#x", addr, b.tab.text, b.tab.etext, b.gofunc)
	}
	return nil
}

// readFuncdata keeps the function data, from moduledata.gofunc to the end
// of the section that holds it (.rodata up to Go 1.25, .gopclntab from
// 1.26, whose bytes are read already) or, without section headers, of
// its segment.
func (b *Binary) readFuncdata(f *elf.File) error {
	if pc := b.tab; b.gofunc >= pc.addr && b.gofunc < pc.addr+uint64(pc.size) {
		b.fdata = pc.raw[b.gofunc-pc.addr:]
		return nil
	}
	var end uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && b.gofunc >= s.Addr && b.gofunc < s.Addr+s.Size {
			end = s.Addr + s.Size
		}
	}
	if end == 0 {
		seg := b.img.segmentOf(b.gofunc)
		if seg == nil {
			return fmt.Errorf("moduledata.gofunc %#x is outside the executable", b.gofunc)
		}
		end = seg.addr + seg.filesz
	}
	var err error
	b.fdata, err = b.img.read(b.gofunc, end-b.gofunc)
	if err != nil {
		return fmt.Errorf("reading the function data: %w", err)
	}
	return nil
}

// funcdata returns n bytes of function data at gofunc+off, or fewer at
// its end (none past it).
func (b *Binary) funcdata(off uint64, n int) []byte {
	if off >= uint64(len(b.fdata)) {
		return nil
	}
	end := min(off+uint64(n), uint64(len(b.fdata)))
	return b.fdata[off:end:end]
}

// FuncName returns the function holding pc (a link address), as the
// symbol table names it, or "".
func (b *Binary) FuncName(pc uint64) string {
	f := b.tab.findFunc(pc)
	if !f.valid() {
		return ""
	}
	return b.tab.name(f.nameOff)
}
