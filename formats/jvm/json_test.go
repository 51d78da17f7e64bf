package jvm_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

func jvmCorpusJSON(t testing.TB) []string {
	t.Helper()
	return dumptest.SeedFiles(t, filepath.Join("..", "..", "testdata", "corpus", "jvm", "*.json"), filepath.Join("..", "..", "testdata", "jvm", "*.json"))
}

// TestJVMJSONThreadCounts reads every JSON dump and checks its threads
// against the thread entries counted with gjson.
func TestJVMJSONThreadCounts(t *testing.T) {
	for _, path := range jvmCorpusJSON(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if k := sniffedKind(t, data); k != stack.KindJVMJSON {
				t.Errorf("sniffed as %s", k)
			}
			want := 0
			gjson.GetBytes(data, "threadDump.threadContainers").ForEach(func(_, c gjson.Result) bool {
				want += len(c.Get("threads").Array())
				return true
			})
			dumps := readJVMFile(t, path)
			if len(dumps) != 1 {
				t.Fatalf("%d dumps", len(dumps))
			}
			d := dumps[0]
			for _, w := range d.Warnings {
				t.Errorf("warning: %v", w)
			}
			if len(d.Routines) != want || want == 0 || d.Total != int64(want) {
				t.Errorf("read %d threads (total %d), the file has %d", len(d.Routines), d.Total, want)
			}
			if d.Source.Kind != stack.KindJVMJSON || d.Source.Runtime == "" || d.Source.Target == "" || d.Source.CapturedAt.IsZero() {
				t.Errorf("source %+v", d.Source)
			}
		})
	}
}

// TestJVMJSONDocuments reads two documents in a row as two dumps, and a
// document cut as jcmd cuts what it returns itself (16,000 bytes) as a
// truncated dump with a warning and the threads before the cut.
func TestJVMJSONDocuments(t *testing.T) {
	a, err := os.ReadFile("../../testdata/corpus/jvm/tda_jcmd_threaddump_jdk21.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../testdata/jvm/jdk27_dump_to_file_v2_handmade.json")
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(append(append(a, '\n'), b...)), formats.ReadOptions{})
	if err != nil || len(dumps) != 2 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	if len(dumps[0].Routines) != 8 || len(dumps[1].Routines) != 3 || dumps[1].Source.Target != "36340" || len(dumps[0].Warnings)+len(dumps[1].Warnings) != 0 {
		t.Errorf("%s", renderJVM(dumps))
	}

	big, err := os.ReadFile("../../testdata/corpus/jvm/intellij_jcmd_dump_to_file_json_jdk21_structured.json")
	if err != nil {
		t.Fatal(err)
	}
	cut := big[:len(big)/2]
	dumps, err = readJSON(bytes.NewReader(cut), jvm.JSONReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	d := dumps[0]
	if !d.Truncated || len(d.Warnings) != 1 || d.Warnings[0].Line != 1 || len(d.Routines) == 0 || len(d.Routines) >= 11 {
		t.Errorf("truncated JSON: %s", renderJVM(dumps))
	}
}

// TestJVMJSONNotADump stops with an error naming the line of a JSON
// document that is no thread dump.
func TestJVMJSONNotADump(t *testing.T) {
	_, err := readJSON(bytes.NewReader([]byte("\n\n{\"goroutines\": []}")), jvm.JSONReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error %v", err)
	}
}

// readJSON reads every dump of r with the JVM JSON reader, as the door
// does when the kind is forced to stack.KindJVMJSON.
func readJSON(r io.Reader, opts jvm.JSONReadOptions) ([]*stack.Dump, error) {
	return stack.ReadAll(jvm.NewJSONReader(r, opts))
}
