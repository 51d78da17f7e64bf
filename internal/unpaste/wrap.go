package unpaste

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/stackdump/stackdump/internal/codec"
)

// A paste can wrap every line of a dump in something a logger or a
// converter added around it, beyond a prefix:
//
//   - fields after it: a structured logger that logged each line as its
//     own message ("info 2024-01-23T17:54:31Z goroutine 1 [running]:
//     function=main.logWriter.Write source=debug.go:17");
//   - quotes around it: a log shipper's warning for each line it could not
//     parse, the line quoted and escaped (`2024-03-17 23:31:38 +0000
//     [warn]: pattern not match: "\tmain.go:12 +0x1d"`);
//   - a numbered Markdown list: an HTML-to-Markdown converter's
//     "4.  goroutine 1 \[running]:", escapes added, indentation gone.
//
// These are learnt from the head of the input before the rest of the
// frame (sniffWrap), and undone first on every line (Frame.unwrap).

// wrapSample bounds how many lines of the head a wrap is learnt from.
const wrapSample = 64

// wrapMinLines is how many lines must show a wrap before it is learnt.
const wrapMinLines = 3

// sniffWrap learns the wrap of every line of head, and returns head with
// it undone (nil when head shows none).
func sniffWrap(head []byte, f *Frame) []byte {
	lines := headLines(head, wrapSample)
	switch {
	case quotedLines(lines):
		f.Quoted = true
	case listLines(lines):
		f.List = true
	default:
		suffix := fieldSuffix(lines)
		if suffix == "" {
			return nil
		}
		f.Suffix = suffix
	}
	var out []byte
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		out = append(append(out, f.unwrap(line)...), '\n')
	}
	return out
}

// unwrap undoes on line the wrap sniffWrap learnt. A line that does not
// carry it is returned as it is.
func (f *Frame) unwrap(line []byte) []byte {
	switch {
	case f.Quoted:
		if text, ok := quotedText(line); ok {
			return bytes.TrimSuffix(text, []byte("\r")) // the dump's CRLF, quoted
		}
	case f.List:
		if n := listItem(line); n > 0 {
			return markdownUnescape(line[n:])
		}
	case f.Suffix != "":
		t := bytes.TrimSuffix(line, []byte("\r"))
		cut, ok := bytes.CutSuffix(t, []byte(f.Suffix))
		if !ok {
			// A logger that trims its message's trailing spaces.
			cut, ok = bytes.CutSuffix(t, bytes.TrimRight([]byte(f.Suffix), " "))
		}
		if ok {
			return bytes.TrimSuffix(cut, []byte("\r")) // the dump's CRLF, before the fields
		}
	}
	return line
}

