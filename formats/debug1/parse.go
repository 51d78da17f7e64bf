package debug1

import (
	"bytes"
	"errors"
	"github.com/stackdump/stackdump/stack"
	"strconv"
)

// The line forms of a debug=1 count profile, as printed by runtime/pprof's
// printCountProfile and printStackRecord through a text/tabwriter that pads
// with tabs, so fields are separated by one or more '\t':
//
//	goroutine profile: total 11                       header
//	1 @ 0x48210e 0x416219 0x513fdd 0x488a81           record
//	# labels: {"svc":"users", "weird key":"a\"b\nc"}  labels (optional)
//	#	0x513fdc	main.blockForever+0x1c	/src/main.go:32   frame
//	#	0x4a3b2c                                           frame without symbol
//	                                                  blank line ends the record

// debug1Header is a parsed `<name> profile: total N` line.
type debug1Header struct {
	name  string // "goroutine", "goroutineleak", "threadcreate"
	total int64
}

// parseDebug1Header parses a profile header line. Leading blanks are
// allowed (the line may be indented in a log).
//
// Example input: "goroutine profile: total 11"
// Example output: debug1Header{name: "goroutine", total: 11}, true
func parseDebug1Header(line []byte) (debug1Header, bool) {
	line = bytes.TrimLeft(line, " \t")
	name, rest, ok := bytes.Cut(line, []byte(" profile: total "))
	if !ok || len(name) == 0 || !isWord(name) {
		return debug1Header{}, false
	}
	total, err := strconv.ParseInt(string(bytes.TrimRight(rest, " \t")), 10, 64)
	if err != nil || total < 0 {
		return debug1Header{}, false
	}
	return debug1Header{name: string(name), total: total}, true
}

// isWord reports whether b is made of letters, digits and '_' only, like
// the \w+ profile name the sniffer matches.
func isWord(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseDebug1Record parses a record line `COUNT @ PC PC …` and returns the
// count, at least 1. The return PCs are checked but not kept: the frame
// lines carry the PCs of the frames that are printed.
//
// Example input: "1 @ 0x48210e 0x416219 0x488a81"
// Example output: 1, true
func parseDebug1Record(line []byte) (count int64, ok bool) {
	line = bytes.TrimLeft(line, " \t")
	num, rest, found := bytes.Cut(line, []byte(" @"))
	if !found || len(num) == 0 {
		return 0, false
	}
	count, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || count < 1 {
		return 0, false
	}
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return 0, false
	}
	for rest = bytes.TrimLeft(rest, " \t"); len(rest) > 0; rest = bytes.TrimLeft(rest, " \t") {
		end := bytes.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		if _, err := parseHex(rest[:end]); err != nil {
			return 0, false
		}
		rest = rest[end:]
	}
	return count, true
}

// parseHex parses "0x1f" (the prefix is required).
func parseHex(b []byte) (uint64, error) {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(string(b[2:]), 16, 64)
}

// parseDebug1Labels parses the text after "# labels: ": Go-quoted
// "key":"value" pairs between braces, separated by ", ". The pairs are
// appended to ls.
//
// Example input: `{"svc":"users", "weird key":"a\"b\nc"}`
// Example output: Labels{{"svc", "users"}, {"weird key", "a\"b\nc"}}, nil
func parseDebug1Labels(ls stack.Labels, text []byte) (stack.Labels, error) {
	s := string(bytes.TrimSpace(text))
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return ls, errDebug1Labels
	}
	s = s[1 : len(s)-1]
	for s = trimBlank(s); s != ""; s = trimBlank(s) {
		key, rest, err := unquotePrefix(s)
		if err != nil {
			return ls, err
		}
		rest = trimBlank(rest)
		if rest == "" || rest[0] != ':' {
			return ls, errDebug1Labels
		}
		value, rest, err := unquotePrefix(trimBlank(rest[1:]))
		if err != nil {
			return ls, err
		}
		ls = append(ls, stack.Label{Key: key, Value: value})
		rest = trimBlank(rest)
		if rest != "" {
			if rest[0] != ',' {
				return ls, errDebug1Labels
			}
			rest = rest[1:]
		}
		s = rest
	}
	return ls, nil
}

// unquotePrefix unquotes the Go-quoted string at the start of s and returns
// the rest.
func unquotePrefix(s string) (value, rest string, err error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, errDebug1Labels
	}
	value, err = strconv.Unquote(q)
	if err != nil {
		return "", s, errDebug1Labels
	}
	return value, s[len(q):], nil
}

