package leakcheck

import (
	"slices"
	"strconv"
	"strings"
)

// goleakReport is the leftovers left of s in goleak v1.3.0's form: its
// []stack.Stack formatted with %s, "[" then each goroutine's
// "Goroutine ID in state STATE, with F on top of the stack:\n" and its
// whole stack, separated by spaces, then "]". Each part is what goleak's
// parser (internal/stack) makes of the same runtime.Stack text:
//
//   - STATE is the header's brackets' content, as printed ("chan receive,
//     2 minutes"; with Go 1.27's "(leaked)" or labels when printed);
//   - F is the first function line's text before its last '(' ("created
//     by" lines do not count);
//   - the stack is every line after the header up to and including the
//     file line of "created by", or, for a goroutine without one, up to the
//     next goroutine's header, the blank line before it included.
func (s *snapshot) goleakReport(left []goroutineText) string {
	left = slices.Clone(left)
	slices.SortFunc(left, func(a, b goroutineText) int { return a.start - b.start })
	lastStart := -1
	if n := len(s.gs); n > 0 {
		lastStart = s.gs[n-1].start
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, g := range left {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeGoleakStack(&b, string(s.block(g)), g.start != lastStart)
	}
	b.WriteByte(']')
	return b.String()
}

// writeGoleakStack writes one goroutine's block as goleak's Stack.String
// does; more says whether another goroutine follows it in the runtime's
// text (the blank line before it is then part of a stack without a
// creator).
func writeGoleakStack(b *strings.Builder, block string, more bool) {
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	id, state := goleakHeader(lines[0])
	var full strings.Builder
	first, creator := "", false
	for i := 1; i < len(lines); i++ {
		line := lines[i]
		full.WriteString(line)
		full.WriteByte('\n')
		if line == "" {
			continue
		}
		name, isCreator := goleakFuncName(line)
		if !isCreator && first == "" {
			first = name
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			i++
			full.WriteString(lines[i])
			full.WriteByte('\n')
		}
		if isCreator {
			creator = true
			break
		}
	}
	if !creator && more {
		full.WriteByte('\n')
	}
	b.WriteString("Goroutine ")
	b.WriteString(strconv.Itoa(id))
	b.WriteString(" in state ")
	b.WriteString(state)
	b.WriteString(", with ")
	b.WriteString(first)
	b.WriteString(" on top of the stack:\n")
	b.WriteString(full.String())
}

// goleakHeader reads "goroutine 8 [chan send]:" as goleak does: the id,
// and the third space-separated field without its brackets.
func goleakHeader(line string) (id int, state string) {
	line = strings.TrimSuffix(line, ":")
	parts := strings.SplitN(line, " ", 3)
	if len(parts) != 3 {
		return 0, ""
	}
	id, _ = strconv.Atoi(parts[1])
	return id, strings.TrimSuffix(strings.TrimPrefix(parts[2], "["), "]")
}

// goleakFuncName is the function of a frame line as goleak reads it: the
// text before the last '(', or after "created by " up to " in goroutine";
// "" for a line with neither (goleak v1.3.0 panics on those, such as
// "...additional frames elided...").
func goleakFuncName(line string) (name string, creator bool) {
	if after, ok := strings.CutPrefix(line, "created by "); ok {
		if i := strings.Index(after, " in goroutine"); i >= 0 {
			after = after[:i]
		}
		return after, true
	}
	if i := strings.LastIndexByte(line, '('); i >= 0 {
		return line[:i], false
	}
	return "", false
}
