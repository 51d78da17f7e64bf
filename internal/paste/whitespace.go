package paste

import (
	"bytes"
	"math/rand/v2"
	"strings"
)

func whitespaceTransforms() []Transform {
	return []Transform{{
		Name:    "tabs-to-spaces",
		Form:    "Every tab turned into spaces (8, or 4), as a browser, a terminal or a ticket system copies it.",
		Example: "https://github.com/kubernetes/kubernetes/issues/128638 https://github.com/spotify/threaddump-analyzer/issues/12",
		Loss:    Reinferred,
		Needs:   func(in []byte) bool { return bytes.IndexByte(in, '\t') >= 0 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			width := []int{8, 4}[r.IntN(2)]
			return bytes.ReplaceAll(in, []byte("\t"), bytes.Repeat([]byte(" "), width))
		},
	}, {
		Name:    "flatten",
		Form:    "Leading whitespace removed from every line (a ticket system, a log pipeline, a blog engine), so frames, file lines and thread states all start at column 0.",
		Example: "https://github.com/project-zot/zot/issues/286 https://github.com/aquasecurity/starboard/issues/627",
		Loss:    Reinferred,
		Needs:   hasIndented,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) { return trimLeftSpace(l), true })
		},
	}, {
		Name:    "reindent",
		Form:    "Leading whitespace of every indented line replaced by one fixed number of spaces, so levels of indentation merge (\"   java.lang.Thread.State\" and \"         at\" alike).",
		Example: "https://github.com/AndreyVMarkelov/jira-prometheus-exporter/issues/43",
		Loss:    Reinferred,
		Needs:   hasIndented,
		Fn: func(in []byte, r *rand.Rand) []byte {
			pad := []byte(strings.Repeat(" ", 2+r.IntN(8)))
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if rest := trimLeftSpace(l); len(rest) < len(l) && len(rest) > 0 {
					return concat(pad, rest), true
				}
				return l, true
			})
		},
	}, {
		Name:    "blank-dropped",
		Form:    "Blank lines removed, so one goroutine's or thread's last line is followed directly by the next header.",
		Example: "https://github.com/docker/compose/issues/8599",
		Loss:    Reinferred,
		Needs:   func(in []byte) bool { return anyLine(in, isBlank) },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) { return l, !isBlank(l) })
		},
	}, {
		Name:    "blank-doubled",
		Form:    "A blank line after every line, as some web log viewers and e-mail clients copy.",
		Example: "https://github.com/moby/moby/issues/46322",
		Loss:    Reinferred,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) { return concat(l, []byte("\n")), true })
		},
	}, {
		Name:    "space-lines",
		Form:    "Blank lines that hold a space, as an editor or a chat client leaves them.",
		Example: "https://github.com/golang/go/issues/14633",
		Needs:   func(in []byte) bool { return anyLine(in, func(l []byte) bool { return len(l) == 0 }) },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if len(l) == 0 {
					return []byte(" "), true
				}
				return l, true
			})
		},
	}, {
		Name:    "trailing-spaces",
		Form:    "Every line padded with spaces to the terminal's width (a copy from tmux, screen or a full-screen pager).",
		Example: "https://github.com/go-spatial/tegola/issues/452",
		Fn: func(in []byte, r *rand.Rand) []byte {
			width := []int{80, 120, 160, 176}[r.IntN(4)]
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if n := width - len(l); n > 0 {
					return concat(l, bytes.Repeat([]byte(" "), n)), true
				}
				return concat(l, []byte("   ")), true
			})
		},
	}, {
		Name:    "soft-wrap",
		Form:    "Long lines broken at the window's width into several lines, the rest of each at column 0 (\"... waiting on condition [0x3\" / \"84bf000]\").",
		Example: "https://github.com/krosenvold/bgit/issues/6",
		Loss:    Reinferred,
		Needs:   func(in []byte) bool { return longest(in) > 80 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			widths := []int{80, 100, 120}
			for len(widths) > 1 && widths[len(widths)-1] >= longest(in) {
				widths = widths[:len(widths)-1]
			}
			width := widths[r.IntN(len(widths))]
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if len(l) <= width {
					return l, true
				}
				var out []byte
				for len(l) > width {
					out = append(append(out, l[:width]...), '\n')
					l = l[width:]
				}
				return append(out, l...), true
			})
		},
	}}
}

// anyLine reports whether f holds for a line of in.
func anyLine(in []byte, f func([]byte) bool) bool {
	for _, l := range split(in).lines {
		if f(l) {
			return true
		}
	}
	return false
}

// hasIndented reports whether a line of in starts with a space or a tab and
// holds more than whitespace.
func hasIndented(in []byte) bool {
	return anyLine(in, func(l []byte) bool { return len(l) > 0 && (l[0] == ' ' || l[0] == '\t') && !isBlank(l) })
}

// longest returns the length of the longest line of in.
func longest(in []byte) int {
	n := 0
	for _, l := range split(in).lines {
		n = max(n, len(l))
	}
	return n
}
