package gotext

import (
	"bytes"
	"unsafe"
)

// This file holds the parsers of single traceback lines. They work on the
// []byte of one line (without its terminator), never allocate, and say
// whether the line has the form; the state machine in gotext.go decides
// what a line means where it stands.

// goHeader is a parsed `goroutine N [...]:` line. State and the label text
// point into the line.
type goHeader struct {
	ID          int64
	GP, MP      uint64
	M           int64
	HasGP       bool
	State       []byte
	WaitMinutes int
	Locked      bool
	Leaked      bool
	Durable     bool
	Scan        bool
	Bubble      int64
	// Labels is the text between the braces of `labels:{…}` (Go 1.26) or
	// `] {…}` (Go 1.27), nil when there is none.
	Labels []byte
	// LabelsQuoted is set for the Go 1.26 form, where keys and values are
	// always quoted.
	LabelsQuoted bool
}

// parseHeader parses a goroutine header:
//
//	goroutine 1 [running]:
//	goroutine 2 gp=0xc000006700 m=nil [force gc (idle)]:
//	goroutine 1 gp=0xc0000061c0 m=5 mp=0xc00008b008 [running]:
//	goroutine 4 [sleep, 1 minutes, locked to thread]:
//	goroutine 22 [chan receive (durable), synctest bubble 1]:
//	goroutine 17 [sleep labels:{"svc": "users"}]:   (Go 1.26)
//	goroutine 33 [sleep] {svc: users, "k": "a]b"}:  (Go 1.27)
//
// The bracket's end is found respecting quoted label values, which may
// hold `]`. It reports false when line is not a header.
func parseHeader(line []byte, h *goHeader) bool {
	const pfx = "goroutine "
	if len(line) < len(pfx)+4 || string(line[:len(pfx)]) != pfx {
		return false
	}
	*h = goHeader{}
	i := len(pfx)
	id, n := scanUint(line[i:])
	if n == 0 || i+n >= len(line) || line[i+n] != ' ' {
		return false
	}
	h.ID = int64(id)
	i += n + 1
	if bytes.HasPrefix(line[i:], []byte("gp=")) {
		j, ok := parseGP(line, i, h)
		if !ok {
			return false
		}
		i = j
	}
	if i >= len(line) || line[i] != '[' {
		return false
	}
	open := i
	end, labels, quoted, ok := headerEnd(line, open+1)
	if !ok {
		return false
	}
	h.Labels, h.LabelsQuoted = labels, quoted
	content := line[open+1 : end]
	if len(content) > 0 && content[len(content)-1] == '}' {
		if k := bytes.Index(content, []byte(" labels:{")); k >= 0 {
			h.Labels, h.LabelsQuoted = content[k+len(" labels:{"):len(content)-1], true
			content = content[:k]
		}
	}
	h.State = stripHeaderSuffixes(content, h)
	return true
}

// parseGP parses ` gp=0x… m=N mp=0x… ` or `gp=0x… m=nil ` starting at
// line[i] ("gp=") and returns the index of the '[' that follows.
func parseGP(line []byte, i int, h *goHeader) (int, bool) {
	gp, n := scanHexPrefixed(line[i+len("gp="):])
	if n == 0 {
		return 0, false
	}
	i += len("gp=") + n
	if !bytes.HasPrefix(line[i:], []byte(" m=")) {
		return 0, false
	}
	i += len(" m=")
	h.HasGP, h.GP = true, gp
	if bytes.HasPrefix(line[i:], []byte("nil")) {
		h.M = -1
		i += len("nil")
	} else {
		m, n := scanUint(line[i:])
		if n == 0 {
			return 0, false
		}
		h.M = int64(m)
		i += n
	}
	if bytes.HasPrefix(line[i:], []byte(" mp=")) {
		mp, n := scanHexPrefixed(line[i+len(" mp="):])
		if n == 0 {
			return 0, false
		}
		h.MP = mp
		i += len(" mp=") + n
	}
	if i >= len(line) || line[i] != ' ' {
		return 0, false
	}
	return i + 1, true
}

