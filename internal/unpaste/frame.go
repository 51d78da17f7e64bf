package unpaste

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/stackdump/stackdump/internal/codec"
)

// Frame is what a paste put around and into the lines of a dump: the
// frame of a dump copied into a GitHub issue, a chat, a ticket or a log
// system and copied back out (docs/paste-forms.md lists the forms). It is
// learnt from the first lines of the input (Sniff), and the layer NewLines
// and Wrap put over an input's lines sets it aside line by line:
//
//   - Markdown fences (```, ```go, ````, ~~~, a fence glued to the first or
//     last line of the dump, a single backtick glued to both) and HTML
//     blocks (<details>, <summary>, <pre>) are not lines of the dump; a
//     closing one ends a paste region (codec.ErrRegionEnd), which a reader
//     judges as it judges the end of the input: a dump cut inside its
//     fence still reads as cut;
//   - "> " quoting (e-mail, Markdown, nested) is stripped from every line;
//   - a per-line prefix (journald, syslog, docker logs --timestamps,
//     GitHub Actions, kubectl logs --prefix, a viewer's line numbers, the
//     Java Service Wrapper) is stripped where a line carries it, and the
//     tail of it that a selection left on the first line ("3.6367390Z ");
//   - grep's "--" group separators are gaps (codec.ErrGap): lines were left out
//     there, which a reader says in a warning;
//   - a blank line after every line (some log viewers copy so) is undone;
//   - when prose stood before the dump, prose after a blank line after it
//     ends the paste region (chat text around a paste);
//   - what a logger or converter wrapped every line in (fields after it,
//     quotes around it, a numbered Markdown list) is undone first
//     (wrap.go);
//   - a paste whose lines come newest first is read from its last line up
//     (reversed.go).
//
// A Frame never makes a line of the dump disappear: every line it does not
// set aside is returned as read, stripped of its prefix and quotes only.
type Frame struct {
	// Quote is the depth of "> " quoting of the dump's lines.
	Quote int
	// Prefix is the per-line prefix of the dump's lines, if any.
	Prefix codec.LinePrefix
	// Doubled is set when a blank line follows every line of the dump.
	Doubled bool
	// Chat is set when prose stands before the dump: prose after it ends
	// the paste region.
	Chat bool
	// Inline is set when a single backtick is glued to the first line.
	Inline bool
	// Flat is set when the dump's indentation was removed (a ticket system
	// or a log pipeline trims lines): a Go frame's file line at column 0
	// is indented again.
	Flat bool
	// Padded is set when lines were padded with spaces to a terminal's
	// width (a copy out of tmux, screen, a pager): trailing spaces go.
	Padded bool
	// CRs is set when lines end with more than one '\r' (a CRLF file
	// converted to CRLF again): the extra ones go.
	CRs bool
	// HTML is set when the text was HTML-escaped (&quot; &lt; &gt; &amp;),
	// as copied out of a page's source: the escapes are undone.
	HTML bool
	// TestJSON is set when the text is go test -json's events: each
	// line's "Output" string is the line; other events are set aside.
	TestJSON bool
	// JSONField names the string field of a JSON log line that holds the
	// whole dump ("stacktrace"): its value is read as the lines.
	JSONField string
	// Quoted is set when every line is quoted at the end of a log line,
	// escaped (a log shipper's "pattern not match: \"...\""): the quoted
	// text is the line (wrap.go).
	Quoted bool
	// List is set when the dump was made a numbered Markdown list: the
	// numbers and the converter's escapes go.
	List bool
	// Suffix is the key=value fields a structured logger put after every
	// line (" function=… source=…"): they go.
	Suffix string
	// Reversed is set when the lines come newest first, as a log viewer
	// shows them: they are read from the last up (reversed.go).
	Reversed bool
	// Wrap is the width at which a window broke the long lines, the rest
	// at column 0: they are joined again (softwrap.go). WrapColumns
	// says whether it counts columns (a terminal) or bytes.
	Wrap        int
	WrapColumns bool

	// forms are the text forms the frame was learnt with: the soft wrap
	// asks them which lines start a dump.
	forms codec.Forms
}

// sniffLines bounds how many lines Sniff looks at before the first
// dump line, and after it.
const (
	sniffLinesBefore = 4096
	sniffLinesAfter  = 32
)

// Sniff learns the paste frame of an input from head, its first bytes (up
// to 64 KiB are enough), and returns nil when head shows none: a dump as
// the runtime wrote it, possibly with other text around it, is read as it
// is, at no cost. head is looked at up to the first line only a dump of
// one of forms has (codec.Form.Line: a goroutine header, a thread header,
// a profile header, `Full thread dump`) and a few lines after it.
func Sniff(head []byte, forms codec.Forms) *Frame {
	return sniffFrame(head, forms, true)
}

