package formats_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// elfFile is the ELF header of a 64-bit little-endian file of type typ,
// followed by zeros.
func elfFile(typ elf.Type) []byte {
	h := elf.Header64{Type: uint16(typ), Machine: uint16(elf.EM_X86_64), Version: 1, Ehsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, h)
	b.Write(make([]byte, 4096))
	return b.Bytes()
}

// TestCoreFileRefused: the door knows an ELF core file and says how to
// read it (goproc, through stackdump analyze), streamed or in memory; an
// executable is just not a dump.
func TestCoreFileRefused(t *testing.T) {
	core := elfFile(elf.ET_CORE)
	if _, err := formats.ReadAll(bytes.NewReader(core), formats.ReadOptions{}); !errors.Is(err, formats.ErrCoreFile) || !errors.Is(err, stack.ErrNotDump) {
		t.Errorf("a core, streamed: %v", err)
	}
	if _, err := formats.NewReaderBytes(core, formats.ReadOptions{}).Next(); !errors.Is(err, formats.ErrCoreFile) {
		t.Errorf("a core, in memory: %v", err)
	}
	if _, err := formats.ReadAll(bytes.NewReader(elfFile(elf.ET_EXEC)), formats.ReadOptions{}); errors.Is(err, formats.ErrCoreFile) {
		t.Errorf("an executable read as a core: %v", err)
	}
}
