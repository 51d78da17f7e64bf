package paste

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// timedPrefix: prefixed by re, whose first group is a time in layout that
// never goes back.
func timedPrefix(re *regexp.Regexp, layout string) func(t *testing.T, in, out []byte) {
	return func(t *testing.T, in, out []byte) {
		prefixed(re)(t, in, out)
		var last time.Time
		for i, l := range lines(out) {
			ts, err := time.Parse(layout, string(re.FindSubmatch(l)[1]))
			if err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			if i > 0 && ts.Before(last) {
				t.Fatalf("line %q: time goes back from %v", l, last)
			}
			last = ts
		}
	}
}

var fieldsRe = regexp.MustCompile(`^info \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z (.*) function=instrumentation\.logWriter\.Write source=instrumentation/debug\.go:17 $`)

func fieldsAround(t *testing.T, in, out []byte) {
	var got [][]byte
	for _, l := range lines(out) {
		m := fieldsRe.FindSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not level, time, line, fields", l)
		}
		got = append(got, m[1])
	}
	equalLines(t, "inside the log fields", got, lines(in))
}

var numberRe = regexp.MustCompile(`^ *(\d+) `)

func numbered(t *testing.T, in, out []byte) {
	prefixed(numberRe)(t, in, out)
	first := -1
	for i, l := range lines(out) {
		n, _ := strconv.Atoi(string(numberRe.FindSubmatch(l)[1]))
		if first < 0 {
			first = n
		}
		if n != first+i {
			t.Fatalf("line %d is numbered %d, want %d", i+1, n, first+i)
		}
		if loc := numberRe.FindIndex(l); loc[1] != 8 {
			t.Fatalf("line %q: number not right-aligned in 7 columns", l)
		}
	}
}

func wrapped(t *testing.T, in, out []byte) {
	var got [][]byte
	for _, l := range lines(out) {
		switch {
		case string(l) == "jvm 1    |":
			got = append(got, nil)
		case bytes.HasPrefix(l, []byte("jvm 1    | ")):
			got = append(got, l[len("jvm 1    | "):])
		default:
			t.Fatalf("line %q has no wrapper prefix", l)
		}
	}
	for i, l := range lines(in) {
		if len(l) == 0 && i < len(got) && got[i] != nil {
			t.Fatalf("blank line %d became %q, want the bare \"jvm 1    |\"", i+1, got[i])
		}
		if i < len(got) && got[i] == nil {
			got[i] = []byte{}
		}
	}
	equalLines(t, "after the wrapper prefix", got, lines(in))
}

// nonBlank returns the lines of in that are not blank, with f applied.
func nonBlank(in []byte, f func([]byte) []byte) [][]byte {
	var out [][]byte
	for _, l := range lines(in) {
		if !isBlank(l) {
			out = append(out, f(l))
		}
	}
	return out
}

var syslogRe = regexp.MustCompile(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S+: `)

func syslogged(t *testing.T, in, out []byte) {
	var got [][]byte
	for _, l := range lines(out) {
		loc := syslogRe.FindIndex(l)
		if loc == nil {
			t.Fatalf("line %q has no syslog prefix", l)
		}
		if rest := l[loc[1]:]; len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
			t.Fatalf("line %q kept its leading whitespace", l)
		}
		got = append(got, l[loc[1]:])
	}
	equalLines(t, "after the syslog prefix", got, nonBlank(in, trimLeftSpace))
}

func logcatted(t *testing.T, in, out []byte) {
	var got [][]byte
	for _, l := range lines(out) {
		if !bytes.HasPrefix(l, []byte("E/Go: ")) {
			t.Fatalf("line %q has no logcat prefix", l)
		}
		got = append(got, l[len("E/Go: "):])
	}
	equalLines(t, "after the logcat prefix", got, nonBlank(in, func(l []byte) []byte { return l }))
}

var actionsStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$`)

