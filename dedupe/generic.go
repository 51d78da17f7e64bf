package dedupe

import "strings"

// elideTypeArgs writes every list of type arguments in the function name fn
// as "[...]", the form tracebacks and debug=1 profiles print, so that the
// names pprof profiles (debug=0) give instantiations of generic code match
// them:
//
//	main.Process[go.shape.int]             → main.Process[...]
//	main.(*Box[go.shape.string]).Get.func1 → main.(*Box[...]).Get.func1
//	main.Map[go.shape.[]int,go.shape.int]  → main.Map[...]
//
// A list opens with a '[' right after a letter, digit or '_' (a bracket
// after any other byte, as in "type:.eq.[2]int", is a type's own) and ends
// at its matching ']', skipping brackets inside quoted struct tags. Names
// without type arguments are returned as they are; an unclosed list is
// left as it is.
func elideTypeArgs(fn string) string {
	i := typeArgsStart(fn, 0)
	if i < 0 {
		return fn
	}
	var b strings.Builder
	b.Grow(len(fn))
	from := 0
	for i >= 0 {
		end := typeArgsEnd(fn, i)
		if end < 0 {
			break
		}
		b.WriteString(fn[from:i])
		b.WriteString("[...]")
		from = end + 1
		i = typeArgsStart(fn, from)
	}
	b.WriteString(fn[from:])
	return b.String()
}

// typeArgsStart returns the index of the next '[' at or after from that
// opens a list of type arguments, or -1.
func typeArgsStart(fn string, from int) int {
	for i := from; i < len(fn); i++ {
		if fn[i] == '[' && i > 0 && isIdentByte(fn[i-1]) {
			return i
		}
	}
	return -1
}

// typeArgsEnd returns the index of the ']' that closes the '[' at open,
// or -1 when the name ends first.
func typeArgsEnd(fn string, open int) int {
	depth := 0
	for i := open; i < len(fn); i++ {
		switch fn[i] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i
			}
		case '"', '`':
			// A struct tag in a shape type: skip to its closing quote.
			q := fn[i]
			for i++; i < len(fn) && fn[i] != q; i++ {
				if q == '"' && fn[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
