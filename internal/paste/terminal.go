package paste

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
)

var sigquitLine = regexp.MustCompile(`(?m)^SIGQUIT: quit\r?$`)

var (
	promptsBefore = []string{
		"root@i-1ea848e3:/home/alexis_midon# jstack -F 20962",
		"$ go test . -json -timeout=1s",
		"$ kill -QUIT $(pidof server); cat /var/log/server.err",
		"# kubectl -n default logs -f $POD",
	}
	promptsAfter = []string{"root@kmaster:~#", "$", "# "}
)

func terminalTransforms() []Transform {
	return []Transform{{
		Name:    "sigquit-echo",
		Form:    "The terminal's echo of Ctrl-\\ glued before the crash line: \"^\\SIGQUIT: quit\".",
		Example: "https://github.com/moby/moby/pull/44791",
		Kinds:   Go,
		Needs:   sigquitLine.Match,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			i := sigquitLine.FindIndex(in)[0]
			return concat(in[:i], []byte(`^\`), in[i:])
		},
	}, {
		Name:    "prompt",
		Form:    "The shell prompt and command that printed the dump before it, and the next prompt after it.",
		Example: "https://github.com/airbnb/plog/pull/97 https://github.com/cryostatio/cryostat/issues/135 https://github.com/linki/chaoskube/issues/202",
		Fn: func(in []byte, r *rand.Rand) []byte {
			return concat([]byte(pick(r, promptsBefore)+"\n"), withNL(in), []byte(pick(r, promptsAfter)+"\n"))
		},
	}, {
		Name:    "line-numbers",
		Form:    "A log viewer's line numbers, right-aligned, before every line (\" 618283 2021-09-15T07:40:15Z goroutine 177 ...\").",
		Example: "https://github.com/milvus-io/milvus/issues/7977",
		Fn: func(in []byte, r *rand.Rand) []byte {
			first := 1 + r.IntN(700000)
			return prefixLines(in, func(i int, _ []byte) string { return fmt.Sprintf("%7d ", first+i) })
		},
	}, {
		Name:    "crlf",
		Form:    "Windows line ends (\\r\\n), as a Windows editor or a ticket export writes them.",
		Example: "testdata/corpus/jvm/tda_visualvm_remote.log (as found) https://github.com/alibaba/TProfiler/issues/2",
		Needs: func(in []byte) bool {
			return bytes.Count(in, []byte("\n")) > bytes.Count(in, []byte("\r\n"))
		},
		Fn: func(in []byte, _ *rand.Rand) []byte {
			out := make([]byte, 0, len(in)+bytes.Count(in, []byte("\n")))
			for i, c := range in {
				if c == '\n' && (i == 0 || in[i-1] != '\r') {
					out = append(out, '\r')
				}
				out = append(out, c)
			}
			return out
		},
	}}
}