func cutTimestamp(t *testing.T, in, out []byte) {
	ls := lines(out)
	const stamp = len("2006-01-02T15:04:05.0000000Z")
	frag, rest, ok := bytes.Cut(ls[0], []byte(" "))
	if !ok || len(frag) == 0 || len(frag) >= stamp {
		t.Fatalf("first line %q does not start with a cut time stamp", ls[0])
	}
	if padded := "2024-01-01T00:00:00.0000000Z"[:stamp-len(frag)] + string(frag); !actionsStamp.MatchString(padded) {
		t.Fatalf("first line %q: %q is not the end of a time stamp", ls[0], frag)
	}
	want := lines(in)
	if !bytes.Equal(rest, want[0]) {
		t.Fatalf("first line %q: after the cut stamp %q, want the dump's first line %q", ls[0], rest, want[0])
	}
	timedPrefix(regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z) `), "2006-01-02T15:04:05.0000000Z")(t,
		text{lines: want[1:], finalNL: split(in).finalNL}.join(), text{lines: ls[1:], finalNL: split(out).finalNL}.join())
}

func firstLinePrefixed(t *testing.T, in, out []byte) {
	if !bytes.HasSuffix(out, in) || len(out) == len(in) {
		t.Fatal("output is not a prefix + the whole dump")
	}
	pre := out[:len(out)-len(in)]
	if bytes.IndexByte(pre, '\n') >= 0 || !regexp.MustCompile(`^\d{4}[-/]\d\d[-/]\d\d \d\d:\d\d:\d\d (INFO )?$`).Match(pre) {
		t.Fatalf("prefix %q is not one log prefix on the first line", pre)
	}
}

func testJSON(t *testing.T, in, out []byte) {
	var b strings.Builder
	for _, l := range lines(out) {
		var ev struct{ Action, Output string }
		if err := json.Unmarshal(l, &ev); err != nil || ev.Action != "output" {
			t.Fatalf("line %q is not a test2json output event: %v", l, err)
		}
		if strings.Count(ev.Output, "\n") > 1 {
			t.Fatalf("event %q holds more than one line", ev.Output)
		}
		b.WriteString(ev.Output)
	}
	if b.String() != string(in) {
		t.Error("the events' Output, joined, is not the dump")
	}
}

func jsonField(t *testing.T, in, out []byte) {
	if bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("output has %d lines, want one JSON line", bytes.Count(out, []byte("\n")))
	}
	var e struct{ Level, Msg, Stacktrace string }
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatal(err)
	}
	if e.Stacktrace != string(in) || e.Level != "error" {
		t.Errorf("level %q; stacktrace field is not the dump", e.Level)
	}
}

var fluentdRe = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 \[warn\]: pattern not match: "(.*)"$`)

func fluentdQuoted(t *testing.T, in, out []byte) {
	var got [][]byte
	for _, l := range lines(out) {
		m := fluentdRe.FindSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a fluentd warning", l)
		}
		got = append(got, rubyUnescape(t, m[1]))
	}
	equalLines(t, "unquoted", got, lines(in))
}

// rubyUnescape undoes rubyEscape.
func rubyUnescape(t *testing.T, s []byte) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			if s[i] == '"' {
				t.Fatalf("unescaped quote in %q", s)
			}
			out = append(out, s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'x':
			v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, byte(v))
			i += 2
		default:
			out = append(out, s[i])
		}
	}
	return out
}

func tabsToSpaces(t *testing.T, in, out []byte) {
	if bytes.IndexByte(out, '\t') >= 0 {
		t.Fatal("a tab is left")
	}
	for _, n := range []int{8, 4} {
		if bytes.Equal(out, bytes.ReplaceAll(in, []byte("\t"), bytes.Repeat([]byte(" "), n))) {
			return
		}
	}
	t.Error("output is not the dump with each tab as 8 or 4 spaces")
}

func flattened(t *testing.T, in, out []byte) {
	for _, l := range lines(out) {
		if len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
			t.Fatalf("line %q is still indented", l)
		}
	}
	var want [][]byte
	for _, l := range lines(in) {
		want = append(want, trimLeftSpace(l))
	}
	equalLines(t, "flattened", lines(out), want)
}