// headerEnd finds the ']' that closes a header's bracket opened before
// line[from]: the first one outside quotes followed by ':' (and only
// spaces), or by ` {…}:` (Go 1.27 labels, returned without the braces).
func headerEnd(line []byte, from int) (end int, labels []byte, quoted, ok bool) {
	if i := bytes.IndexByte(line[from:], ']') + from; i >= from && bytes.IndexByte(line[from:i], '"') < 0 {
		// No quote before the first ']': the loop below would come
		// straight to it. Most headers end there.
		if rest := line[i+1:]; len(rest) > 0 && rest[0] == ':' && isBlankLine(rest[1:]) {
			return i, nil, false, true
		}
	}
	for i := from; i < len(line); i++ {
		switch line[i] {
		case '"':
			i = skipQuoted(line, i)
		case ']':
			rest := line[i+1:]
			if len(rest) > 0 && rest[0] == ':' && isBlankLine(rest[1:]) {
				return i, nil, false, true
			}
			if len(rest) > 2 && rest[0] == ' ' && rest[1] == '{' {
				if close := labelsEnd(rest, 2); close > 0 && close+1 < len(rest) && rest[close+1] == ':' && isBlankLine(rest[close+2:]) {
					return i, rest[2:close], false, true
				}
			}
		}
	}
	return 0, nil, false, false
}

// labelsEnd returns the index of the '}' closing a label set whose text
// starts at b[from], skipping quoted strings; -1 when there is none.
func labelsEnd(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipQuoted(b, i)
		case '}':
			return i
		}
	}
	return -1
}

// skipQuoted returns the index of the '"' closing the string opened at
// b[i], honouring backslash escapes; len(b) when it is not closed.
func skipQuoted(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// stripHeaderSuffixes removes the suffixes goroutineheader appends to the
// status, in any order, into h, and returns the status left:
// " (leaked)", " (scan)", " (durable)", ", N minutes", ", locked to
// thread", ", synctest bubble N".
func stripHeaderSuffixes(s []byte, h *goHeader) []byte {
	for len(s) > 0 {
		switch s[len(s)-1] {
		case ')':
			switch {
			case bytes.HasSuffix(s, []byte(" (durable)")):
				h.Durable = true
				s = s[:len(s)-len(" (durable)")]
				continue
			case bytes.HasSuffix(s, []byte(" (leaked)")):
				h.Leaked = true
				s = s[:len(s)-len(" (leaked)")]
				continue
			case bytes.HasSuffix(s, []byte(" (scan)")):
				h.Scan = true
				s = s[:len(s)-len(" (scan)")]
				continue
			}
		case 'd':
			if bytes.HasSuffix(s, []byte(", locked to thread")) {
				h.Locked = true
				s = s[:len(s)-len(", locked to thread")]
				continue
			}
		case 's':
			if bytes.HasSuffix(s, []byte(" minutes")) {
				if v, k, ok := trailingUint(s[:len(s)-len(" minutes")], ", "); ok {
					h.WaitMinutes = int(v)
					s = s[:k]
					continue
				}
			}
		}
		if v, k, ok := trailingUint(s, ", synctest bubble "); ok {
			h.Bubble = int64(v)
			s = s[:k]
			continue
		}
		break
	}
	return s
}

// callForm says what a function line looks like.
type callForm uint8

const (
	callNone    callForm = iota // not a function line
	callGo                      // name(args)
	callInlined                 // name(...)
	callBare                    // a single token without parentheses: a cgo symbol
	callNonGo                   // "non-Go function" [at pc=0x…]
	callBad                     // one token with unbalanced parentheses: a broken Go frame
)

// parseCall splits a function line:
//
//	main.doPanic({0x558d80?, 0x0?})   callGo, args "{0x558d80?, 0x0?}"
//	main.inlinee(...)                 callInlined
//	main.Generic[...](0x0?)           callGo
//	panic({0x526b20?, 0x10e1709c42a0?})
//	type:.eq.struct { a int }(0x1)    callGo (spaces inside braces)
//	C.funcName                        callBare (cgo symbolizer output)
//	non-Go function at pc=0x4a7e0f    callNonGo
//
// A line with spaces outside braces that does not end in ')' is no
// function line ("--- FAIL: TestX (0.00s)" is none either: its name part
// has a space).
func parseCall(line []byte) (name, args []byte, form callForm) {
	n := len(line)
	if n == 0 {
		return nil, nil, callNone
	}
	if line[n-1] == ')' {
		p := bytes.LastIndexByte(line, '(')
		if p > 0 && validFuncName(line[:p]) {
			args = line[p+1 : n-1]
			if len(args) == 3 && args[0] == '.' && args[1] == '.' && args[2] == '.' {
				return line[:p], nil, callInlined
			}
			return line[:p], args, callGo
		}
	}
	if bytes.HasPrefix(line, []byte("non-Go function")) {
		return line[:len("non-Go function")], nil, callNonGo
	}
	if bytes.IndexByte(line, ' ') >= 0 || bytes.IndexByte(line, '\t') >= 0 {
		return nil, nil, callNone
	}
	if bytes.IndexByte(line, '(') >= 0 || bytes.IndexByte(line, ')') >= 0 {
		return line, nil, callBad
	}
	return line, nil, callBare
}

// validFuncName reports whether b can be a Go function name as tracebacks
// print it: not empty, not indented, no spaces except inside {} or [] or
// before '{' (type:.eq.struct { a int }).
func validFuncName(b []byte) bool {
	if len(b) == 0 || b[0] == ' ' || b[0] == '\t' {
		return false
	}
	if bytes.IndexByte(b, ' ') < 0 && bytes.IndexByte(b, '\t') < 0 {
		return true
	}
	depth := 0
	for i, c := range b {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ' ', '\t':
			// "struct {", "interface {}" open a brace after a space.
			if depth <= 0 && (c == '\t' || i+1 >= len(b) || b[i+1] != '{') {
				return false
			}
		}
	}
	return true
}

