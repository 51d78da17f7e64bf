package analyze

import (
	"strings"
	"unicode/utf8"
)

// ANSI styles of the text rendering.
type style string

const (
	plain  style = ""
	bold   style = "\x1b[1m"
	dim    style = "\x1b[2m"
	red    style = "\x1b[31m"
	green  style = "\x1b[32m"
	yellow style = "\x1b[33m"
	cyan   style = "\x1b[36m"
	reset        = "\x1b[0m"
)

// cell is one table cell: its text and style.
type cell struct {
	text  string
	style style
	right bool // right-aligned
}

// textWriter builds the text rendering in a buffer.
type textWriter struct {
	b     []byte
	color bool
}

func (t *textWriter) styled(s style, text string) {
	if t.color && s != plain && text != "" {
		t.b = append(t.b, s...)
		t.b = append(t.b, text...)
		t.b = append(t.b, reset...)
		return
	}
	t.b = append(t.b, text...)
}

func (t *textWriter) line(parts ...cell) {
	for _, p := range parts {
		t.styled(p.style, p.text)
	}
	t.b = append(t.b, '\n')
}

// table writes rows with columns padded to their widest cell, indented by
// two spaces; the last column is not padded, and columns empty in every
// row are left out.
func (t *textWriter) table(rows [][]cell) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	for _, row := range rows {
		t.b = append(t.b, "  "...)
		for i, c := range row {
			if widths[i] == 0 {
				continue
			}
			pad := widths[i] - utf8.RuneCountInString(c.text)
			if c.right {
				t.b = append(t.b, strings.Repeat(" ", pad)...)
			}
			t.styled(c.style, c.text)
			if !c.right {
				t.b = append(t.b, strings.Repeat(" ", pad)...)
			}
			t.b = append(t.b, "  "...)
		}
		t.b = trimRightSpace(t.b)
		t.b = append(t.b, '\n')
	}
}

func trimRightSpace(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// shorten keeps the end of s, the most telling part of a Go function
// name, when it is longer than n runes.
func shorten(s string, n int) string {
	if n <= 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-(n-1):])
}

// minutes renders a wait in minutes as "45m", "3h05m" or "2d04h".
func minutes(m int) string {
	switch {
	case m < 60:
		return itoa(int64(m)) + "m"
	case m < 24*60:
		return itoa(int64(m/60)) + "h" + pad2(m%60) + "m"
	}
	return itoa(int64(m/(24*60))) + "d" + pad2(m/60%24) + "h"
}

func pad2(n int) string {
	if n < 10 {
		return "0" + itoa(int64(n))
	}
	return itoa(int64(n))
}

// waitRange renders a group's wait range; "" when nobody waited a minute.
func waitRange(lo, hi int) string {
	switch {
	case hi == 0:
		return ""
	case lo == hi:
		return minutes(hi)
	}
	return minutes(lo) + "–" + minutes(hi)
}

// JVMHiddenClass returns a JVM method name without the address of its
// hidden class, so that it names the class: "Foo$$Lambda$14.run" for
// "Foo$$Lambda$14/0x0000000800c03000.run" (JDK 17), "Foo$$Lambda.run" for
// JDK 21's "Foo$$Lambda/0x…​.run", JDK 8's "Foo$$Lambda$1/1234.run"
// alike, "LambdaForm$DMH.invokeVirtual" for the JDK's own. A name whose
// part before the slash has no '$' (any Go name) is returned as it is.
func JVMHiddenClass(fn string) string {
	slash := strings.IndexByte(fn, '/')
	if slash <= 0 || !strings.Contains(fn[:slash], "$") {
		return fn
	}
	rest := fn[slash+1:]
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 {
		return fn
	}
	addr := strings.TrimPrefix(rest[:dot], "0x")
	for _, c := range addr {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return fn
		}
	}
	if addr == "" {
		return fn
	}
	return fn[:slash] + rest[dot:]
}

// shortFunc drops the import path's directories from a Go function name,
// as code names it: "github.com/a/demo.(*S).F" → "demo.(*S).F",
// "net/http.(*conn).serve" → "http.(*conn).serve". Generic brackets are
// left alone; JVM names have no slash and are kept, a hidden class's
// without its address (JVMHiddenClass).
func shortFunc(fn string) string {
	fn = JVMHiddenClass(fn)
	head := fn
	if i := strings.IndexAny(head, "[("); i >= 0 {
		head = head[:i]
	}
	slash := strings.LastIndexByte(head, '/')
	if slash < 0 || !strings.Contains(head[slash:], ".") {
		return fn
	}
	return fn[slash+1:]
}
