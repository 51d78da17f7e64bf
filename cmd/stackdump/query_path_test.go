package main

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPathAcceptsGjsonSyntax(t *testing.T) {
	for _, p := range []string{
		"total",
		"groups.#",
		"groups.#.count",
		"groups.0.stack.0.func",
		`groups.#(count>100)#.stack.0.func`,
		`goroutines.#(state=="chan receive")#.id`,
		`goroutines.#(state!="running")#|#`,
		`goroutines.#(state%"chan*")#.id`,
		`goroutines.#(state!%"chan*")#.id`,
		`goroutines.#(stack.#(func=="main.main"))#.id`,
		`goroutines.#(labels.svc=="a)b")#.id`,
		`groups.#(count>=2)#.stack.#(func%"*main*").func`,
		`groups.@reverse.0.count`,
		`goroutines.#.state|@pretty`,
		`@this`,
		`[total,truncated]`,
		`{total,"n":groups.#}`,
		`source.kind`,
		`a\.b`,
		`goroutines.#(id)`,
		"..#",
		"..0.total",
		`goroutines.#(state=="x\"y")`,
	} {
		if err := checkPath(p); err != nil {
			t.Errorf("checkPath(%q): %v", p, err)
		}
	}
}

func TestCheckPathRejects(t *testing.T) {
	for _, tc := range []struct {
		path string
		pos  int
		msg  string
	}{
		{"", 0, "empty path"},
		{".total", 0, "empty path component"},
		{"total.", 6, "empty path component"},
		{"groups..0", 7, "empty path component"},
		{"groups.|#", 7, "empty path component"},
		{"..", 2, `nothing after ".."`},
		{`groups.#(count>100`, 8, `'(' is not closed`},
		{`groups.#(count>100))`, 19, `')' without its opening '('`},
		{`[total,name`, 0, `'[' is not closed`},
		{`{total]`, 6, `']' without its opening '['`},
		{`groups.#(count=100)`, 9, `unknown query operator "="`},
		{`groups.#(count>>100)`, 9, `unknown query operator ">>"`},
		{`groups.#(count>)`, 9, `query operator ">" without a value`},
		{`groups.#()`, 9, "empty query"},
		{`goroutines.#(state=="chan)`, 20, "unterminated string"},
		{`total\`, 5, "escape at the end"},
		{`groups.@bogus`, 7, "unknown modifier @bogus"},
		{`@nope:1`, 0, "unknown modifier @nope"},
	} {
		err := checkPath(tc.path)
		var pe *errPath
		if !errors.As(err, &pe) {
			t.Errorf("checkPath(%q) = %v, want an error", tc.path, err)
			continue
		}
		if pe.pos != tc.pos || !strings.Contains(pe.msg, tc.msg) {
			t.Errorf("checkPath(%q): %q at %d, want %q at %d", tc.path, pe.msg, pe.pos, tc.msg, tc.pos)
		}
	}
}

func TestErrPathPointsAtTheProblem(t *testing.T) {
	err := checkPath("groups.#(count=1)")
	want := "invalid path \"groups.#(count=1)\": unknown query operator \"=\" (gjson has == != < <= > >= % !%) at offset 9\n" +
		"  groups.#(count=1)\n" +
		"           ^"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}
