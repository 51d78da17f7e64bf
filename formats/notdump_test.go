package formats

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Random bytes are not a dump: the error says so, and does not blame a
// pprof profile that never was one. A profile asked for by name still
// gets the pprof error.
func TestRandomBytesAreNotADump(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 4000)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	junk[0] = 0x0b // field 1, wire type 3: not a profile from its first byte
	for _, rd := range []*Reader{NewReader(bytes.NewReader(junk), ReadOptions{}), NewReaderBytes(junk, ReadOptions{})} {
		_, err := rd.Next()
		if !errors.Is(err, stack.ErrNotDump) || strings.Contains(err.Error(), "go-pprof dump") {
			t.Errorf("random bytes: %v", err)
		}
	}
	_, err := NewReader(bytes.NewReader(junk), ReadOptions{Kind: stack.KindGoPprof}).Next()
	if err == nil || errors.Is(err, stack.ErrNotDump) || !strings.Contains(err.Error(), "not a profile") {
		t.Errorf("random bytes read as pprof: %v", err)
	}
}

// Lists of choices are words, not Go slices.
func TestFormatChoicesAreWords(t *testing.T) {
	_, err := output.ParseFormat("xml")
	if err == nil || !strings.Contains(err.Error(), "(want text, json, debug1, pprof or folded)") {
		t.Errorf("ParseFormat: %v", err)
	}
}
