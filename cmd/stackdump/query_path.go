package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// gjson answers a malformed path with "no result", which a user cannot
// tell from "no match". checkPath rejects the malformed paths that can be
// told apart: empty components, unbalanced brackets and quotes, a dangling
// escape, query operators gjson does not have, queries without a value
// and unknown @modifiers.

// errPath is an invalid path, with the position of the problem.
type errPath struct {
	path string
	pos  int // byte offset in path
	msg  string
}

func (e *errPath) Error() string {
	return fmt.Sprintf("invalid path %q: %s at offset %d\n  %s\n  %s^", e.path, e.msg, e.pos, e.path, strings.Repeat(" ", e.pos))
}

// knownModifiers are gjson's stock modifiers, for error messages.
var knownModifiers = []string{"pretty", "ugly", "reverse", "this", "flatten", "join", "valid", "keys", "values", "tostr", "fromstr", "group", "dig"}

// checkPath returns an *errPath for a path gjson cannot mean.
func checkPath(path string) error {
	bad := func(pos int, format string, args ...any) error {
		return &errPath{path: path, pos: pos, msg: fmt.Sprintf(format, args...)}
	}
	if path == "" {
		return bad(0, "empty path")
	}
	type open struct {
		ch    byte
		pos   int
		query bool
	}
	var stack []open
	start := 0
	if strings.HasPrefix(path, "..") {
		start = 2 // JSON lines: ".." then a path
		if len(path) == 2 {
			return bad(2, "nothing after \"..\"")
		}
	}
	componentStart := true // at the start of a component, at depth 0
	for i := start; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '\\':
			if i == len(path)-1 {
				return bad(i, "escape at the end")
			}
			i++
			componentStart = false
			continue
		case c == '"' && len(stack) > 0:
			end := closingQuote(path, i)
			if end < 0 {
				return bad(i, "unterminated string")
			}
			i = end
			continue
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, open{c, i, c == '(' && i > 0 && path[i-1] == '#'})
		case c == ')' || c == ']' || c == '}':
			want := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1].ch != want {
				return bad(i, "%q without its opening %q", c, want)
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.query {
				if err := checkQuery(path[top.pos+1 : i]); err != nil {
					return bad(top.pos+1, "%v", err)
				}
			}
		case len(stack) > 0:
		case c == '.' || c == '|':
			if componentStart {
				return bad(i, "empty path component")
			}
			componentStart = true
			continue
		case c == '@' && componentStart:
			name := path[i+1:]
			if j := strings.IndexAny(name, ":.|"); j >= 0 {
				name = name[:j]
			}
			if !gjson.ModifierExists(name, nil) {
				return bad(i, "unknown modifier @%s (gjson has @%s)", name, strings.Join(knownModifiers, ", @"))
			}
		}
		componentStart = false
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return bad(top.pos, "%q is not closed", top.ch)
	}
	if componentStart {
		return bad(len(path), "empty path component")
	}
	return nil
}

// closingQuote returns the index of the quote ending the string that
// starts at path[i], or -1.
func closingQuote(path string, i int) int {
	for j := i + 1; j < len(path); j++ {
		switch path[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// queryOps are the comparison operators of gjson queries.
var queryOps = []string{"==", "!=", "<", "<=", ">", ">=", "%", "!%"}

// checkQuery checks the inside of #(…): a path, then optionally an
// operator and a value.
func checkQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return fmt.Errorf("empty query")
	}
	depth := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\\':
			i++
		case c == '"':
			if j := closingQuote(q, i); j > 0 {
				i = j
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && strings.IndexByte("=!<>%", c) >= 0:
			j := i
			for j < len(q) && strings.IndexByte("=!<>%", q[j]) >= 0 {
				j++
			}
			op := q[i:j]
			if !slices.Contains(queryOps, op) {
				return fmt.Errorf("unknown query operator %q (gjson has %s)", op, strings.Join(queryOps, " "))
			}
			if strings.TrimSpace(q[j:]) == "" {
				return fmt.Errorf("query operator %q without a value", op)
			}
			return nil
		}
	}
	return nil
}
