package gotext

import (
	"errors"
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// parseLabels parses the text between the braces of a header's label set
// into ls (reusing its storage), interning keys and values in t:
//
//	"svc": "users", "weird key": "a\"b\nc"   (Go 1.26: always quoted)
//	svc: users, "weird key": "a\"b\nc"       (Go 1.27: quoted when not [A-Za-z0-9./_]+)
//
// Quoted strings are unquoted as Go string literals (the runtime escapes
// \n \r \t \\ \" and writes \xNN, \uNNNN, \UNNNNNNNN). On a malformed set
// the pairs read so far are returned with errBadLabels.
func parseLabels(b []byte, t *stack.Table, ls stack.Labels) (stack.Labels, error) {
	ls = ls[:0]
	i := 0
	for i < len(b) {
		key, j, err := labelToken(b, i, t, ':')
		if err != nil {
			return ls, err
		}
		if j+1 >= len(b) || b[j] != ':' || b[j+1] != ' ' {
			return ls, errBadLabels
		}
		val, k, err := labelToken(b, j+2, t, ',')
		if err != nil {
			return ls, err
		}
		ls = append(ls, stack.Label{Key: key, Value: val})
		if k == len(b) {
			break
		}
		if k+1 >= len(b) || b[k] != ',' || b[k+1] != ' ' {
			return ls, errBadLabels
		}
		i = k + 2
	}
	return ls, nil
}

// labelToken reads a quoted string or a bare token ending at stop (or at
// the end of b) starting at b[i]; it returns the interned text and the
// index after it.
func labelToken(b []byte, i int, t *stack.Table, stop byte) (string, int, error) {
	if i >= len(b) {
		return "", i, errBadLabels
	}
	if b[i] == '"' {
		end := skipQuoted(b, i)
		if end >= len(b) {
			return "", i, errBadLabels
		}
		raw := b[i+1 : end]
		for _, c := range raw {
			if c == '\\' {
				s, err := strconv.Unquote(string(b[i : end+1]))
				if err != nil {
					return "", i, errBadLabels
				}
				return t.String(s), end + 1, nil
			}
		}
		return t.Bytes(raw), end + 1, nil
	}
	j := i
	for j < len(b) && b[j] != stop {
		j++
	}
	if j == i {
		return "", i, errBadLabels
	}
	return t.Bytes(b[i:j]), j, nil
}

// errBadLabels is the cause of a Go traceback header's unreadable label
// set (gotext_labels.go).
var errBadLabels = errors.New("malformed labels")
