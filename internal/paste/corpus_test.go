package paste

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// dump is one real dump the tests transform.
type dump struct {
	name string
	data []byte
}

// corpusGlobs are the real dumps: the fixtures the generators of
// testdata/gen made, the public corpus committed under testdata/corpus, and
// the shared corpus beside the repository when it is there.
var corpusGlobs = []string{
	"../../testdata/go/*.txt",
	"../../testdata/groups/*.txt",
	"../../testdata/debug1/*.txt",
	"../../testdata/jvm/*.txt",
	"../../testdata/corpus/go/*.txt",
	"../../testdata/corpus/jvm/*",
	"../../../shared/corpus/go/*.txt",
	"../../../shared/corpus/jvm/*",
}

// realDumps reads every file of corpusGlobs that holds a text dump, once per
// content.
func realDumps(tb testing.TB) []dump {
	tb.Helper()
	seen := map[string]bool{}
	var dumps []dump
	for _, g := range corpusGlobs {
		files, err := filepath.Glob(g)
		if err != nil {
			tb.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			if DetectKind(b) == 0 || seen[string(b)] {
				continue
			}
			seen[string(b)] = true
			dumps = append(dumps, dump{name: filepath.Base(f), data: b})
		}
	}
	if len(dumps) < 40 {
		tb.Fatalf("only %d real dumps found under testdata; the globs %v are wrong", len(dumps), corpusGlobs)
	}
	return dumps
}

// realDump returns the dump of that file name.
func realDump(tb testing.TB, name string) []byte {
	tb.Helper()
	for _, d := range realDumps(tb) {
		if d.name == name {
			return d.data
		}
	}
	tb.Fatalf("no real dump %s", name)
	return nil
}

// lines splits b into its lines without '\n'.
func lines(b []byte) [][]byte { return split(b).lines }

// equalLines reports the first line where got and want differ.
func equalLines(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d lines, want %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: line %d is %q, want %q", what, i+1, got[i], want[i])
			return
		}
	}
}