// sniffFrame is Sniff; wraps says whether a wrap of every line
// (sniffWrap) may be learnt, which is done once, before the rest.
func sniffFrame(head []byte, forms codec.Forms, wraps bool) *Frame {
	f := Frame{forms: forms}
	if wraps {
		if text := sniffWrap(head, &f); text != nil {
			inner := sniffFrame(text, forms, false)
			if inner == nil {
				if !hasDumpLine(text, forms) {
					return nil
				}
				inner = &Frame{forms: forms}
			}
			inner.Quoted, inner.List, inner.Suffix = f.Quoted, f.List, f.Suffix
			return inner
		}
	}
	if key, text := JSONLogDump(head, forms); key != "" {
		inner := Sniff(text, forms)
		if inner == nil {
			inner = &Frame{forms: forms}
		}
		inner.JSONField = key
		return inner
	}
	if IsTestJSON(head) {
		// go test -json: read on the Output of its events.
		var out []byte
		for len(head) > 0 {
			line := head
			if k := bytes.IndexByte(head, '\n'); k >= 0 {
				line, head = head[:k], head[k+1:]
			} else {
				head = nil
			}
			if text, ok := testJSONOutput(line); ok {
				out = append(append(out, text...), '\n')
			}
		}
		inner := Sniff(out, forms)
		if inner == nil {
			inner = &Frame{forms: forms}
		}
		inner.TestJSON = true
		return inner
	}
	if htmlEscaped(head) {
		head, f.HTML = unescapeHTML(head), true
	}
	all := head
	framed := false
	marker := -1   // index of the first dump line
	block := -1    // index of the first line that starts a block (a goroutine or thread header)
	markers := 0   // dump lines seen
	prose := false // prose before the first dump line
	first := true  // no line that is not blank yet
	var after [][]byte
	for i := 0; len(head) > 0; i++ {
		line := head
		if k := bytes.IndexByte(head, '\n'); k >= 0 {
			line, head = head[:k], head[k+1:]
		} else {
			head = nil
		}
		if marker < 0 && i >= sniffLinesBefore || block >= 0 && i > block+sniffLinesAfter ||
			marker >= 0 && block < 0 && i > marker+sniffLinesBefore {
			break
		}
		line = bytes.TrimRight(line, "\r")
		q, rest := cutQuotes(line, 8)
		t := bytes.TrimSpace(rest)
		glued, fence := fenceLine(t)
		if fence || isHTMLFrameLine(t) || string(t) == "--" {
			framed = true
			continue
		}
		if glued != nil {
			// ```goroutine 77 [running]: the fence glued to the first line.
			framed = true
			rest = glued
			t = bytes.TrimSpace(rest)
		}
		if first && len(t) > 1 && t[0] == '`' && t[1] != '`' {
			// `"http-nio-8080-exec-136 ..." #333526 daemon ...`: a
			// backtick glued to the first line and another to the last.
			f.Inline, framed = true, true
		}
		if len(t) > 0 {
			first = false
		}
		if marker >= 0 {
			after = append(after, rest)
		}
		k := -1
		if markers > 0 && forms.LineForm(rest) != "" || forms.StartForm(rest) != "" {
			k = 0
		} else if j, _ := forms.FindForm(rest); j > 0 {
			k = j
		}
		if k < 0 {
			if marker < 0 && isProse(t, true) {
				prose = true
			}
			continue
		}
		markers++
		if marker < 0 {
			marker = i
			f.Quote = q
		}
		if block < 0 && forms.BlockStart(bytes.TrimSpace(rest[k:])) != nil {
			// The lines after the first block's header show the frame: a
			// crash's preamble before it (a runtime diagnostic of a
			// thousand lines) does not.
			block = i
		}
		if q > 0 {
			framed = true
		}
		p := rest[:k]
		if n := len(p) - len(bytes.TrimLeft(p, "`")); n > 0 {
			// A backtick glued to the line: a frame, not a prefix.
			framed = true
			p = p[n:]
		}
		if len(bytes.Trim(p, " \t")) > 0 && !f.Prefix.Active() {
			f.Prefix.Set(p)
			framed = true
		}
	}
	if marker < 0 {
		return nil
	}
	if hasGrepSeparator(all) {
		framed = true // grep's group separators, further down
	}
	if f.Prefix.Active() {
		widenPrefix(&f.Prefix, after)
	}
	if doubled(after, &f.Prefix, forms) {
		f.Doubled, framed = true, true
	}
	if flattened(after, &f.Prefix) {
		f.Flat, framed = true, true
	}
	if padded(after) {
		f.Padded, framed = true, true
	}
	if bytes.IndexByte(all, '\r') >= 0 && bytes.Count(all, []byte("\r\r\n")) > bytes.Count(all, []byte("\n"))/2 {
		f.CRs, framed = true, true
	}
	if f.HTML {
		framed = true
	}
	if prose {
		f.Chat, framed = true, true
	}
	if sniffReversed(all, &f, forms) {
		f.Reversed, framed = true, true
	}
	if w, cols := sniffSoftWrap(all, &f); w > 0 {
		f.Wrap, f.WrapColumns, framed = w, cols, true
	}
	if !framed {
		return nil
	}
	return &f
}

