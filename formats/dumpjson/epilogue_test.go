package dumpjson_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/output"
)

// A streamed JVM dump's deadlock report, met after the threads, is written
// in "epilogue" and read back at the end of Preamble, as the text reader
// has it; a malformed epilogue is a warning and keeps the dump.
func TestJSONEpilogue(t *testing.T) {
	orig := readTestdata(t, "corpus/jvm/local_jdk17.0.15-jstack-plain.txt")
	want := doortest.ReadFile(t, "../../testdata/corpus/jvm/local_jdk17.0.15-jstack-plain.txt", formats.ReadOptions{})[0].Preamble
	if len(want) == 0 || !strings.HasPrefix(want[0], "Found one Java-level deadlock") {
		t.Fatalf("the text reader's preamble %q; want the deadlock report", want)
	}
	js := copyJSON(t, orig)
	if !bytes.Contains(js, []byte(`"preamble":[]`)) || !bytes.Contains(js, []byte(`"epilogue":["Found one Java-level deadlock:"`)) {
		t.Fatalf("streamed JSON keeps the report elsewhere:\n%s", js[len(js)-min(len(js), 400):])
	}
	d := readJSON(t, js, formats.ReadOptions{})[0]
	if !slices.Equal(d.Preamble, want) {
		t.Errorf("read back: preamble %q, want %q", d.Preamble, want)
	}
	// Written back as text, the report follows the threads again.
	text := doortest.Encode(t, output.Text, d)
	if i, j := bytes.Index(text, []byte("Found one Java-level deadlock")), bytes.LastIndex(text, []byte("java.lang.Thread.State")); i < j {
		t.Errorf("deadlock report at %d, before the last thread (%d)", i, j)
	}

	bad := bytes.Replace(js, []byte(`"epilogue":[`), []byte(`"epilogue":[7,`), 1)
	d = readJSON(t, bad, formats.ReadOptions{})[0]
	if len(d.Routines) != 31 || !slices.Equal(d.Preamble, want) {
		t.Errorf("bad epilogue: %d routines, preamble %q", len(d.Routines), d.Preamble)
	}
	if len(d.Warnings) == 0 || !strings.Contains(d.Warnings[len(d.Warnings)-1].Error(), "epilogue") {
		t.Errorf("bad epilogue: warnings %v; want one naming it", d.Warnings)
	}
}
