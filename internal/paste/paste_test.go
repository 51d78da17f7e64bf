package paste

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTransformsDescribed checks that every transformation has a unique name
// of the documented shape, a form, an example and a known loss, and that every
// combination is made of known steps.
func TestTransformsDescribed(t *testing.T) {
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*(\+[a-z0-9]+(-[a-z0-9]+)*)*$`)
	seen := map[string]bool{}
	for _, tr := range append(All(), Combos()...) {
		if !name.MatchString(tr.Name) {
			t.Errorf("name %q is not lower-case words joined by - and +", tr.Name)
		}
		if seen[tr.Name] {
			t.Errorf("two transformations named %q", tr.Name)
		}
		seen[tr.Name] = true
		if tr.Form == "" || tr.Example == "" || tr.Fn == nil {
			t.Errorf("%s: form %q, example %q, fn set %v: each must be set", tr.Name, tr.Form, tr.Example, tr.Fn != nil)
		}
		if tr.Loss < Intact || tr.Loss > Destroyed {
			t.Errorf("%s: loss %v", tr.Name, tr.Loss)
		}
		if got, ok := Lookup(tr.Name); !ok || got.Name != tr.Name {
			t.Errorf("Lookup(%q) = %q, %v", tr.Name, got.Name, ok)
		}
	}
	if _, ok := Lookup("no-such-form"); ok {
		t.Error("Lookup found a transformation that does not exist")
	}
}

// TestEveryTransformChecked makes sure each transformation of All has its
// property check below and applies to at least one real dump, so none goes
// untested.
func TestEveryTransformChecked(t *testing.T) {
	dumps := realDumps(t)
	for _, tr := range All() {
		if _, ok := checks[tr.Name]; !ok {
			t.Errorf("%s has no property check in paste_test.go", tr.Name)
		}
		applies := 0
		for _, d := range dumps {
			if tr.Applies(d.data) {
				applies++
			}
		}
		if applies == 0 {
			t.Errorf("%s applies to none of the %d real dumps", tr.Name, len(dumps))
		}
	}
}

// TestTransformsOnRealDumps applies every transformation with three seeds to
// every real dump and checks it does what its form says.
func TestTransformsOnRealDumps(t *testing.T) {
	dumps := realDumps(t)
	for _, tr := range All() {
		check := checks[tr.Name]
		if check == nil {
			continue
		}
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			for _, d := range dumps {
				if !tr.Applies(d.data) {
					if out := tr.Apply(d.data, 1); !bytes.Equal(out, d.data) {
						t.Errorf("%s: changed a dump it does not apply to", d.name)
					}
					continue
				}
				for _, seed := range []uint64{1, 99} {
					in := bytes.Clone(d.data)
					out := tr.Apply(in, seed)
					if !bytes.Equal(in, d.data) {
						t.Fatalf("%s: Apply modified its input", d.name)
					}
					if bytes.Equal(out, in) {
						t.Errorf("%s seed %d: output equals the input", d.name, seed)
						continue
					}
					if again := tr.Apply(in, seed); !bytes.Equal(again, out) {
						t.Errorf("%s seed %d: two runs with one seed differ", d.name, seed)
					}
					t.Run(d.name, func(t *testing.T) { check(t, in, out) })
				}
			}
		})
	}
}

// checks holds, for each transformation, the property its output must have
// for the input in.
var checks = map[string]func(t *testing.T, in, out []byte){
	"fence":             fenced("```"),
	"fence4":            fenced("````"),
	"fence-lang":        fencedLang,
	"fence-glued-start": func(t *testing.T, in, out []byte) { exact(t, out, "```", withNL(in), "```\n") },
	"fence-glued-end":   func(t *testing.T, in, out []byte) { exact(t, out, "```\n", bytes.TrimRight(in, "\n"), "```\n") },
	"inline-code":       func(t *testing.T, in, out []byte) { exact(t, out, "`", bytes.TrimRight(in, "\n"), "`\n") },
	"details": func(t *testing.T, in, out []byte) {
		exact(t, out, "<details><summary>Start dockerd in the foreground and press Ctrl+\\</summary>\n\n```\n", withNL(in), "```\n\n</details>\n")
	},
	"details-pre": func(t *testing.T, in, out []byte) {
		exact(t, out, "<details><summary><code>go test . -json -timeout=1s</code> Output</summary><br><pre>\n", withNL(in), "</pre></details>\n")
	},
	"chat":               surrounded(chatBefore, chatAfter, "\n\n", "\n"),
	"prompt":             surrounded(promptsBefore, promptsAfter, "\n", ""),
	"log-lead":           logLead,
	"quote":              prefixed(regexp.MustCompile(`^> `)),
	"quote-nested":       prefixed(regexp.MustCompile(`^> > `)),
	"journald":           timedPrefix(regexp.MustCompile(`^([A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d{6}) \S+ \S+\[\d+\]: `), "Jan 02 15:04:05.000000"),
	"docker-timestamps":  timedPrefix(regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z) `), "2006-01-02T15:04:05.000000000Z"),
	"actions-timestamps": timedPrefix(regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z) `), "2006-01-02T15:04:05.0000000Z"),
	"kubectl-prefix":     samePrefix(regexp.MustCompile(`^\[pod/[a-z0-9-]+/[a-z0-9-]+\] `)),
	"log-fields":         fieldsAround,
	"line-numbers":       numbered,
	"wrapper":            wrapped,
	"syslog":             syslogged,
	"logcat":             logcatted,
	"cut-timestamp":      cutTimestamp,
	"log-first-line":     firstLinePrefixed,
	"test2json":          testJSON,
	"json-field":         jsonField,
	"fluentd-quoted":     fluentdQuoted,
	"tabs-to-spaces":     tabsToSpaces,
	"flatten":            flattened,
	"reindent":           reindented,
	"blank-dropped":      blankDropped,
	"blank-doubled":      blankDoubled,
	"space-lines":        spaceLines,
	"trailing-spaces":    trailingSpaces,
	"soft-wrap":          softWrapped,
	"sigquit-echo":       sigquitEcho,
	"crlf":               crlf,
	"cut-start":          func(t *testing.T, in, out []byte) { part(t, in, out, bytes.HasSuffix) },
	"cut-end":            func(t *testing.T, in, out []byte) { part(t, in, out, bytes.HasPrefix) },
	"grep":               grepped,
	"from-header":        fromHeader,
	"ellipsis":           elided,
	"reversed":           reversedLines,
	"deadlock-only":      deadlockOnly,
	"html-escape":        htmlEscaped,
	"less-bytes":         lessBytes,
	"markdown-list":      markdownList,
}

