package formats

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

func jvmCorpusJSON(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", "jvm", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no JVM JSON corpus files (%v)", err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "jvm", "*.json"))
	return append(files, more...)
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
			if k := SniffKind(data[:min(len(data), 64<<10)]); k != KindJVMJSON {
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
			if d.Source.Kind != KindJVMJSON || d.Source.Runtime == "" || d.Source.Target == "" || d.Source.CapturedAt.IsZero() {
				t.Errorf("source %+v", d.Source)
			}
		})
	}
}
