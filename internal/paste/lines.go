package paste

import "bytes"

// text is a dump split into lines without their '\n' (a '\r' before it
// stays in the line), and whether the last line had one.
type text struct {
	lines   [][]byte
	finalNL bool
}

// split cuts in into lines. An empty input has no lines.
func split(in []byte) text {
	if len(in) == 0 {
		return text{}
	}
	t := text{finalNL: in[len(in)-1] == '\n'}
	body := in
	if t.finalNL {
		body = in[:len(in)-1]
	}
	t.lines = bytes.Split(body, []byte("\n"))
	return t
}

// join puts the lines back together, ending with '\n' if the input did.
func (t text) join() []byte {
	n := len(t.lines)
	for _, l := range t.lines {
		n += len(l)
	}
	out := make([]byte, 0, n)
	for i, l := range t.lines {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, l...)
	}
	if t.finalNL && len(t.lines) > 0 {
		out = append(out, '\n')
	}
	return out
}

// mapLines returns in with f applied to each line (i is its 0-based index);
// f returns the new line, which may hold '\n' to become several lines, or
// nil and false to drop the line.
func mapLines(in []byte, f func(i int, line []byte) ([]byte, bool)) []byte {
	t := split(in)
	out := t.lines[:0:0]
	for i, l := range t.lines {
		if nl, keep := f(i, l); keep {
			out = append(out, nl)
		}
	}
	t.lines = out
	return t.join()
}

// prefixLines puts p(i) before every line.
func prefixLines(in []byte, p func(i int, line []byte) string) []byte {
	return mapLines(in, func(i int, l []byte) ([]byte, bool) {
		pre := p(i, l)
		nl := make([]byte, 0, len(pre)+len(l))
		return append(append(nl, pre...), l...), true
	})
}

// withNL returns in ending with '\n' (a copy only when one is added).
func withNL(in []byte) []byte {
	if len(in) == 0 || in[len(in)-1] == '\n' {
		return in
	}
	return append(append(make([]byte, 0, len(in)+1), in...), '\n')
}

// concat joins the parts into a new slice.
func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// isBlank reports whether a line holds only spaces, tabs or a '\r'.
func isBlank(l []byte) bool {
	return len(bytes.TrimLeft(l, " \t\r")) == 0
}