func reindented(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	var pad []byte
	for i := range got {
		g, w := trimLeftSpace(got[i]), trimLeftSpace(want[i])
		if !bytes.Equal(g, w) {
			t.Fatalf("line %d: %q, want %q re-indented", i+1, got[i], want[i])
		}
		indent := got[i][:len(got[i])-len(g)]
		switch {
		case len(w) == len(want[i]) || len(w) == 0:
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d %q changed though it was not indented", i+1, want[i])
			}
		case pad == nil:
			pad = indent
		case !bytes.Equal(indent, pad):
			t.Fatalf("line %d indented by %q, an earlier one by %q: want one indentation", i+1, indent, pad)
		}
		if bytes.IndexByte(indent, '\t') >= 0 {
			t.Fatalf("line %d indented with a tab", i+1)
		}
	}
}

func blankDropped(t *testing.T, in, out []byte) {
	equalLines(t, "without blank lines", lines(out), nonBlank(in, func(l []byte) []byte { return l }))
}

func blankDoubled(t *testing.T, in, out []byte) {
	ls := lines(out)
	var odd [][]byte
	for i, l := range ls {
		if i%2 == 1 {
			if len(l) != 0 {
				t.Fatalf("line %d %q: want a blank line after every line", i+1, l)
			}
			continue
		}
		odd = append(odd, l)
	}
	equalLines(t, "every other line", odd, lines(in))
}

func spaceLines(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	for i, l := range want {
		if len(l) == 0 {
			want[i] = []byte(" ")
		}
	}
	equalLines(t, "blank lines as a space", got, want)
}

func trailingSpaces(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.HasPrefix(got[i], want[i]) || len(bytes.Trim(got[i][len(want[i]):], " ")) != 0 || !bytes.HasSuffix(got[i], []byte(" ")) {
			t.Fatalf("line %d %q is not the dump's line %q padded with spaces", i+1, got[i], want[i])
		}
	}
}

func softWrapped(t *testing.T, in, out []byte) {
	if !bytes.Equal(bytes.ReplaceAll(out, []byte("\n"), nil), bytes.ReplaceAll(in, []byte("\n"), nil)) {
		t.Fatal("wrapping changed more than line breaks")
	}
	if len(lines(out)) <= len(lines(in)) {
		t.Fatal("no line was wrapped")
	}
	for _, l := range lines(out) {
		if len(l) > 120 {
			t.Fatalf("a line of %d bytes is left unwrapped", len(l))
		}
	}
}

func sigquitEcho(t *testing.T, in, out []byte) {
	if !bytes.Equal(bytes.Replace(out, []byte(`^\SIGQUIT: quit`), []byte("SIGQUIT: quit"), 1), in) ||
		!regexp.MustCompile(`(?m)^\^\\SIGQUIT: quit`).Match(out) {
		t.Error(`output is not the dump with ^\ before its "SIGQUIT: quit" line`)
	}
}

func crlf(t *testing.T, in, out []byte) {
	if bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
		t.Fatal("a line ends without \\r\\n")
	}
	if !bytes.Equal(bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))) {
		t.Fatal("output differs from the dump in more than line ends")
	}
}

// grepped: groups of lines that are each a run of the dump's lines holding
// a match, in order, "--" only between groups with lines left out between
// them.
func grepped(t *testing.T, in, out []byte) {
	src := lines(in)
	matches := map[int]bool{}
	for _, m := range grepMatches(in) {
		matches[m] = true
	}
	var groups [][][]byte
	cur := [][]byte{}
	for _, l := range lines(out) {
		if string(l) == "--" {
			groups = append(groups, cur)
			cur = [][]byte{}
			continue
		}
		cur = append(cur, l)
	}
	groups = append(groups, cur)
	next := 0
	for gi, g := range groups {
		if len(g) == 0 {
			t.Fatalf("group %d is empty: \"--\" not between two groups", gi+1)
		}
		at := findRun(src, g, next)
		if at < 0 {
			t.Fatalf("group %d (starting %q) is not a run of the dump's lines after the previous group", gi+1, g[0])
		}
		if gi > 0 && at == next {
			t.Fatalf("group %d follows the previous one with no line left out, yet \"--\" separates them", gi+1)
		}
		hasMatch := false
		for i := range g {
			hasMatch = hasMatch || matches[at+i]
		}
		if !hasMatch {
			t.Fatalf("group %d has no matching line", gi+1)
		}
		next = at + len(g)
	}
	if len(lines(out)) >= len(src) {
		t.Fatal("grep left nothing out")
	}
}

