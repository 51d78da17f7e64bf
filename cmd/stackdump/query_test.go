package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docExample is one `$ stackdump …` line of a ```console block of a doc
// page, with the output printed under it.
type docExample struct {
	line int
	args []string
	want string
}

// docExamples reads the console examples of a docs page.
func docExamples(t *testing.T, page string) []docExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	in := false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "```console":
			in = true
		case line == "```":
			in = false
		case in && strings.HasPrefix(line, "$ stackdump "):
			out = append(out, docExample{line: i + 1, args: shellWords(t, strings.TrimPrefix(line, "$ stackdump "))})
		case in && len(out) > 0:
			out[len(out)-1].want += line + "\n"
		}
	}
	return out
}

// shellWords splits a command line on spaces, with '…' quoting.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, c := range s {
		switch {
		case c == '\'':
			quoted = !quoted
			inWord = true
		case c == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// The query examples of docs/analyze.md print what the page says, from
// the repository root.
func TestQueryDocExamples(t *testing.T) {
	examples := docExamples(t, "analyze.md")
	if len(examples) < 5 {
		t.Fatalf("%d examples in docs/analyze.md", len(examples))
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, ex := range examples {
		out, _, err := runCLI(t, ex.args...)
		var exit exitError
		if errors.As(err, &exit) && exit.code == queryNoMatch {
			err = nil // examples may show a no-match
		}
		if err != nil {
			t.Errorf("docs/analyze.md:%d: %v", ex.line, err)
			continue
		}
		if out != ex.want {
			t.Errorf("docs/analyze.md:%d: stackdump %s\n got:\n%s\nwant:\n%s", ex.line, strings.Join(ex.args, " "), out, ex.want)
		}
	}
}

const panicweb = "go/panicparse_panicweb_debug2.txt"

func TestQueryExitStatus(t *testing.T) {
	path := corpusPath(panicweb)
	for _, tc := range []struct {
		args     []string
		code     int // 0: success
		out, err string
	}{
		{[]string{path, "total"}, 0, "71\n", ""},
		{[]string{path, "nope"}, queryNoMatch, "", `no match for "nope"`},
		{[]string{path, `goroutines.#(state=="nope")#.id`}, queryNoMatch, "[]\n", "no match"},
		{[]string{"--raw", path, `goroutines.#(state=="nope")#.id`}, queryNoMatch, "", "no match"},
		{[]string{path, "groups..0"}, queryFailed, "", "empty path component at offset 7"},
		{[]string{path, "goroutines.#(id=1)"}, queryFailed, "", `unknown query operator "="`},
		{[]string{"missing.txt", "total"}, queryFailed, "", "open missing.txt"},
		{[]string{"--by", "nope", path, "total"}, queryFailed, "", `unknown similarity "nope"`},
		// Usage errors are errors (2), not "no match" (1): a script
		// reading 1 as "nothing found" would miss the mistake.
		{[]string{path}, queryFailed, "", "accepts 2 arg(s), received 1"},
		{[]string{path, "total", "more"}, queryFailed, "", "accepts 2 arg(s), received 3"},
		{[]string{"--nope", path, "total"}, queryFailed, "", "unknown flag: --nope"},
		// --by implies --dedupe, as in convert: 11 groups, not nothing.
		{[]string{"--by", "func", path, "groups.#"}, 0, "11\n", ""},
	} {
		out, _, err := runCLI(t, append([]string{"query"}, tc.args...)...)
		var exit exitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.code
		} else if err != nil {
			code = -1
		}
		if code != tc.code || out != tc.out || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("query %q: status %d, output %q, error %v; want %d, %q, %q", tc.args, code, out, err, tc.code, tc.out, tc.err)
		}
	}
}

// Every dump of a file is queried; ".." paths see them all as JSON lines.
func TestQuerySeveralDumps(t *testing.T) {
	path := corpusPath("jvm/tda_hpux_jdk15_large.log")
	out, _, err := runCLI(t, "query", path, "..#")
	if err != nil || out != "2\n" {
		t.Fatalf("..#: %q, %v", out, err)
	}
	out, _, err = runCLI(t, "query", path, "source.kind")
	if err != nil || out != "\"jvm-text\"\n\"jvm-text\"\n" {
		t.Errorf("source.kind: %q, %v", out, err)
	}
}

func TestQueryStdin(t *testing.T) {
	data, err := os.ReadFile(corpusPath(debug1Corpus))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLIInput(t, data, "query", "--dedupe", "--raw", "-", "groups.#(count==2)#.stack.0.func")
	if err != nil || out != "time.Sleep\n" {
		t.Errorf("got %q, %v", out, err)
	}
}