// exact checks out is exactly the parts in order.
func exact(t *testing.T, out []byte, before string, body []byte, after string) {
	t.Helper()
	want := concat([]byte(before), body, []byte(after))
	if !bytes.Equal(out, want) {
		t.Errorf("output is not %q + the dump + %q; starts %q, ends %q", before, after, head(out), tail(out))
	}
}

// fenced: the first and last lines are the fence, every line between is the
// dump's.
func fenced(fence string) func(t *testing.T, in, out []byte) {
	return func(t *testing.T, in, out []byte) {
		ls := lines(out)
		if string(ls[0]) != fence || string(ls[len(ls)-1]) != fence {
			t.Fatalf("first line %q, last %q: want the fence %q on both", ls[0], ls[len(ls)-1], fence)
		}
		equalLines(t, "between the fences", ls[1:len(ls)-1], lines(in))
	}
}

func fencedLang(t *testing.T, in, out []byte) {
	ls := lines(out)
	lang := strings.TrimPrefix(string(ls[0]), "```")
	want := fenceLangsGo
	if DetectKind(in)&JVM != 0 {
		want = fenceLangsJVM
	}
	if !strings.HasPrefix(string(ls[0]), "```") || !contains(want, lang) {
		t.Fatalf("first line %q: want ``` and one of %v", ls[0], want)
	}
	if string(ls[len(ls)-1]) != "```" {
		t.Fatalf("last line %q, want ```", ls[len(ls)-1])
	}
	equalLines(t, "between the fences", ls[1:len(ls)-1], lines(in))
}