// headLines returns up to max lines of head that are not blank, without
// their '\r'.
func headLines(head []byte, max int) [][]byte {
	var lines [][]byte
	for len(head) > 0 && len(lines) < max {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// fieldSuffix returns the key=value fields every line of lines ends with
// (from the space before the first key), or "".
func fieldSuffix(lines [][]byte) string {
	if len(lines) < wrapMinLines {
		return ""
	}
	common := lines[0]
	for _, l := range lines[1:] {
		n := 0
		for n < len(common) && n < len(l) && common[len(common)-1-n] == l[len(l)-1-n] {
			n++
		}
		common = common[len(common)-n:]
		if len(common) < len(" k=v") {
			return ""
		}
	}
	// The suffix starts at a field: " key=" with a key of letters, digits,
	// '_', '.' and '-'.
	for i := 0; i < len(common); i++ {
		if common[i] != ' ' {
			continue
		}
		if k := fieldKey(common[i+1:]); k > 0 && i+1+k < len(common) && common[i+1+k] == '=' {
			return string(common[i:])
		}
	}
	return ""
}

// fieldKey returns the length of the logfmt key that starts b.
func fieldKey(b []byte) int {
	n := 0
	for n < len(b) {
		c := b[n]
		if isLetter(c) || c == '_' || n > 0 && (isDigit(c) || c == '.' || c == '-') {
			n++
			continue
		}
		break
	}
	return n
}

// quotedLines reports whether nearly every line of lines is a log line
// that quotes the text it carries at its end, after a prefix of one shape
// (the same but for its digits).
func quotedLines(lines [][]byte) bool {
	if len(lines) < wrapMinLines {
		return false
	}
	var shape []byte
	n := 0
	for _, l := range lines {
		q := bytes.IndexByte(l, '"')
		t := bytes.TrimRight(l, " ")
		if q <= 0 || len(t) < q+2 || t[len(t)-1] != '"' {
			continue
		}
		s := digitShape(l[:q])
		if shape == nil {
			shape = s
		} else if !bytes.Equal(s, shape) {
			continue
		}
		n++
	}
	return n >= wrapMinLines && n*10 >= len(lines)*9
}

// digitShape returns p with every run of digits as one '0'.
func digitShape(p []byte) []byte {
	s := make([]byte, 0, len(p))
	for i, c := range p {
		if isDigit(c) {
			if i > 0 && isDigit(p[i-1]) {
				continue
			}
			c = '0'
		}
		s = append(s, c)
	}
	return s
}

// quotedText returns the text a quoted log line carries: what stands
// between its first '"' and its last, unescaped (\t, \", \\, \r, \n, \e,
// \xHH, \uHHHH).
func quotedText(line []byte) ([]byte, bool) {
	t := bytes.TrimRight(bytes.TrimSuffix(line, []byte("\r")), " ")
	q := bytes.IndexByte(t, '"')
	if q < 0 || len(t) < q+2 || t[len(t)-1] != '"' {
		return nil, false
	}
	in := t[q+1 : len(t)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in, true
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 == len(in) {
			out = append(out, c)
			continue
		}
		i++
		switch e := in[i]; e {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 'e':
			out = append(out, 0x1b)
		case 'x':
			if v, err := strconv.ParseUint(string(in[i+1:min(i+3, len(in))]), 16, 8); err == nil && i+2 < len(in) {
				out = append(out, byte(v))
				i += 2
			} else {
				out = append(out, '\\', e)
			}
		case 'u':
			if v, err := strconv.ParseUint(string(in[i+1:min(i+5, len(in))]), 16, 32); err == nil && i+4 < len(in) {
				out = utf8.AppendRune(out, rune(v))
				i += 4
			} else {
				out = append(out, '\\', e)
			}
		default:
			out = append(out, e) // \" \\ and any other escaped byte
		}
	}
	return out, true
}

// listLines reports whether nearly every line of lines is an item of one
// numbered Markdown list, the numbers rising.
func listLines(lines [][]byte) bool {
	if len(lines) < wrapMinLines {
		return false
	}
	n, last := 0, -1
	for _, l := range lines {
		k := listItem(l)
		if k == 0 {
			continue
		}
		v, _ := strconv.Atoi(string(l[:bytes.IndexByte(l, '.')]))
		if v <= last {
			return false
		}
		last = v
		n++
	}
	return n*10 >= len(lines)*9
}

// listItem returns the length of the "12.  " that starts a numbered
// Markdown list item, or 0.
func listItem(l []byte) int {
	i := 0
	for i < len(l) && i < 7 && isDigit(l[i]) {
		i++
	}
	if i == 0 || i+1 >= len(l) || l[i] != '.' || l[i+1] != ' ' {
		return 0
	}
	j := i + 1
	for j < len(l) && j < i+4 && l[j] == ' ' {
		j++
	}
	return j
}

// markdownUnescape drops the backslash a Markdown converter put before
// ASCII punctuation.
func markdownUnescape(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) && bytes.IndexByte([]byte("\\`*_{}[]()#+-.!<>|~"), b[i+1]) >= 0 {
			i++
		}
		out = append(out, b[i])
	}
	return out
}

// hasDumpLine reports whether a line of text is one only a dump of one of
// forms has.
func hasDumpLine(text []byte, forms codec.Forms) bool {
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte("\n"))
		if forms.StartForm(line) != "" {
			return true
		}
		if k, _ := forms.FindForm(line); k > 0 {
			return true
		}
	}
	return false
}
