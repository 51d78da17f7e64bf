package goproc

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Core is an ELF core file of a Go process, written by gcore or by the
// kernel (GOTRACEBACK=crash, then a fatal signal): its memory, the
// registers of its threads, and where its executable was. It is a Memory:
// Read reads the goroutines from it as from a live process, with
// Core.Options.
//
// The memory is the core's PT_LOAD segments. A file-backed mapping the core
// left out (the kernel writes only the first page of an executable's
// read-only segments) is read from the executable, once UseExecutable gave
// it; anything else the core does not hold is an error, never zeros.
type Core struct {
	// PID is the process the core was written from.
	PID int
	// Threads are its threads with their registers (NT_PRSTATUS), the
	// thread that caused the dump first.
	Threads []Thread
	// Signal is the signal that dumped the core (0 for one gcore wrote
	// of a running process).
	Signal int
	// Command is the process's command line, as far as the core keeps
	// it (80 bytes of NT_PRPSINFO).
	Command string
	// Executable is the path of the executable as the process mapped it
	// (NT_FILE): the mapping that holds the entry point. "" when the core
	// has no NT_FILE note.
	Executable string
	// Arch is "amd64" or "arm64".
	Arch string

	r      io.ReaderAt
	segs   []coreSegment // by address
	files  []coreFile    // NT_FILE, by address
	entry  uint64        // AT_ENTRY of the core's auxiliary vector (NT_AUXV)
	exe    io.ReaderAt
	exeMap []coreFile // the mappings of the executable
}

// coreSegment is one PT_LOAD segment: memsz bytes at vaddr, the first
// filesz of them in the core at off.
type coreSegment struct {
	vaddr, memsz, filesz, off uint64
}

// coreFile is one file mapping of NT_FILE: [start, end) maps the file name
// from byte off.
type coreFile struct {
	start, end, off uint64
	name            string
}

// ErrNotCore is returned by OpenCore for a file that is not an ELF core.
var ErrNotCore = errors.New("not an ELF core file")

// IsCore reports whether the first bytes of a file (at least 18) are those
// of an ELF core file.
func IsCore(head []byte) bool {
	return len(head) >= 18 && string(head[:4]) == elf.ELFMAG &&
		(head[elf.EI_DATA] == byte(elf.ELFDATA2LSB) && binary.LittleEndian.Uint16(head[16:]) == uint16(elf.ET_CORE) ||
			head[elf.EI_DATA] == byte(elf.ELFDATA2MSB) && binary.BigEndian.Uint16(head[16:]) == uint16(elf.ET_CORE))
}

// Offsets in a 64-bit Linux struct elf_prstatus.
const (
	prstatusCursig = 12
	prstatusPID    = 32
	prstatusReg    = 112
)

// Note types not named by debug/elf.
const (
	ntFile   = 0x46494c45 // NT_FILE: the mapped files
	ntARMTLS = 0x401      // NT_ARM_TLS: tpidr_el0
	ntAuxv   = 6          // NT_AUXV
)

// OpenCore reads an ELF core file of a Linux amd64 or arm64 process.
func OpenCore(r io.ReaderAt) (*Core, error) {
	var head [64]byte
	if n, _ := r.ReadAt(head[:], 0); !IsCore(head[:n]) {
		return nil, fmt.Errorf("goproc: %w", ErrNotCore)
	}
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("goproc: core: %w", err)
	}
	c := &Core{r: r}
	switch {
	case f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB:
		return nil, fmt.Errorf("goproc: a core of a %v %v process: only 64-bit little-endian ones are read", f.Class, f.Data)
	case f.Machine == elf.EM_X86_64:
		c.Arch = "amd64"
	case f.Machine == elf.EM_AARCH64:
		c.Arch = "arm64"
	default:
		return nil, fmt.Errorf("goproc: a core of a %v process: only amd64 and arm64 are read", f.Machine)
	}
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			c.segs = append(c.segs, coreSegment{vaddr: p.Vaddr, memsz: p.Memsz, filesz: p.Filesz, off: p.Off})
		case elf.PT_NOTE:
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return nil, fmt.Errorf("goproc: core: reading its notes at byte %d: %w", p.Off, err)
			}
			if err := c.readNotes(b, p.Off); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(c.segs, func(i, j int) bool { return c.segs[i].vaddr < c.segs[j].vaddr })
	sort.Slice(c.files, func(i, j int) bool { return c.files[i].start < c.files[j].start })
	if len(c.Threads) == 0 {
		return nil, errors.New("goproc: core: no thread (NT_PRSTATUS note) in it")
	}
	c.PID = c.Threads[0].TID
	if f := c.fileAt(c.entry); f != nil {
		c.Executable = f.name
		for _, m := range c.files {
			if m.name == f.name {
				c.exeMap = append(c.exeMap, m)
			}
		}
	}
	return c, nil
}

