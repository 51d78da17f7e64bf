package goproc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Memory is the target's address space: a live process (ProcessMemory)
// or a core file. ReadAt reads len(p) bytes at address addr, as io.ReaderAt
// does; a short read comes with an error.
type Memory interface {
	ReadAt(p []byte, addr uint64) (n int, err error)
}

// Span is one range of a scattered read: Buf is filled from Addr; N is
// how many bytes were read and Err why not all (nil when N == len(Buf)).
type Span struct {
	Addr uint64
	Buf  []byte
	N    int
	Err  error
}

// ScatterReader is a Memory that reads many ranges in one call
// (ProcessMemory: one process_vm_readv for up to 1024 of them), which
// Read uses when its Memory has it. ReadScatter sets each span's N and
// Err.
type ScatterReader interface {
	Memory
	ReadScatter(spans []Span)
}

// counted reads through a Memory and counts what it read, scattered
// when the Memory can.
type counted struct {
	mem     Memory
	scatter ScatterReader
	calls   int
	bytes   int64
}

func newCounted(mem Memory) *counted {
	c := &counted{mem: mem}
	c.scatter, _ = mem.(ScatterReader)
	return c
}

// errShort is a read the Memory cut short without saying why.
var errShort = errors.New("short read")

func (c *counted) read(addr uint64, buf []byte) error {
	c.calls++
	n, err := c.mem.ReadAt(buf, addr)
	c.bytes += int64(n)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = errShort
	}
	return fmt.Errorf("reading %d bytes at %#x: %w", len(buf), addr, err)
}

// readSpans reads every span, in as few calls as the Memory allows.
func (c *counted) readSpans(spans []Span) {
	if c.scatter == nil {
		for i := range spans {
			s := &spans[i]
			s.Err = c.read(s.Addr, s.Buf)
			s.N = len(s.Buf)
			if s.Err != nil {
				s.N = 0
			}
		}
		return
	}
	c.calls++
	c.scatter.ReadScatter(spans)
	for i := range spans {
		c.bytes += int64(spans[i].N)
	}
}

func (c *counted) word(addr uint64) (uint64, error) {
	var b [8]byte
	if err := c.read(addr, b[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}
