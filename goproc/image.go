package goproc

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"
)

// image is the executable as the loader maps it, at its link addresses:
// the bytes of its loaded segments, read from the file on demand in
// chunks, with the dynamic relocations of a position-independent
// executable applied to the words they patch.
type image struct {
	mu     sync.Mutex // guards chunks
	segs   []segment
	relocs map[uint64]uint64 // link address → value (R_*_RELATIVE addend)
	chunks map[uint64][]byte // chunk index → chunkSize bytes (fewer at a segment's end)
}

type segment struct {
	addr, filesz, memsz uint64
	flags               elf.ProgFlag
	r                   io.ReaderAt
}

const chunkSize = 64 << 10

func newImage(f *elf.File) (*image, error) {
	im := &image{chunks: map[uint64][]byte{}}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		im.segs = append(im.segs, segment{addr: p.Vaddr, filesz: p.Filesz, memsz: p.Memsz, flags: p.Flags, r: p.Open().(io.ReaderAt)})
	}
	if len(im.segs) == 0 {
		return nil, fmt.Errorf("no loadable segments")
	}
	sort.Slice(im.segs, func(i, j int) bool { return im.segs[i].addr < im.segs[j].addr })
	if f.Type == elf.ET_DYN {
		if err := im.readRelocs(f); err != nil {
			return nil, err
		}
	}
	return im, nil
}

// readRelocs records the R_X86_64_RELATIVE and R_AARCH64_RELATIVE
// relocations of a PIE: the words the loader sets to base + addend.
func (im *image) readRelocs(f *elf.File) error {
	im.relocs = map[uint64]uint64{}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return fmt.Errorf("reading %s: %w", s.Name, err)
		}
		for len(b) >= 24 {
			off := binary.LittleEndian.Uint64(b)
			info := binary.LittleEndian.Uint64(b[8:])
			addend := binary.LittleEndian.Uint64(b[16:])
			b = b[24:]
			typ := uint32(info)
			if f.Machine == elf.EM_X86_64 && elf.R_X86_64(typ) == elf.R_X86_64_RELATIVE ||
				f.Machine == elf.EM_AARCH64 && elf.R_AARCH64(typ) == elf.R_AARCH64_RELATIVE {
				im.relocs[off] = addend
			}
		}
	}
	return nil
}

// segmentOf returns the segment holding addr, or nil.
func (im *image) segmentOf(addr uint64) *segment {
	i := sort.Search(len(im.segs), func(i int) bool { return im.segs[i].addr+im.segs[i].memsz > addr })
	if i < len(im.segs) && im.segs[i].addr <= addr {
		return &im.segs[i]
	}
	return nil
}

// read returns n bytes at link address addr: the file's bytes, zeros past
// a segment's file size (.bss), relocated words patched. The slice may be
// shared with the image's cache: callers must not modify it.
func (im *image) read(addr, n uint64) ([]byte, error) {
	s := im.segmentOf(addr)
	if s == nil || addr+n > s.addr+s.memsz || addr+n < addr {
		return nil, fmt.Errorf("address %#x (+%d) is outside the executable's segments", addr, n)
	}
	var out []byte
	if first, last := (addr-s.addr)/chunkSize, (addr-s.addr+n-1)/chunkSize; n > 0 && first == last && im.relocs == nil {
		c, err := im.chunk(s, first)
		if err != nil {
			return nil, err
		}
		o := addr - s.addr - first*chunkSize
		return c[o : o+n : o+n], nil
	}
	out = make([]byte, n)
	for done := uint64(0); done < n; {
		off := addr + done - s.addr
		c, err := im.chunk(s, off/chunkSize)
		if err != nil {
			return nil, err
		}
		done += uint64(copy(out[done:], c[off%chunkSize:]))
	}
	if im.relocs != nil {
		for a := addr &^ 7; a < addr+n; a += 8 {
			v, ok := im.relocs[a]
			if !ok {
				continue
			}
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], v)
			for i := uint64(0); i < 8; i++ {
				if a+i >= addr && a+i < addr+n {
					out[a+i-addr] = w[i]
				}
			}
		}
	}
	return out, nil
}

// chunk returns chunk i of segment s, read once.
func (im *image) chunk(s *segment, i uint64) ([]byte, error) {
	key := s.addr + i*chunkSize
	im.mu.Lock()
	defer im.mu.Unlock()
	if c, ok := im.chunks[key]; ok {
		return c, nil
	}
	size := min(uint64(chunkSize), s.memsz-i*chunkSize)
	c := make([]byte, size)
	if start := i * chunkSize; start < s.filesz {
		end := min(s.filesz, start+size)
		if _, err := s.r.ReadAt(c[:end-start], int64(start)); err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading the executable at %#x: %w", key, err)
		}
	}
	im.chunks[key] = c
	return c, nil
}

// word returns the 8-byte little-endian word at addr.
func (im *image) word(addr uint64) (uint64, error) {
	b, err := im.read(addr, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}