// readNotes reads the notes of one PT_NOTE segment at byte off of the core.
func (c *Core) readNotes(b []byte, off uint64) error {
	le := binary.LittleEndian
	align := func(n uint32) int { return int((n + 3) &^ 3) }
	for pos := 0; pos+12 <= len(b); {
		namesz, descsz, typ := le.Uint32(b[pos:]), le.Uint32(b[pos+4:]), le.Uint32(b[pos+8:])
		d := pos + 12 + align(namesz)
		end := d + align(descsz)
		if d > len(b) || d+int(descsz) > len(b) || end < d {
			return fmt.Errorf("goproc: core: a note at byte %d runs past its segment", off+uint64(pos))
		}
		desc := b[d : d+int(descsz)]
		var err error
		switch typ {
		case uint32(elf.NT_PRSTATUS):
			err = c.readPrstatus(desc)
		case uint32(elf.NT_PRPSINFO):
			c.readPrpsinfo(desc)
		case ntFile:
			err = c.readFileNote(desc)
		case ntAuxv:
			for a := desc; len(a) >= 16; a = a[16:] {
				if le.Uint64(a) == 9 { // AT_ENTRY
					c.entry = le.Uint64(a[8:])
				}
			}
		case ntARMTLS:
			if len(c.Threads) > 0 && len(desc) >= 8 && c.Arch == "arm64" {
				c.Threads[len(c.Threads)-1].TLS = le.Uint64(desc)
			}
		}
		if err != nil {
			return fmt.Errorf("goproc: core: the note at byte %d: %w", off+uint64(pos), err)
		}
		pos = end
	}
	return nil
}

// readPrstatus reads one thread's NT_PRSTATUS: its id, signal and
// general registers.
func (c *Core) readPrstatus(desc []byte) error {
	le := binary.LittleEndian
	nregs := 27 // amd64's user_regs_struct
	if c.Arch == "arm64" {
		nregs = 34 // x0–x30, sp, pc, pstate
	}
	if len(desc) < prstatusReg+8*nregs {
		return fmt.Errorf("NT_PRSTATUS of %d bytes, want at least %d", len(desc), prstatusReg+8*nregs)
	}
	reg := func(i int) uint64 { return le.Uint64(desc[prstatusReg+8*i:]) }
	t := Thread{TID: int(int32(le.Uint32(desc[prstatusPID:])))}
	if c.Arch == "amd64" {
		t.PC, t.SP, t.FP, t.TLS = reg(16), reg(19), reg(4), reg(21) // rip, rsp, rbp, fs_base
	} else {
		t.PC, t.SP, t.FP, t.LR = reg(32), reg(31), reg(29), reg(30)
	}
	if len(c.Threads) == 0 {
		c.Signal = int(le.Uint16(desc[prstatusCursig:]))
	}
	c.Threads = append(c.Threads, t)
	return nil
}

// readPrpsinfo reads the command line from NT_PRPSINFO (64-bit layout:
// pr_fname at 40, 16 bytes; pr_psargs at 56, 80 bytes).
func (c *Core) readPrpsinfo(desc []byte) {
	if len(desc) < 136 {
		return
	}
	args := desc[56:136]
	if i := bytes.IndexByte(args, 0); i >= 0 {
		args = args[:i]
	}
	c.Command = strings.TrimSpace(string(args))
}

// readFileNote reads NT_FILE: count, page size, count (start, end, page
// offset) triples, then count file names, each ended by a NUL.
func (c *Core) readFileNote(desc []byte) error {
	le := binary.LittleEndian
	if len(desc) < 16 {
		return errors.New("NT_FILE too short")
	}
	n, page := le.Uint64(desc), le.Uint64(desc[8:])
	if n > uint64(len(desc))/24 {
		return fmt.Errorf("NT_FILE counts %d mappings in %d bytes", n, len(desc))
	}
	names := desc[16+24*n:]
	for i := range n {
		e := desc[16+24*i:]
		end := bytes.IndexByte(names, 0)
		if end < 0 {
			return fmt.Errorf("NT_FILE: the name of mapping %d is not ended", i)
		}
		c.files = append(c.files, coreFile{start: le.Uint64(e), end: le.Uint64(e[8:]), off: le.Uint64(e[16:]) * page, name: string(names[:end])})
		names = names[end+1:]
	}
	return nil
}

