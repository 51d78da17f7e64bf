package dumpjson_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// checkGolden compares got with testdata/json/name, or rewrites the file
// under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "json", name)
	if *dumptest.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, dumptest.DiffText(string(want), string(got)))
	}
}

// goldenDocuments are the documents of testdata/json, by file name.
func goldenDocuments(t *testing.T) map[string][]byte {
	tab := stack.NewTable()
	goDump, jvmDump := dumptest.GoDump(tab), dumptest.JVMDump(tab)
	var grouped bytes.Buffer
	if err := dumpjson.WriteGroups(&grouped, goDump, dumptest.Groups(tab, goDump)); err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{
		"full.json":    doortest.Encode(t, output.JSON, goDump, jvmDump),
		"minimal.json": doortest.Encode(t, output.JSON, &stack.Dump{Routines: []*stack.Routine{{ID: 1, Count: 1, State: "running", Stack: &stack.Stack{}}}}),
		"grouped.json": grouped.Bytes(),
	}
	// Real dumps, one per reader, so the schema is checked against what
	// the readers make of real input.
	for name, path := range map[string]string{
		"go_labels.json":   "go/labels_go126.txt",
		"go_race.json":     "go/race_go126.txt",
		"go_synctest.json": "go/synctest_go126.txt",
		"go_sigquit.json":  "go/sigquit_go126.txt",
		"go_debug1.json":   "corpus/go/profilernotes_2.net.http.pprof.goroutine.debug1.txt",
		"go_pprof.json":    "corpus/go/profilernotes_2.net.http.pprof.goroutine.debug0.pb.gz",
		"jvm_jstack.json":  "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt",
		"jvm_json.json":    "corpus/jvm/intellij_jcmd_dump_to_file_json_jdk21_structured.json",
	} {
		docs[name] = doortest.Encode(t, output.JSON, doortest.ReadFile(t, filepath.Join("..", "..", "testdata", path), formats.ReadOptions{})...)
	}
	// Streamed as `stackdump convert` does: the JVM's deadlock report,
	// read after the threads, goes to "epilogue".
	docs["jvm_jstack_streamed.json"] = copyJSON(t, readTestdata(t, "corpus/jvm/local_jdk17.0.15-jstack-plain.txt"))
	return docs
}

func TestJSONGolden(t *testing.T) {
	schema := loadSchema(t)
	for name, got := range goldenDocuments(t) {
		checkGolden(t, name, got)
		validateDocuments(t, schema, name, got)
	}
}

// TestJSONGoldenReadBack reads every golden file and writes it again: a
// full document comes back byte for byte.
func TestJSONGoldenReadBack(t *testing.T) {
	for name := range goldenDocuments(t) {
		if name == "grouped.json" {
			continue // read back as records, not written back the same
		}
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "json", name))
		if err != nil {
			t.Fatal(err)
		}
		again := doortest.Encode(t, output.JSON, readJSON(t, data, formats.ReadOptions{})...)
		if strings.HasSuffix(name, "_streamed.json") {
			again = copyJSON(t, data)
		}
		if !bytes.Equal(again, data) {
			t.Errorf("%s: read and written again differs:\n%s", name, dumptest.DiffText(string(data), string(again)))
		}
	}
}
