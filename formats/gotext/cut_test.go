package gotext

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// reRecordLine matches the lines of a goroutine record or a race report
// block: headers, function, file, creator and access lines.
var reRecordLine = regexp.MustCompile(`^(goroutine \d+ .*:|\t.*|  .*|[\w./*()\[\]{}-]+\(.*\)|created by .*|(Previous )?(Read|Write) at .*:|Goroutine \d+ .*:)$`)

// TestGoTextCutEverywhere cuts real dumps at every byte offset inside a
// line of a goroutine record (or race report block) and checks that each
// cut reads as truncated, with a warning at the cut line, and that the
// cut line is dropped: the routines are those of the input cut at the
// start of that line. With -short it cuts every line at its first two
// bytes and at every seventh: the run with the default toolchain cuts
// everywhere.
func TestGoTextCutEverywhere(t *testing.T) {
	stride, minChecked := 1, 1000
	if testing.Short() {
		stride, minChecked = 7, 150
	}
	for _, name := range []string{"panic_go127.txt", "leak_debug2_go127.txt", "race_go127.txt"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/go/" + name)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			start, checked, undetectable := 0, 0, 0
			for i, l := range lines {
				body := strings.TrimSuffix(l, "\n")
				inRecord := reRecordLine.MatchString(body) && !strings.HasPrefix(body, "exit status")
				for k := start + 1; inRecord && k < start+len(body); k++ {
					if off := k - start; off > 2 && off%stride != 0 {
						continue
					}
					piece := string(data[start:k])
					if isUndetectableCut(lines, i, piece) {
						undetectable++
						continue
					}
					checked++
					checkCut(t, data, k, start, i+1)
				}
				start += len(l)
			}
			if checked < minChecked {
				t.Errorf("only %d cuts checked", checked)
			}
			t.Logf("%d cuts checked, %d undetectable", checked, undetectable)
		})
	}
}

// reOffset matches a file line's `+0x…` pc offset.
var reOffset = regexp.MustCompile(` \+0x[0-9a-f]+`)

// isUndetectableCut reports whether piece, the start of line i, reads as
// a whole line that may end a record: the file line of a record's
// outermost frame (main.main, runtime.goexit), of its creator, or of the
// last frame before junk, cut inside its `+0x…` offset or the fp/sp/pc
// after it. Nothing tells it from the whole line, which a file without a
// final newline ends with.
func isUndetectableCut(lines []string, i int, piece string) bool {
	if !strings.HasPrefix(piece, "\t") || !reOffset.MatchString(piece) || i == 0 {
		return false
	}
	prev := lines[i-1]
	lastBeforeJunk := i+1 < len(lines) && !reRecordLine.MatchString(strings.TrimSuffix(lines[i+1], "\n"))
	return strings.HasPrefix(prev, "created by ") || strings.HasPrefix(prev, "main.main(") ||
		strings.HasPrefix(prev, "runtime.goexit(") || lastBeforeJunk
}

func checkCut(t *testing.T, data []byte, k, lineStart, lineNum int) {
	t.Helper()
	cut := readGoText(t, data[:k])
	if len(cut) == 0 {
		if len(readGoText(t, data[:lineStart])) == 0 {
			return // a cut first header with nothing before it is no dump
		}
		t.Fatalf("cut at %d: no dump", k)
	}
	last := cut[len(cut)-1]
	if !last.Truncated {
		t.Errorf("cut at byte %d (line %d, %q): not truncated", k, lineNum, data[lineStart:k])
		return
	}
	var w *stack.ParseError
	for _, pe := range last.Warnings {
		if strings.Contains(pe.Msg, "truncated") {
			w = pe
		}
	}
	if w == nil || w.Line != lineNum {
		t.Errorf("cut at byte %d: truncation warning %v, want one at line %d", k, w, lineNum)
		return
	}
	if !strings.Contains(w.Msg, "partial line is dropped") {
		return // a whole-looking line, kept
	}
	whole := readGoText(t, data[:lineStart])
	if got, want := routinesText(cut), routinesText(whole); got != want {
		t.Errorf("cut at byte %d: the partial line was not dropped:\n%s", k, dumptest.DiffText(want, got))
	}
}

// routinesText renders the routines, races and system stacks of dumps.
func routinesText(dumps []*stack.Dump) string {
	var b bytes.Buffer
	for _, d := range dumps {
		c := *d
		c.Warnings, c.Truncated = nil, false
		b.WriteString(dumptest.Describe(&c, dumptest.DescribeOptions{Lines: true}))
	}
	return b.String()
}