// fileAt is the file mapping that holds addr, or nil.
func (c *Core) fileAt(addr uint64) *coreFile {
	i := sort.Search(len(c.files), func(i int) bool { return c.files[i].end > addr })
	if i < len(c.files) && c.files[i].start <= addr {
		return &c.files[i]
	}
	return nil
}

// segmentAt is the PT_LOAD segment that holds addr, or nil.
func (c *Core) segmentAt(addr uint64) *coreSegment {
	i := sort.Search(len(c.segs), func(i int) bool { return c.segs[i].vaddr+c.segs[i].memsz > addr })
	if i < len(c.segs) && c.segs[i].vaddr <= addr {
		return &c.segs[i]
	}
	return nil
}

// UseExecutable gives the core its executable, from which the file-backed
// memory the core left out is read. It fails when exe is not the file the
// process ran: the core's copy of its first page differs (a binary
// rebuilt since, or another one).
func (c *Core) UseExecutable(exe io.ReaderAt) error {
	for _, m := range c.exeMap {
		if m.off != 0 {
			continue
		}
		s := c.segmentAt(m.start)
		if s == nil || s.filesz == 0 || s.vaddr != m.start {
			continue
		}
		n := min(s.filesz, 4096)
		in, want := make([]byte, n), make([]byte, n)
		if _, err := c.r.ReadAt(in, int64(s.off)); err != nil {
			return fmt.Errorf("goproc: core: %w", err)
		}
		if _, err := exe.ReadAt(want, 0); err != nil && err != io.EOF {
			return fmt.Errorf("goproc: reading the executable: %w", err)
		}
		if !bytes.Equal(in, want) {
			return fmt.Errorf("goproc: the executable given is not the one the core's process ran (%s): its first page differs from the core's copy; give the very file (a rebuilt binary differs)", c.Executable)
		}
		break
	}
	c.exe = exe
	return nil
}

// ReadAt reads len(p) bytes of the process's memory at addr, as it was when
// the core was written.
func (c *Core) ReadAt(p []byte, addr uint64) (int, error) {
	n := 0
	for n < len(p) {
		a := addr + uint64(n)
		want := uint64(len(p) - n)
		if s := c.segmentAt(a); s != nil {
			rel := a - s.vaddr
			want = min(want, s.memsz-rel)
			if rel < s.filesz {
				k := min(want, s.filesz-rel)
				if _, err := c.r.ReadAt(p[n:n+int(k)], int64(s.off+rel)); err != nil {
					return n, fmt.Errorf("reading address %#x from byte %d of the core: %w", a, s.off+rel, err)
				}
				n += int(k)
				continue
			}
		}
		// Not in the core: a file mapping's pages, left out since the
		// file holds them (gcore leaves out read-only ones whole).
		k, err := c.readFile(p[n:n+int(want)], a)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readFile reads memory the core left out from the executable it maps.
func (c *Core) readFile(p []byte, addr uint64) (int, error) {
	m := c.fileAt(addr)
	switch {
	case m == nil && c.segmentAt(addr) == nil:
		return 0, fmt.Errorf("address %#x is not in the core (not mapped when it was written)", addr)
	case m == nil:
		return 0, fmt.Errorf("address %#x is mapped but not in the core (memory the core's writer left out)", addr)
	case m.name != c.Executable || c.Executable == "":
		return 0, fmt.Errorf("address %#x maps %s, which the core does not hold", addr, m.name)
	case c.exe == nil:
		return 0, fmt.Errorf("address %#x maps the executable %s, which the core does not hold and was not given", addr, m.name)
	}
	k := min(uint64(len(p)), m.end-addr)
	n, err := c.exe.ReadAt(p[:k], int64(m.off+addr-m.start))
	if n < int(k) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, fmt.Errorf("address %#x: reading %s: %w", addr, m.name, err)
	}
	return n, nil
}

// Options returns the Options that read the core's goroutines with bin,
// the executable's Binary: the core's threads, the load bias of a
// position-independent executable, and no wait minutes (a core does not
// say when it was written on the runtime's clock).
func (c *Core) Options(bin *Binary) Options {
	o := Options{Threads: slices.Clone(c.Threads), Now: -1, Target: fmt.Sprintf("core of pid %d", c.PID)}
	if bin.PIE && c.entry != 0 {
		o.LoadBias = c.entry - bin.entry
	}
	return o
}