// surrounded: out is one of before, sep, the dump, sep2-separated one of
// after; the text around is no dump.
func surrounded(before, after []string, sep, sepAfter string) func(t *testing.T, in, out []byte) {
	return func(t *testing.T, in, out []byte) {
		for _, b := range before {
			for _, a := range after {
				want := concat([]byte(b+sep), withNL(in), []byte(sepAfter+a+"\n"))
				if bytes.Equal(out, want) {
					if DetectKind([]byte(b+"\n"+a)) != 0 {
						t.Errorf("the text around the dump (%q, %q) looks like a dump", b, a)
					}
					return
				}
			}
		}
		t.Errorf("output is not text + the dump + text; starts %q, ends %q", head(out), tail(out))
	}
}

func logLead(t *testing.T, in, out []byte) {
	i := bytes.Index(out, withNL(in))
	if i <= 0 {
		t.Fatalf("the dump is not whole inside the output, after a log line")
	}
	before, after := out[:i], out[i+len(withNL(in)):]
	for _, part := range [][]byte{before, after} {
		for _, l := range lines(part) {
			if len(l) == 0 || DetectKind(l) != 0 {
				t.Errorf("log line %q is empty or looks like a dump", l)
			}
		}
	}
	if len(lines(after)) == 0 {
		t.Error("no log line after the dump")
	}
}

// prefixed: every line of out is a prefix matching re followed by the
// dump's line.
func prefixed(re *regexp.Regexp) func(t *testing.T, in, out []byte) {
	return func(t *testing.T, in, out []byte) {
		var stripped [][]byte
		for i, l := range lines(out) {
			loc := re.FindIndex(l)
			if loc == nil || loc[0] != 0 {
				t.Fatalf("line %d %q has no prefix %s", i+1, l, re)
			}
			stripped = append(stripped, l[loc[1]:])
		}
		equalLines(t, "after the prefix", stripped, lines(in))
	}
}

// samePrefix: prefixed, with one prefix for every line.
func samePrefix(re *regexp.Regexp) func(t *testing.T, in, out []byte) {
	return func(t *testing.T, in, out []byte) {
		prefixed(re)(t, in, out)
		first := re.Find(lines(out)[0])
		for _, l := range lines(out) {
			if !bytes.HasPrefix(l, first) {
				t.Fatalf("line %q does not have the first line's prefix %q", l, first)
			}
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 60)] }
func tail(b []byte) []byte { return b[max(0, len(b)-60):] }

// part: out is a shorter, non-empty suffix or prefix of in.
func part(t *testing.T, in, out []byte, is func(s, part []byte) bool) {
	if len(out) == 0 || len(out) >= len(in) || !is(in, out) {
		t.Errorf("output of %d bytes is not a shorter part of the %d-byte dump at its end", len(out), len(in))
	}
	if len(out) < len(in)*2/3-1 {
		t.Errorf("cut %d of %d bytes: more than a third", len(in)-len(out), len(in))
	}
}

// TestFormsCatalogued checks docs/paste-forms.md names every transformation
// and combination, so the catalogue and the package do not drift apart.
func TestFormsCatalogued(t *testing.T) {
	doc, err := os.ReadFile("../../docs/paste-forms.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range append(All(), Combos()...) {
		if !bytes.Contains(doc, []byte("`"+tr.Name+"`")) {
			t.Errorf("docs/paste-forms.md does not name `%s`", tr.Name)
		}
	}
}
