package paste

import (
	"bytes"
	"math/rand/v2"
	"regexp"
)

var (
	deadlockStart = regexp.MustCompile(`(?m)^Found one Java-level deadlock:`)
	deadlockEnd   = regexp.MustCompile(`(?m)^Found \d+ deadlocks?\.\r?$`)
	fullDump      = regexp.MustCompile(`(?m)^Full thread dump `)
	ellipses      = []string{"...", ".....", "\t.....................", "[...]"}
)

func cutTransforms() []Transform {
	return []Transform{{
		Name:    "cut-start",
		Form:    "The paste starts inside the dump, often inside a line: the selection began below the top, or the text was too long for one comment.",
		Example: "https://github.com/restic/restic/issues/2079 https://github.com/dominikh/gotraceui/issues/139",
		Loss:    Destroyed,
		Fn: func(in []byte, r *rand.Rand) []byte {
			if len(in) < 4 {
				return in
			}
			return in[1+r.IntN(len(in)/3):]
		},
	}, {
		Name:    "cut-end",
		Form:    "The paste ends inside the dump, often inside a line or a goroutine: a selection stopped early, a comment's size limit, a terminal's scroll-back.",
		Example: "https://github.com/matrixorigin/matrixone/issues/19185 https://github.com/project-zot/zot/issues/286",
		Loss:    Destroyed,
		Fn: func(in []byte, r *rand.Rand) []byte {
			if len(in) < 4 {
				return in
			}
			return in[:len(in)-1-r.IntN(len(in)/3)]
		},
	}, {
		Name:    "tail",
		Form:    "The last lines of a long output, cut at a line's start in the dump's first two thirds: what tail -n, kubectl logs --tail or a terminal's scroll-back keep.",
		Example: "issue 38 (stackdump) item 2: a GOTRACEBACK=crash paste that starts inside an earlier thread block",
		Loss:    Destroyed,
		Needs:   func(in []byte) bool { return len(split(in).lines) >= 4 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			t := split(in)
			n := len(t.lines)
			return text{lines: t.lines[1+r.IntN(max(1, (n-2)*2/3)):], finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "cut-log",
		Form:    "The dump stops at a line's end inside a goroutine or thread, and the program's log goes on after it: a log whose rate limit dropped the rest of the dump (journald's \"Suppressed N messages\"), a dump written while other code logged.",
		Example: "issue 38 (stackdump) item 5: a journald paste cut mid-goroutine, the journal going on after it",
		Loss:    Destroyed,
		Needs:   func(in []byte) bool { return len(midStackLines(in)) > 0 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			t := split(in)
			mids := midStackLines(in)
			at := mids[len(mids)/3+r.IntN(max(1, len(mids)/3))]
			c := newClock(r)
			var after [][]byte
			for range 2 {
				after = append(after, []byte("I"+c.next().Format("0102 15:04:05.000000")+"    1874 kubelet.go:2400] \"SyncLoop (PLEG): event for pod\""))
			}
			return text{lines: append(append([][]byte{}, t.lines[:at+1]...), after...), finalNL: true}.join()
		},
	}, {
		Name:    "threads-only",
		Form:    "A JVM dump pasted from its first thread: the time stamp and the \"Full thread dump\" line (and jcmd's pid line) left out.",
		Example: "issue 38 (stackdump) item 3: a dump without its Full thread dump line",
		Loss:    Destroyed,
		Kinds:   JVM,
		Needs:   func(in []byte) bool { return fullDump.Match(in) && firstThread(in) > 0 },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			t := split(in)
			return text{lines: t.lines[firstThread(in):], finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "from-header",
		Form:    "The paste starts at the header of a goroutine or thread further down: the person selected the one they cared about and what follows it.",
		Example: "https://github.com/AndreyVMarkelov/jira-prometheus-exporter/issues/43 https://github.com/wildfly/wildfly/issues/7173",
		Loss:    Destroyed,
		Needs:   func(in []byte) bool { return len(headerLines(in)) >= 2 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			h := headerLines(in)
			t := split(in)
			start := h[1+r.IntN(max(1, len(h)/2))]
			return text{lines: t.lines[start:], finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "grep",
		Form:    "The output of grep -B/-A around a pattern (\"goroutine \", \"java.lang.Thread.State:\"): the matched lines with their context, groups that do not touch separated by \"--\".",
		Example: "issue 22 (stackdump) item 3; GNU grep's group separator (grep manual); no stored public paste found",
		Loss:    Destroyed,
		// Only where even the widest context leaves lines out: grep of a
		// dump it covers whole is the dump.
		Needs: func(in []byte) bool {
			return len(grepMatches(in)) > 0 && len(split(grepContext(in, 2, 8)).lines) < len(split(in).lines)
		},
		Fn: func(in []byte, r *rand.Rand) []byte {
			before, after := r.IntN(2), 3+r.IntN(6)
			if DetectKind(in)&Go == 0 {
				before = 1 + r.IntN(2)
			}
			return grepContext(in, before, after)
		},
	}, {
		Name:    "ellipsis",
		Form:    "A run of lines the person cut and replaced by \"...\" or \".....\" in the middle of the dump.",
		Example: "https://github.com/moby/moby/issues/27130 (a \".....\" line in a pasted log)",
		Loss:    Destroyed,
		Needs:   func(in []byte) bool { return len(split(in).lines) >= 8 },
		Fn: func(in []byte, r *rand.Rand) []byte {
			t := split(in)
			n := len(t.lines)
			if n < 8 {
				return in
			}
			start := n/4 + r.IntN(n/2)
			for start < n && isBlank(t.lines[start]) {
				start++
			}
			end := start + 2 + r.IntN(5)
			if end > n-1 {
				end = n - 1
			}
			if start >= end {
				return in
			}
			lines := append(append(append([][]byte{}, t.lines[:start]...), []byte(pick(r, ellipses))), t.lines[end:]...)
			return text{lines: lines, finalNL: t.finalNL}.join()
		},
	}, {
		Name:    "reversed",
		Form:    "The lines in reverse order, newest first, as a log viewer (CloudWatch, Splunk) shows and copies them.",
		Example: "https://github.com/dstackai/dstack/issues/1611 https://github.com/kubearchive/kubearchive/issues/953 (log viewers that show the newest line first); issue 22 (stackdump) item 11",
		Loss:    Destroyed,
		Needs:   func(in []byte) bool { return len(split(in).lines) >= 4 },
		Fn: func(in []byte, _ *rand.Rand) []byte {
			t := split(in)
			out := make([][]byte, len(t.lines))
			for i, l := range t.lines {
				out[len(t.lines)-1-i] = l
			}
			return text{lines: out, finalNL: true}.join()
		},
	}, {
		Name:    "deadlock-only",
		Form:    "Only the JVM's own deadlock report pasted: from \"Found one Java-level deadlock:\" to \"Found N deadlock(s).\", the commonest way a Java deadlock is reported.",
		Example: "https://github.com/spotify/threaddump-analyzer/issues/12 https://github.com/OpenHFT/Chronicle-Network/issues/93",
		Loss:    Destroyed,
		Kinds:   JVM,
		Needs:   deadlockStart.Match,
		Fn: func(in []byte, _ *rand.Rand) []byte {
			start := deadlockStart.FindIndex(in)[0]
			rest := in[start:]
			if end := deadlockEnd.FindIndex(rest); end != nil {
				rest = rest[:end[1]]
			}
			return withNL(bytes.Clone(rest))
		},
	}}
}

// headerLines returns the indexes of the lines that start a goroutine
// (traceback, debug=2, debug=1 record) or a JVM thread.
func headerLines(in []byte) []int {
	var h []int
	for i, l := range split(in).lines {
		if goHeader.Match(l) || debug1Head.Match(l) || jvmHeader.Match(l) || jstackF.Match(l) {
			h = append(h, i)
		}
	}
	return h
}

// grepMatches returns the indexes of the lines grep would match: those with
// "goroutine " in a Go dump, those with "java.lang.Thread.State:" in a JVM
// one.
func grepMatches(in []byte) []int {
	pattern := []byte("goroutine ")
	if DetectKind(in)&Go == 0 {
		pattern = []byte("java.lang.Thread.State:")
	}
	var m []int
	for i, l := range split(in).lines {
		if bytes.Contains(l, pattern) {
			m = append(m, i)
		}
	}
	return m
}

// grepContext writes what grep -B before -A after writes: each matched line
// with its context, and "--" between two groups with lines left out between
// them.
func grepContext(in []byte, before, after int) []byte {
	t := split(in)
	keep := make([]bool, len(t.lines))
	for _, m := range grepMatches(in) {
		for i := max(0, m-before); i <= min(len(t.lines)-1, m+after); i++ {
			keep[i] = true
		}
	}
	var out [][]byte
	last := -1
	for i, l := range t.lines {
		if !keep[i] {
			continue
		}
		if last >= 0 && i > last+1 {
			out = append(out, []byte("--"))
		}
		out = append(out, l)
		last = i
	}
	return text{lines: out, finalNL: true}.join()
}

// GlueWith returns the transformation that puts other after the dump, with a
// blank line between: two dumps of different forms in one paste (a debug=2
// dump and a debug=1 profile, a JVM dump and a Go dump). name tells the
// second dump apart in the transformation's name ("glue-" + name).
func GlueWith(name string, other []byte) Transform {
	return Transform{
		Name:    "glue-" + name,
		Form:    "A second dump of another form after the first in the same paste.",
		Example: "https://github.com/keybase/kbfs/pull/1268 (every profile in one blob) testdata/corpus/jvm/tda_hpux_jdk15_large.log (two dumps, as found)",
		Fn: func(in []byte, _ *rand.Rand) []byte {
			return concat(withNL(in), []byte("\n"), other)
		},
	}
}

// firstThread returns the index of the first line of in that starts a JVM
// thread after its first "Full thread dump" line, or -1.
func firstThread(in []byte) int {
	banner := false
	for i, l := range split(in).lines {
		banner = banner || bytes.HasPrefix(l, []byte("Full thread dump "))
		if banner && jvmHeader.Match(l) {
			return i
		}
	}
	return -1
}

// midStackLines returns the indexes of the lines after which a cut leaves
// a goroutine or thread unfinished: a Go function line (its file line
// follows, tab-indented), a JVM frame followed by another.
func midStackLines(in []byte) []int {
	t := split(in).lines
	var m []int
	for i := 0; i+1 < len(t); i++ {
		l, next := t[i], t[i+1]
		switch {
		case len(l) > 2 && l[0] != '\t' && l[0] != ' ' && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0 && len(next) > 0 && next[0] == '\t' && !jvmHeader.Match(l):
			m = append(m, i)
		case bytes.HasPrefix(bytes.TrimLeft(l, " \t"), []byte("at ")) && bytes.HasPrefix(bytes.TrimLeft(next, " \t"), []byte("at ")):
			m = append(m, i)
		}
	}
	return m
}
