package paste

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
)

var (
	// boldable is a JVM thread header whose quoted name holds no quote.
	boldable = regexp.MustCompile(`^("[^"]*")( #\d| daemon| prio=| - Thread t@| Id=| tid=)`)
	// jvmBanner is the line that starts a JVM dump, and stamp the time
	// line jstack prints before it.
	jvmBanner = regexp.MustCompile(`^Full thread dump `)
	stamp     = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\r?$`)
)

// dumpStarts returns the indexes of the lines that start the JVM dumps of
// a file after its first: each later dump's time stamp, or its "Full
// thread dump" line when it has none.
func dumpStarts(lines [][]byte) []int {
	var starts []int
	first := true
	for i, l := range lines {
		if !jvmBanner.Match(l) {
			continue
		}
		if first {
			first = false
			continue
		}
		if i > 0 && stamp.Match(lines[i-1]) {
			i--
		}
		starts = append(starts, i)
	}
	return starts
}

// Fence lines and surrounding text as they are written in issues and chats.
var (
	fenceLangsGo  = []string{"go", "console", "text", "shell"}
	fenceLangsJVM = []string{"java", "text", "log", "console"}
	chatBefore    = []string{
		"Here is the full dump from the stuck process:",
		"Was just about to post.",
		"### Actual Behavior",
		"I got this when it hung again, dump below.",
	}
	chatAfter = []string{
		"Any idea what is going on? Happy to provide more logs.",
		"### Expected Behavior\n\nno failure",
		"Thanks in advance!",
		"This happens about once a day on our nodes.",
	}
)

func markdownTransforms() []Transform {
	return []Transform{{
		Name:    "fence",
		Form:    "A Markdown code fence (```) on its own line before and after the dump.",
		Example: "https://github.com/coder/coder-logstream-kube/issues/15",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat([]byte("```\n"), withNL(in), []byte("```\n"))
		},
	}, {
		Name:    "fence-lang",
		Form:    "A code fence with a language tag (```go, ```console, ```java).",
		Example: "https://github.com/milvus-io/milvus/issues/7977",
		Fn: func(in []byte, r *rand.Rand) []byte {
			langs := fenceLangsGo
			if DetectKind(in)&JVM != 0 {
				langs = fenceLangsJVM
			}
			return concat([]byte("```"+pick(r, langs)+"\n"), withNL(in), []byte("```\n"))
		},
	}, {
		Name:    "fence4",
		Form:    "A fence of four backticks (````), as written to hold text with ``` in it.",
		Example: "https://github.com/bcicen/ctop/issues/279",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat([]byte("````\n"), withNL(in), []byte("````\n"))
		},
	}, {
		Name:    "fence-glued-start",
		Form:    "The opening fence glued to the first line of the dump (```goroutine 77 [running]:), the closing one on its own line.",
		Example: "https://github.com/docker/for-win/issues/9798",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat([]byte("```"), withNL(in), []byte("```\n"))
		},
	}, {
		Name:    "fence-glued-end",
		Form:    "The closing fence glued to the last line of the dump (... +0x1b9```), the opening one on its own line.",
		Example: "issue 22 (stackdump): named there; no stored public paste found",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			body := bytes.TrimRight(in, "\n")
			return concat([]byte("```\n"), body, []byte("```\n"))
		},
	}, {
		Name:    "fence-half",
		Form:    "A fence closed in the middle of the dump: the rest of it after the closing fence, rendered as Markdown text and copied back, lost its leading whitespace.",
		Example: "issue 38 (stackdump) item 5: a complete race report whose second half lost its indentation",
		Loss:    Reinferred,
		Needs:   func(in []byte) bool { return hasIndented(in) && len(split(in).lines) >= 6 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			t := split(in)
			n := len(t.lines)
			cut := n/3 + r.IntN(max(1, n/3))
			lines := append([][]byte{[]byte("```")}, t.lines[:cut]...)
			lines = append(lines, []byte("```"))
			for _, l := range t.lines[cut:] {
				lines = append(lines, trimLeftSpace(l))
			}
			return text{lines: lines, finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "headings",
		Form:    "A Markdown heading over the dump, and over each further dump of the paste (\"### Thread dump 2\"), a blank line after it.",
		Example: "issue 38 (stackdump) item 3: dumps under Markdown headings",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			t := split(in)
			later := map[int]bool{}
			for _, i := range dumpStarts(t.lines) {
				later[i] = true
			}
			var lines [][]byte
			n := 0
			for i, l := range t.lines {
				if i == 0 || later[i] {
					n++
					lines = append(lines, fmt.Appendf(nil, "### Thread dump %d", n), nil)
				}
				lines = append(lines, l)
			}
			return text{lines: lines, finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "bold-names",
		Form:    "Thread names made bold in Markdown inside their headers: **\"main\"** #1 prio=5 ...",
		Example: "issue 38 (stackdump) item 3: a thread header with Markdown emphasis inside it",
		Loss:    Reinferred,
		Kinds:   JVM,
		Needs:   func(in []byte) bool { return anyLine(in, func(l []byte) bool { return boldable.Match(l) }) },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return mapLines(in, func(_ int, l []byte) ([]byte, bool) {
				if m := boldable.FindSubmatchIndex(l); m != nil {
					return concat([]byte("**"), l[:m[3]], []byte("**"), l[m[3]:]), true
				}
				return l, true
			})
		},
	}, {
		Name:    "inline-code",
		Form:    "A single backtick glued to the first line and another to the last, as in `\"http-nio-8080-exec-136 ...\" #333526 daemon ...`.",
		Example: "https://github.com/AndreyVMarkelov/jira-prometheus-exporter/issues/43",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			body := bytes.TrimRight(in, "\n")
			return concat([]byte("`"), body, []byte("`\n"))
		},
	}, {
		Name:    "details",
		Form:    "A collapsed <details><summary> block holding a fenced dump.",
		Example: "https://github.com/moby/moby/pull/44791",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat([]byte("<details><summary>Start dockerd in the foreground and press Ctrl+\\</summary>\n\n```\n"),
				withNL(in), []byte("```\n\n</details>\n"))
		},
	}, {
		Name:    "details-pre",
		Form:    "The Go issue template's <details><summary><code>…</code> Output</summary><br><pre> block, the dump raw inside <pre>.",
		Example: "https://github.com/golang/go/issues/57305",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat([]byte("<details><summary><code>go test . -json -timeout=1s</code> Output</summary><br><pre>\n"),
				withNL(in), []byte("</pre></details>\n"))
		},
	}, {
		Name:    "chat",
		Form:    "Prose before and after the dump: a sentence or a template heading before, a question or the next template section after.",
		Example: "https://github.com/golang/go/issues/10546 https://github.com/matrixorigin/matrixone/issues/19185",
		Fn: func(in []byte, r *rand.Rand) []byte {
			return concat([]byte(pick(r, chatBefore)+"\n\n"), withNL(in), []byte("\n"+pick(r, chatAfter)+"\n"))
		},
	}}
}

func pick(r *rand.Rand, choices []string) string {
	return choices[r.IntN(len(choices))]
}