func trimBlank(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// debug1Frame is a parsed frame line.
type debug1Frame struct {
	pc        uint64
	fn        []byte // empty for a frame without symbol
	offset    uint64
	hasOffset bool
	file      []byte
	line      int
	noFile    bool // a symbol without file:line (not printed by the runtime)
	noLine    bool // a file without its :line (a line cut short)
}

// parseDebug1Frame parses a frame line after its leading '#'. Fields are
// separated by runs of tabs (text/tabwriter padding); runs of spaces (and
// stray carriage returns) are accepted too, for dumps that went through a
// terminal or an editor. A
// function name may contain spaces (generic shapes such as
// "go.shape.struct { A int }"), so the function ends at its "+0x…" offset,
// not at the first blank.
//
// Example input: "\t0x513fdc\tmain.blockForever+0x1c\t/src/main.go:32"
// Example output: debug1Frame{pc: 0x513fdc, fn: "main.blockForever", offset: 0x1c, file: "/src/main.go", line: 32}
//
// Example input: "\t0x4a3b2c"
// Example output: debug1Frame{pc: 0x4a3b2c}
func parseDebug1Frame(rest []byte) (debug1Frame, error) {
	var f debug1Frame
	rest = bytes.TrimLeft(rest, " \t\r")
	end := bytes.IndexAny(rest, " \t\r")
	if end < 0 {
		end = len(rest)
	}
	pc, err := parseHex(rest[:end])
	if err != nil {
		return f, errDebug1PC
	}
	f.pc = pc
	rest = bytes.Trim(rest[end:], " \t\r")
	if len(rest) == 0 {
		return f, nil
	}
	fn, off, after, ok := cutFuncOffset(rest)
	if ok {
		f.fn, f.offset, f.hasOffset = fn, off, true
	} else if i := bytes.IndexByte(rest, '\t'); i >= 0 {
		f.fn, after = rest[:i], rest[i:]
	} else {
		f.fn, after = rest, nil
	}
	if len(f.fn) == 0 {
		return f, errDebug1Frame
	}
	after = bytes.Trim(after, " \t\r")
	if len(after) == 0 {
		f.noFile = true
		return f, nil
	}
	f.file, f.line, f.noLine = after, 0, true
	if i := bytes.LastIndexByte(after, ':'); i >= 0 {
		if n, err := strconv.Atoi(string(after[i+1:])); err == nil && n >= 0 {
			f.file, f.line, f.noLine = after[:i], n, false
		}
	}
	return f, nil
}

// cutFuncOffset finds the "+0xHEX" offset that ends the function name, at
// least one byte into s, and splits s around it. The runtime writes a tab
// after the offset, so the first offset followed by a tab or the end of s
// is taken; only without one (tabs turned into spaces by a terminal or an
// editor) is the first followed by a space. A name that holds "+0xHEX "
// itself therefore reads back as written.
//
// Example input: "main.F[go.shape.struct { A int }]+0x1c\t/src/main.go:32"
// Example output: "main.F[go.shape.struct { A int }]", 0x1c, "\t/src/main.go:32", true
func cutFuncOffset(s []byte) (fn []byte, off uint64, rest []byte, ok bool) {
	if fn, off, rest, ok = cutFuncOffsetBefore(s, '\t'); ok {
		return fn, off, rest, ok
	}
	return cutFuncOffsetBefore(s, ' ')
}

// cutFuncOffsetBefore is cutFuncOffset for an offset followed by blank or
// the end of s.
func cutFuncOffsetBefore(s []byte, blank byte) (fn []byte, off uint64, rest []byte, ok bool) {
	from := 0
	for {
		i := bytes.Index(s[from:], []byte("+0x"))
		if i < 0 {
			return nil, 0, s, false
		}
		i += from
		j := i + 3
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if i > 0 && j > i+3 && (j == len(s) || s[j] == blank) {
			v, err := strconv.ParseUint(string(s[i+3:j]), 16, 64)
			if err == nil {
				return s[:i], v, s[j:], true
			}
		}
		from = i + 3
	}
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// The causes of a debug=1 reader's ParseErrors (debug1_parse.go).
var (
	errDebug1Labels = errors.New(`want {"key":"value", …}`)
	errDebug1PC     = errors.New("frame line without a 0x PC")
	errDebug1Frame  = errors.New("frame line without function")
)
