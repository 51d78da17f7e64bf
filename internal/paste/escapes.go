package paste

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

var htmlEscapes = [][2]string{{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {`"`, "&quot;"}}

func escapeTransforms() []Transform {
	return []Transform{{
		Name:    "html-escape",
		Form:    "The dump's text HTML-escaped (&quot;, &lt;, &gt;, &amp;), as copied from a page's source or an export of one.",
		Example: "Markdown articles in public repositories holding jstack text as \"&quot;http-nio-8401-exec-890&quot; #86930 daemon prio=5 ...\" and \"- locked &lt;0x000000071ab1a5d8&gt;\" (search tool, find_string \"- locked &lt;0x\")",
		Needs:   func(in []byte) bool { return bytes.ContainsAny(in, `&<>"`) },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			out := in
			for _, e := range htmlEscapes {
				out = bytes.ReplaceAll(out, []byte(e[0]), []byte(e[1]))
			}
			return out
		},
	}, {
		Name:    "less-bytes",
		Form:    "Every byte that is not ASCII shown as <XX>, as less and journalctl print UTF-8 in a C locale (\"net/http.func<C2><B7>011()\").",
		Example: "https://github.com/openshift/origin/issues/9168",
		Loss:    Reinferred,
		Needs:   func(in []byte) bool { return bytes.IndexFunc(in, func(r rune) bool { return r >= 0x80 }) >= 0 },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			out := make([]byte, 0, len(in))
			for _, c := range in {
				if c >= 0x80 {
					out = fmt.Appendf(out, "<%02X>", c)
					continue
				}
				out = append(out, c)
			}
			return out
		},
	}, {
		Name:    "markdown-list",
		Form:    "The dump turned into a numbered Markdown list by an HTML-to-Markdown converter: \"4.  \\- waiting to lock ...\", indentation gone, - [ _ * escaped, blank lines unnumbered.",
		Example: "A Markdown article in a public repository holding jstack text as \"1.  \\\"t2\\\" prio=6 tid=0x02bcf000 nid=0xc70 waiting for monitor entry \\\\[0x02f6f000]\" (search tool, find_string \"- locked &lt;0x\")",
		Loss:    Reinferred,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(i int, l []byte) ([]byte, bool) {
				body := trimLeftSpace(l)
				if isBlank(body) {
					return nil, true
				}
				sep := ".  "
				if i+1 >= 10 {
					sep = ". "
				}
				return concat(fmt.Appendf(nil, "%d%s", i+1, sep), markdownEscape(body)), true
			})
		},
	}}
}

// markdownEscape puts a backslash before the characters a converter escapes:
// a leading '-', and every '[', '_' and '*'.
func markdownEscape(l []byte) []byte {
	out := make([]byte, 0, len(l)+4)
	for i, c := range l {
		if (c == '-' && i == 0) || c == '[' || c == '_' || c == '*' {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return out
}