// fileLine is a parsed frame location line.
type fileLine struct {
	File      []byte
	Line      int
	Offset    uint64
	HasOffset bool
	FP, SP    uint64
	PC        uint64
	HasPC     bool
}

// parseFileLine parses the indented second line of a frame:
//
//	\t/src/probe/main.go:65 +0x27
//	\t/src/probe/main.go:55
//	\tC:/Users/x/pprof.go:693 +0x9f
//	\t/usr/local/go/src/runtime/panic.go:879 +0x16f fp=0x3b9ee6c8ada0 sp=0x3b9ee6c8acf0 pc=0x481caf
//	\tfile.c:123 pc=0x4a7e0f             (cgo, symbolizer)
//	\tpc=0x4a7e0f                        (cgo, no file)
//	      /src/race/main.go:10 +0x24     (race report)
//
// The line number is after the last ':' (a Windows drive colon comes
// before it). The annotations are peeled off the end, so paths may hold
// spaces.
func parseFileLine(line []byte, fl *fileLine) bool {
	i := 0
	for i < len(line) && (line[i] == '\t' || line[i] == ' ') {
		i++
	}
	if i == 0 || i == len(line) {
		return false
	}
	*fl = fileLine{}
	b := line[i:]
	for len(b) > 0 {
		// "file:123" at the end: done, without scanning the path (which
		// may hold spaces) for a separator.
		j := len(b)
		for j > 0 && isDecDigit(b[j-1]) {
			j--
		}
		if j < len(b) && j > 1 && b[j-1] == ':' {
			v, n := scanUint(b[j:])
			if n != len(b)-j {
				return false
			}
			fl.File, fl.Line = b[:j-1], int(v)
			return true
		}
		sp := bytes.LastIndexByte(b, ' ')
		tok := b[sp+1:]
		if len(tok) < 4 {
			return false
		}
		switch {
		case tok[0] == '+' && tok[1] == '0' && tok[2] == 'x':
			v, n := scanHex(tok[3:])
			if n != len(tok)-3 || n == 0 {
				return false
			}
			fl.Offset, fl.HasOffset = v, true
		case tok[2] == '=' && (tok[0] == 'f' && tok[1] == 'p' || tok[0] == 's' && tok[1] == 'p' || tok[0] == 'p' && tok[1] == 'c'):
			v, n := scanHexPrefixed(tok[3:])
			if n != len(tok)-3 {
				return false
			}
			switch tok[0] {
			case 'f':
				fl.FP = v
			case 's':
				fl.SP = v
			default:
				fl.PC, fl.HasPC = v, true
			}
		default:
			return false
		}
		if sp < 0 {
			b = b[:0]
		} else {
			b = b[:sp]
		}
	}
	return fl.HasPC // `\tpc=0x…`: a cgo frame with no file
}

