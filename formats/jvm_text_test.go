package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// jvmCorpusText lists the JVM text dumps of the corpus and of testdata/jvm.
func jvmCorpusText(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{filepath.Join("..", "testdata", "corpus", "jvm"), filepath.Join("..", "testdata", "jvm")} {
		for _, pat := range []string{"*.txt", "*.log"} {
			m, err := filepath.Glob(filepath.Join(dir, pat))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		t.Fatal("no JVM corpus files")
	}
	return files
}

func readJVMFile(t testing.TB, path string) []*Dump {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

var (
	// Thread headers counted independently of the reader: HotSpot,
	// VisualVM and ThreadInfo headers, Thread.dump_to_file headers, and the
	// virtual threads carried by a carrier.
	reCountHeader  = regexp.MustCompile(`(?m)^"[^\n]*"\s+(?:#\d+|daemon|prio=|os_prio=|tid=|- Thread t@|Id=\d)`)
	reCountToFile  = regexp.MustCompile(`(?m)^#\d+ "`)
	reCountCarried = regexp.MustCompile(`(?m)^\s+Carrying virtual thread #\d+`)
)

func TestJVMTextCorpusThreadCounts(t *testing.T) {
	for _, path := range jvmCorpusText(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if k := SniffKind(data[:min(len(data), 64<<10)]); k != KindJVMText {
				t.Errorf("sniffed as %s", k)
			}
			want := len(reCountHeader.FindAll(data, -1)) + len(reCountToFile.FindAll(data, -1)) + len(reCountCarried.FindAll(data, -1))
			dumps := readJVMFile(t, path)
			got := 0
			for _, d := range dumps {
				got += len(d.Routines)
				if d.Total != int64(len(d.Routines)) {
					t.Errorf("Total %d, %d routines", d.Total, len(d.Routines))
				}
				for _, w := range d.Warnings {
					t.Errorf("warning: %v", w)
				}
			}
			if got != want || want == 0 {
				t.Errorf("read %d threads, the file has %d headers", got, want)
			}
		})
	}
}