// widenPrefix makes p the prefix of the lines after the dump's first line
// when p, learnt from that line, is only the tail of it: the selection
// started inside the first line's time stamp ("45Z goroutine 1
// [running]:" above "2024-11-18T12:47:35.6980450Z runtime/pprof…").
func widenPrefix(p *codec.LinePrefix, after [][]byte) {
	var next []byte
	for _, l := range after {
		if len(bytes.TrimSpace(l)) > 0 {
			next = l
			break
		}
	}
	if next == nil || p.Match(next) > 0 {
		return
	}
	first := p.Text()
	for s := 1; s < min(len(next), 160); s++ {
		n := p.Match(next[s:]) // a prefix learnt here holds more than blanks: a shape
		if n == 0 {
			continue
		}
		var wide codec.LinePrefix
		wide.Set(next[:s+n])
		if wide.MatchTail(first) == len(first) {
			*p = wide
		}
		return
	}
}

// hasGrepSeparator reports whether head holds a line "--" (grep's group
// separator), ended by "\n" or "\r\n", after its first line. It looks
// for the '-', rarer in a dump than the '\n' before it.
func hasGrepSeparator(head []byte) bool {
	for i := 1; i < len(head); {
		k := bytes.IndexByte(head[i:], '-')
		if k < 0 {
			return false
		}
		i += k
		rest := head[i:]
		if head[i-1] == '\n' && (bytes.HasPrefix(rest, []byte("--\n")) || bytes.HasPrefix(rest, []byte("--\r\n"))) {
			return true
		}
		i++
	}
	return false
}

// padded reports whether lines after a dump's first line, blank ones too,
// end with spaces: a copy out of a terminal's screen padded each to its
// width (longer ones with a few spaces). A dump has lines that end with a
// space (some JVM thread headers) but never most of them, nor blank ones.
func padded(lines [][]byte) bool {
	n := 0
	for _, l := range lines {
		if l = bytes.TrimSuffix(l, []byte("\r")); len(l) > 0 && l[len(l)-1] == ' ' {
			n++
		}
	}
	return n >= 2 && n*4 >= len(lines)*3
}

// htmlEscaped reports whether head is HTML-escaped text: it holds the
// escapes of quotes or angle brackets and none of those characters raw.
func htmlEscaped(head []byte) bool {
	if bytes.IndexByte(head, '&') < 0 {
		return false // one pass over the head in the common case, not three
	}
	if !bytes.Contains(head, []byte("&quot;")) && !bytes.Contains(head, []byte("&lt;")) && !bytes.Contains(head, []byte("&gt;")) {
		return false
	}
	return bytes.IndexAny(head, "\"<>") < 0
}

