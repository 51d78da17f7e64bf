package formats_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Grouped text (convert --dedupe) is for people and is not read back.
// Read as a dump it gave a wrong one: the grouped text of a real panic
// holds "panic: …" and no goroutine header, so it read as a crash with
// "1 goroutine" and no error. It is refused as not a dump, saying what
// it is, plain, gzipped and held in memory; so is a JVM dump's.
func TestGroupedTextIsNotReadBack(t *testing.T) {
	for _, name := range []string{"../testdata/go/panic_go127.txt", "../testdata/corpus/jvm/tda_jdk8.log"} {
		d := doortest.ReadFirst(t, name)
		var text bytes.Buffer
		if err := formats.WriteGroups(&text, output.Text, d, dedupe.Group(d, dedupe.Options{})); err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(text.Bytes())
		zw.Close()
		for what, rd := range map[string]*formats.Reader{
			"plain":     formats.NewReader(bytes.NewReader(text.Bytes()), formats.ReadOptions{}),
			"gzip":      formats.NewReader(bytes.NewReader(z.Bytes()), formats.ReadOptions{}),
			"in memory": formats.NewReaderBytes(text.Bytes(), formats.ReadOptions{}),
		} {
			d, err := rd.Next()
			if d != nil || !errors.Is(err, stack.ErrNotDump) || !strings.Contains(err.Error(), "grouped text") {
				t.Errorf("%s, %s: dump %v, error %v; want stackdump's grouped text refused", name, what, d != nil, err)
			}
		}
	}
}
