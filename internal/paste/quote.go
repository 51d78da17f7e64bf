package paste

import "math/rand/v2"

func quoteTransforms() []Transform {
	return []Transform{{
		Name:    "quote",
		Form:    "Every line quoted with \"> \" (a Markdown quote or an e-mail reply), blank lines as \"> \".",
		Example: "https://github.com/docker/cli/issues/5217 https://github.com/NationalSecurityAgency/ghidra/issues/5200",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return prefixLines(in, func(int, []byte) string { return "> " })
		},
	}, {
		Name:    "quote-nested",
		Form:    "A quote of a quote: every line prefixed with \"> > \", as a quote-reply of a quoted comment writes it.",
		Example: "issue 22 (stackdump): named there; no stored public paste found",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return prefixLines(in, func(int, []byte) string { return "> > " })
		},
	}}
}