// unescapeHTML undoes the escapes of &, <, >, " and ' in b (a copy when it
// holds one).
func unescapeHTML(b []byte) []byte {
	if bytes.IndexByte(b, '&') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '&' {
			matched := false
			for _, e := range htmlEntities {
				if bytes.HasPrefix(b[i:], []byte(e[0])) {
					out = append(out, e[1]...)
					i += len(e[0]) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

var htmlEntities = [][2]string{{"&quot;", `"`}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&#34;", `"`}, {"&amp;", "&"}}

// flattened reports whether the lines after a dump's first line lost their
// indentation: none is indented, and some are a Go frame's file line.
func flattened(lines [][]byte, p *codec.LinePrefix) bool {
	files := 0
	for _, l := range lines {
		l = p.Strip(l)
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			return false
		}
		if isGoFileLine(l) {
			files++
		}
	}
	return files > 0
}

// isGoFileLine reports whether t, without its indentation, is the file
// line of a Go frame: `path/file.go:123`, with a `+0x…` offset and
// `fp= sp= pc=` values after it or not.
func isGoFileLine(t []byte) bool {
	if len(t) == 0 || t[0] == '#' || bytes.IndexByte(t, '\t') >= 0 {
		return false // a debug=1 frame, or fields
	}
	for {
		sp := bytes.LastIndexByte(t, ' ')
		if sp < 0 {
			break
		}
		tok := t[sp+1:]
		if !(bytes.HasPrefix(tok, []byte("+0x")) || bytes.HasPrefix(tok, []byte("fp=")) ||
			bytes.HasPrefix(tok, []byte("sp=")) || bytes.HasPrefix(tok, []byte("pc="))) {
			break
		}
		t = t[:sp]
	}
	colon := bytes.LastIndexByte(t, ':')
	if colon <= 0 || colon == len(t)-1 || codec.Digits(t[colon+1:]) != len(t)-colon-1 {
		return false
	}
	// A source file's name: an extension of a few letters (.go, .s,
	// .c, .goc), after a path without spaces.
	file := t[:colon]
	dot := bytes.LastIndexByte(file, '.')
	if dot < 0 || len(file)-dot-1 < 1 || len(file)-dot-1 > 4 || bytes.IndexByte(file, ' ') >= 0 {
		return false
	}
	for _, c := range file[dot+1:] {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

// doubled reports whether the lines after a dump's first line (with their
// prefix) alternate with blank lines: a blank line after every line.
func doubled(lines [][]byte, p *codec.LinePrefix, forms codec.Forms) bool {
	blanks, pairs, inner := 0, 0, 0
	prev := false // the line before was not blank
	for _, l := range lines {
		t := bytes.TrimSpace(p.Strip(l))
		nonBlank := len(t) > 0
		if !nonBlank {
			blanks++
		} else if forms.LineForm(t) == "" {
			inner++ // a frame or a state line, not a header
		}
		if nonBlank && prev {
			pairs++
		}
		prev = nonBlank
	}
	// Routines of a header alone, each followed by a blank line, are no
	// doubling: a doubled dump has a line between two headers.
	return pairs == 0 && blanks >= 2 && len(lines)-blanks >= 2 && inner > 0
}

// cutQuotes strips up to max levels of "> " quoting from line: each a '>'
// and one optional space after it. It returns the levels stripped.
func cutQuotes(line []byte, max int) (int, []byte) {
	n := 0
	for n < max && len(line) > 0 && line[0] == '>' {
		line = line[1:]
		if len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		n++
	}
	return n, line
}

// fenceLine reports whether t, a line without its surrounding blanks, is a
// Markdown fence line: three or more backticks or tildes and an optional
// language tag (```go, ```console, ````). glued is the text after the
// fence when it is no language tag: the first line of the dump glued to
// the fence (```goroutine 77 [running]:); ok is false then.
func fenceLine(t []byte) (glued []byte, ok bool) {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return nil, false
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return nil, false
	}
	info := bytes.TrimSpace(t[n:])
	if isLanguageTag(info) {
		return nil, true
	}
	return t[n:], false
}

// isLanguageTag reports whether info is empty or a fence's language tag:
// a word of letters, digits and + # . _ - starting with a letter.
func isLanguageTag(info []byte) bool {
	if len(info) == 0 {
		return true
	}
	if !isLetter(info[0]) {
		return false
	}
	for _, c := range info {
		if !isLetter(c) && !isDigit(c) && c != '+' && c != '#' && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// htmlFrameTags open or close the HTML blocks a paste is put in.
var htmlFrameTags = []string{"<details", "</details", "<summary", "</summary", "<pre", "</pre", "<br", "<code", "</code", "<p>", "</p>"}

// isHTMLFrameLine reports whether t starts with one of the HTML tags a
// paste is put in (<details>, <summary>, <pre>, ...).
func isHTMLFrameLine(t []byte) bool {
	if len(t) < 3 || t[0] != '<' {
		return false
	}
	for _, tag := range htmlFrameTags {
		if len(t) >= len(tag) && string(t[:len(tag)]) == tag {
			return true
		}
	}
	return false
}

// htmlCloses reports whether an HTML frame line closes a block the dump
// was in: it ends with a closing tag.
func htmlCloses(t []byte) bool {
	return bytes.HasPrefix(t, []byte("</")) || bytes.HasSuffix(t, []byte("</details>")) || bytes.HasSuffix(t, []byte("</pre>"))
}

// isProse reports whether t, a line without its surrounding blanks, is a
// sentence or a Markdown heading a person wrote, which no dump holds: it
// starts with a capital letter (or '#'), has three words or more (two for
// a heading) and a lower-case letter, and holds no digit and none of the
// characters dump lines are made of ( ( ) [ ] { } < > = @ / \ " $ | * _
// and tabs). A line that ends with ':' is prose only when before is set
// (a sentence introducing the dump): after a dump, "Found one Java-level
// deadlock:" and "Java stack information for the threads listed above:"
// are dump lines that look so.
func isProse(t []byte, before bool) bool {
	if len(t) < 8 || !(t[0] >= 'A' && t[0] <= 'Z' || t[0] == '#') {
		return false
	}
	heading := t[0] == '#'
	words, lower := 1, false
	for i, c := range t {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			return false
		case c == ' ':
			if i > 0 && t[i-1] != ' ' {
				words++
			}
		}
		switch c {
		case '(', ')', '[', ']', '{', '}', '<', '>', '=', '@', '/', '\\', '"', '$', '|', '*', '_', '\t', '`':
			return false
		}
	}
	if !lower || words < 3 && !(heading && words >= 2) {
		return false
	}
	if t[len(t)-1] == ':' {
		return before
	}
	return true
}

// Strip returns line without the quotes and the prefix of the frame, as
// far as a line on its own tells them (for sniffing a pasted input's
// format).
func (f *Frame) Strip(line []byte) []byte {
	if f.TestJSON {
		text, _ := testJSONOutput(line)
		line = text
	}
	line = f.unwrap(line)
	line = bytes.TrimRight(line, "\r")
	_, line = cutQuotes(line, f.Quote)
	if f.HTML {
		line = unescapeHTML(line)
	}
	if glued, ok := fenceLine(bytes.TrimSpace(line)); !ok && glued != nil {
		line = glued
	}
	line = bytes.TrimLeft(line, "`")
	return f.Prefix.Strip(line)
}

// IsTestJSON reports whether head starts with an event of go test -json
// ({"Time":…,"Action":…}).
func IsTestJSON(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	return bytes.HasPrefix(t, []byte(`{"Time":"`)) && bytes.Contains(t, []byte(`"Action":"`))
}

// testJSONOutput returns the text of the "Output" string of a go test
// -json event, without its final newline; ok is false for an event
// without one (run, pass, fail) or a line that is no event.
func testJSONOutput(line []byte) (text []byte, ok bool) {
	i := bytes.Index(line, []byte(`"Output":"`))
	if i < 0 || len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	out, ok := jsonString(line[i+len(`"Output":"`):])
	if !ok {
		return nil, false
	}
	return bytes.TrimSuffix(bytes.TrimSuffix(out, []byte("\n")), []byte("\r")), true
}

// JSONLogDump looks at the first line of head for a JSON log line with a
// dump of one of forms in one of its string fields (a structured logger's
// "stacktrace": "goroutine 1 [running]:\n…") and returns the field's name
// and its text, or "" and nil.
func JSONLogDump(head []byte, forms codec.Forms) (key string, text []byte) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if i := bytes.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	if len(t) == 0 || t[0] != '{' {
		return "", nil
	}
	for from := 0; ; {
		i := bytes.Index(t[from:], []byte(`":"`))
		if i < 0 {
			return "", nil
		}
		i += from
		k := bytes.LastIndexByte(t[:i], '"')
		value, _ := jsonString(t[i+3:])
		if k >= 0 && bytes.IndexByte(value, '\n') >= 0 {
			for _, l := range bytes.Split(value, []byte("\n")) {
				if forms.StartForm(l) != "" {
					return string(t[k+1 : i]), value
				}
			}
		}
		from = i + 3
	}
}

// jsonFieldLines returns the text of the string field key of the JSON
// object line, split into lines; ok is false when line holds no such
// field.
func jsonFieldLines(line []byte, key string) (lines [][]byte, ok bool) {
	i := bytes.Index(line, []byte(`"`+key+`":"`))
	if i < 0 || len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	value, ok := jsonString(line[i+len(key)+4:])
	if !ok {
		return nil, false
	}
	value = bytes.TrimSuffix(value, []byte("\n"))
	lines = bytes.Split(value, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines, true
}

// jsonString decodes the JSON string that s starts with (after its
// opening quote) up to its closing quote.
func jsonString(s []byte) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c == '"' {
			return out, true
		}
		if c != '\\' || j+1 == len(s) {
			out = append(out, c)
			continue
		}
		j++
		switch s[j] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'u':
			if j+4 < len(s) {
				if v, err := strconv.ParseUint(string(s[j+1:j+5]), 16, 32); err == nil {
					out = utf8.AppendRune(out, rune(v))
					j += 4
					continue
				}
			}
			out = append(out, 'u')
		default: // \" \\ \/
			out = append(out, s[j])
		}
	}
	return out, false
}