// findRun returns the first index at or after from where run is a run of
// src, or -1.
func findRun(src, run [][]byte, from int) int {
	for i := from; i+len(run) <= len(src); i++ {
		ok := true
		for j := range run {
			if !bytes.Equal(src[i+j], run[j]) {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

func elided(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	i := 0
	for i < len(got) && i < len(want) && bytes.Equal(got[i], want[i]) {
		i++
	}
	if i == len(got) || !contains(ellipses, string(got[i])) {
		t.Fatalf("line %d %q: want the dump up to an ellipsis line", i+1, got[min(i, len(got)-1)])
	}
	rest := got[i+1:]
	if len(rest) >= len(want)-i {
		t.Fatal("no line was left out")
	}
	equalLines(t, "after the ellipsis", rest, want[len(want)-len(rest):])
}

func deadlockOnly(t *testing.T, in, out []byte) {
	body := bytes.TrimSuffix(out, []byte("\n"))
	if !bytes.HasPrefix(out, []byte("Found one Java-level deadlock:")) || !bytes.Contains(in, body) {
		t.Fatal("output is not a part of the dump starting at its deadlock report")
	}
	if !regexp.MustCompile(`(?m)^Java stack information for the threads listed above:`).Match(out) {
		t.Error("the threads' stacks of the deadlock report are missing")
	}
	if deadlockEnd.Match(in) && !regexp.MustCompile(`Found \d+ deadlocks?\.\r?$`).Match(body) {
		t.Errorf("output ends %q, not with the report's \"Found N deadlock(s).\"", tail(out))
	}
}

func htmlEscaped(t *testing.T, in, out []byte) {
	if bytes.ContainsAny(out, `<>"`) {
		t.Fatal("a <, > or \" is left unescaped")
	}
	if html.UnescapeString(string(out)) != string(in) {
		t.Fatal("unescaped, the output is not the dump")
	}
}

var lessByte = regexp.MustCompile(`<([0-9A-F]{2})>`)

func lessBytes(t *testing.T, in, out []byte) {
	for _, c := range out {
		if c >= 0x80 {
			t.Fatal("a byte that is not ASCII is left")
		}
	}
	back := lessByte.ReplaceAllFunc(out, func(m []byte) []byte {
		v, _ := strconv.ParseUint(string(m[1:3]), 16, 8)
		if v < 0x80 {
			return m
		}
		return []byte{byte(v)}
	})
	if !bytes.Equal(back, in) {
		t.Fatal("with <XX> read back, the output is not the dump")
	}
}

var listRe = regexp.MustCompile(`^(\d+)\. {1,2}`)

func markdownList(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	unescape := strings.NewReplacer(`\-`, "-", `\[`, "[", `\_`, "_", `\*`, "*")
	for i := range got {
		w := trimLeftSpace(want[i])
		if isBlank(w) {
			if len(got[i]) != 0 {
				t.Fatalf("blank line %d became %q", i+1, got[i])
			}
			continue
		}
		m := listRe.FindSubmatch(got[i])
		if m == nil || string(m[1]) != strconv.Itoa(i+1) {
			t.Fatalf("line %d %q is not numbered %d", i+1, got[i], i+1)
		}
		if body := unescape.Replace(string(got[i][len(m[0]):])); body != string(w) {
			t.Fatalf("line %d: %q, want %q", i+1, body, w)
		}
	}
}

func fromHeader(t *testing.T, in, out []byte) {
	if !bytes.HasSuffix(in, out) || len(out) >= len(in) {
		t.Fatal("output is not a shorter end of the dump")
	}
	first := lines(out)[0]
	if !goHeader.Match(first) && !debug1Head.Match(first) && !jvmHeader.Match(first) {
		t.Fatalf("output starts with %q, not a goroutine or thread header", first)
	}
	if start := len(in) - len(out); in[start-1] != '\n' {
		t.Fatal("the cut is not at a line start")
	}
}

func reversedLines(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[len(want)-1-i]) {
			t.Fatalf("line %d %q is not line %d of the dump %q", i+1, got[i], len(want)-i, want[len(want)-1-i])
		}
	}
}
