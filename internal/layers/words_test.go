package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// commandWords are a flag (--timeout) or a command of stackdump's
// ("stackdump ps", "sudo stackdump capture pid:1").
var commandWords = regexp.MustCompile(`--[a-z][a-z0-9-]*|\bstackdump (analyze|capture|convert|demo|diff|ps|query|report|timeline|version|watch)\b`)

// otherWords are the literals of the library that may hold commandWords,
// by file, and why: flags of other tools, and whole stackdump commands
// that an analysis finding names as what would prove it (output for a
// person, which means the same wherever it is read; a bare flag does
// not).
var otherWords = map[string][]string{
	"internal/paste/logs.go":      {"docker logs --timestamps", "kubectl logs --timestamps", "kubectl logs --prefix"}, // the pastes it reads
	"internal/paste/cuts.go":      {"kubectl logs --tail"},
	"remote/jvmcheck_perfdata.go": {"--class-path", "--module-path", "--upgrade-module-path", "--add-modules", "--limit-modules", "--enable-native-access", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--source", "--module"}, // the java launcher's options
	"analyze/findings.go":         {"stackdump analyze first second", "stackdump timeline", "stackdump capture --mode leak"},
	"analyze/timeline_report.go":  {"stackdump analyze on the last snapshot"},
	"report/data.go":              {"stackdump report: "}, // the page's title
}

// TestLibraryNamesNoFlag: no string literal in the library's non-test Go
// files names a flag or a command of stackdump's, but those otherWords
// lists. The library says what is wrong in its own words — an option's
// name (Options.Timeout, ModeTrace) or plain ones — and the command adds
// its flags (cmd/stackdump/words.go). It checks literals, not the strings
// built from them: a flag assembled from pieces ("--" + name) passes.
func TestLibraryNamesNoFlag(t *testing.T) {
	files := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "cmd" || rel == "bench":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own, not the library
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %s: %v", rel, lit.Value, err)
				return true
			}
			for _, w := range otherWords[rel] {
				s = strings.ReplaceAll(s, w, "")
			}
			if m := commandWords.FindString(s); m != "" {
				t.Errorf("%s: a literal names %q, a flag or command of stackdump's: %.120q", rel, m, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("%d files checked: the walk missed the library", files)
	}
}