// parseCreatedBy parses `created by F` and `created by F in goroutine N`
// (Go 1.21+), returning F and N (0 when absent).
func parseCreatedBy(line []byte) (fn []byte, parent int64, ok bool) {
	const pfx = "created by "
	if !bytes.HasPrefix(line, []byte(pfx)) {
		return nil, 0, false
	}
	fn = line[len(pfx):]
	if v, k, ok := trailingUint(fn, " in goroutine "); ok && k > 0 {
		return fn[:k], int64(v), true
	}
	if len(fn) == 0 || bytes.IndexByte(fn, ' ') >= 0 && !validFuncName(fn) {
		return nil, 0, false
	}
	return fn, 0, true
}

// parseElided parses `...N frames elided...` (Go 1.21+, count N) and
// `...additional frames elided...` (count 0).
func parseElided(line []byte) (count int, ok bool) {
	if string(line) == "...additional frames elided..." {
		return 0, true
	}
	const pfx, sfx = "...", " frames elided..."
	if len(line) > len(pfx)+len(sfx) && string(line[:3]) == pfx && bytes.HasSuffix(line, []byte(sfx)) {
		v, n := scanUint(line[3:])
		if n > 0 && 3+n == len(line)-len(sfx) {
			return int(v), true
		}
	}
	return 0, false
}

// parseOriginating parses `[originating from goroutine N]:`.
func parseOriginating(line []byte) (int64, bool) {
	const pfx, sfx = "[originating from goroutine ", "]:"
	if len(line) <= len(pfx)+len(sfx) || string(line[:len(pfx)]) != pfx || !bytes.HasSuffix(line, []byte(sfx)) {
		return 0, false
	}
	v, n := scanUint(line[len(pfx):])
	if n == 0 || len(pfx)+n != len(line)-len(sfx) {
		return 0, false
	}
	return int64(v), true
}

// trailingUint parses the decimal number that ends b after sep: for
// "x, 5" and ", " it returns 5 and the index of sep (1). ok is false when
// b does not end that way or the number overflows.
func trailingUint(b []byte, sep string) (v uint64, k int, ok bool) {
	j := len(b)
	for j > 0 && isDecDigit(b[j-1]) {
		j--
	}
	if j == len(b) || j < len(sep) || string(b[j-len(sep):j]) != sep {
		return 0, 0, false
	}
	v, n := scanUint(b[j:])
	if n != len(b)-j {
		return 0, 0, false
	}
	return v, j - len(sep), true
}

// isRegisterLine reports whether line is a register of a signal dump:
// `rax    0xca`, `r10    0x0`, `rflags 0x286`, `lr     0x…`.
func isRegisterLine(line []byte) bool {
	i := 0
	for i < len(line) && i < 8 && (line[i] >= 'a' && line[i] <= 'z' || line[i] >= '0' && line[i] <= '9') {
		i++
	}
	if i == 0 || i == len(line) || line[i] != ' ' {
		return false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	_, n := scanHexPrefixed(line[i:])
	return n > 2 && i+n == len(line)
}

// isBlankLine reports whether b holds only spaces and tabs.
func isBlankLine(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// scanUint parses leading decimal digits; n is how many were used (0 when
// none, or on overflow).
func scanUint(b []byte) (v uint64, n int) {
	for n < len(b) {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		if v > (1<<63)/10 {
			return 0, 0
		}
		v = v*10 + uint64(c)
		n++
	}
	return v, n
}

// scanHex parses leading hex digits; n is how many were used (0 when none,
// or when more than 16).
func scanHex(b []byte) (v uint64, n int) {
	for n < len(b) {
		c := hexDigit[b[n]]
		if c > 0xf {
			return v, n
		}
		if n == 16 {
			return 0, 0
		}
		v = v<<4 | uint64(c)
		n++
	}
	return v, n
}

// hexDigit is the value of each hex digit byte, 0xff for other bytes.
var hexDigit = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range 10 {
		t['0'+i] = uint8(i)
	}
	for i := range 6 {
		t['a'+i], t['A'+i] = uint8(10+i), uint8(10+i)
	}
	return t
}()

// scanHexPrefixed parses "0x…"; n counts the prefix too (0 when absent).
func scanHexPrefixed(b []byte) (uint64, int) {
	if len(b) < 3 || b[0] != '0' || b[1] != 'x' {
		return 0, 0
	}
	v, n := scanHex(b[2:])
	if n == 0 {
		return 0, 0
	}
	return v, n + 2
}

// bstr views b as a string without copying, for map lookups and for the
// Table, which copies what it keeps. The string must not outlive b's
// contents.
func bstr(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
