package unpaste

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/paste"
)

// frameSeeds are real dumps of the repository, as the runtime and the JVM
// wrote them and in some of their pasted forms.
func frameSeeds(f *testing.F) {
	for _, name := range []string{"go/sigquit_go126.txt", "go/race_go126.txt", "corpus/go/gostackparse_cgo.txt",
		"debug1/go1.26.8.txt", "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", "jvm/threadinfo_jdk17.0.15.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		data = data[:min(len(data), 8<<10)]
		f.Add(data)
		for _, tr := range append(paste.All(), paste.Combos()...) {
			if tr.Applies(data) {
				f.Add(tr.Apply(data, 1))
			}
		}
	}
}

// rawLines splits data as the line reader does: lines without "\n" or
// "\r\n", and where each starts.
func rawLines(data []byte) (lines [][]byte, starts []int64) {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		end := len(data)
		if j >= 0 {
			end = i + j
		}
		lines = append(lines, bytes.TrimSuffix(data[i:end], []byte("\r")))
		starts = append(starts, int64(i))
		i = end + 1
	}
	return lines, starts
}

// FuzzPasteFrame reads arbitrary text through the paste frame it sniffs
// and checks that the frame never eats a line: every line it returns is
// the input's line of that number, at its offset, at most stripped of
// the frame (quotes, prefix, padding, escapes, a glued fence); every line
// it does not return is a frame line (a fence, an HTML tag, grep's "--")
// or blank; and an input whose first lines show no frame is read line for
// line as without one.
func FuzzPasteFrame(f *testing.F) {
	frameSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, starts := rawLines(data)
		fr := sniffAll(data[:min(len(data), sniffBytes)])
		lr, ly := framedLines(data, fr, 0)
		returned := make([]bool, len(lines))
		last := 0
		for n := 0; ; n++ {
			if n > 2*len(data)+4 {
				t.Fatal("the framed reader does not end")
			}
			ln, err := lr.Read()
			if err == io.EOF {
				break
			}
			line := ln.Text
			if ln.Num < last && (fr == nil || !fr.Reversed) || ln.Num > len(lines) || ln.Num < 1 {
				t.Fatalf("line number %d after %d, of %d lines", ln.Num, last, len(lines))
			}
			last = ln.Num
			returned[ln.Num-1] = true
			if err == codec.ErrRegionEnd || err == codec.ErrGap || err == codec.ErrLineTooLong {
				continue
			}
			if err != nil {
				t.Fatalf("line %d: %v", ln.Num, err)
			}
			if ln.Off != starts[ln.Num-1] {
				t.Fatalf("line %d at offset %d, it starts at %d", ln.Num, ln.Off, starts[ln.Num-1])
			}
			raw := lines[ln.Num-1]
			if fr != nil && fr.Wrap > 0 {
				// A soft-wrapped line joined again: it is the input's lines
				// from its own to the one before NextOff, without their
				// newlines.
				for k := ln.Num; k < len(lines) && starts[k] < ly.next; k++ {
					raw = append(bytes.Clone(raw), lines[k]...)
					returned[k] = true
				}
			}
			if fr != nil && fr.TestJSON {
				raw, _ = testJSONOutput(raw)
			}
			if fr != nil && fr.JSONField != "" {
				if ls, ok := jsonFieldLines(raw, fr.JSONField); ok {
					raw = bytes.Join(ls, []byte("\n")) // the line is one of its field's
				}
			}
			if fr != nil {
				raw = fr.unwrap(raw) // quotes, a list's numbers and escapes, fields after it
			}
			if fr != nil && fr.HTML {
				raw = unescapeHTML(raw)
			}
			if got := bytes.TrimSpace(line); !bytes.Contains(raw, got) {
				t.Fatalf("line %d reads %q, which the input's line %q does not hold", ln.Num, line, lines[ln.Num-1])
			}
			if fr == nil && !bytes.Equal(line, lines[ln.Num-1]) && ln.Num <= len(lines) {
				t.Fatalf("no frame, yet line %d reads %q for %q", ln.Num, line, lines[ln.Num-1])
			}
		}
		for i, ok := range returned {
			if ok {
				continue
			}
			l := lines[i]
			if fr != nil && fr.TestJSON {
				if _, ok := testJSONOutput(l); !ok {
					continue // an event without output
				}
			}
			if fr != nil {
				l = fr.unwrap(l)
				_, l = cutQuotes(l, fr.Quote)
				if fr.HTML {
					l = unescapeHTML(l)
				}
			}
			tl := bytes.TrimSpace(l)
			_, fence := fenceLine(tl)
			html := isHTMLFrameLine(tl) // looked for before the prefix, as the reader does
			if fr != nil && fr.Prefix.Active() {
				if k := fr.Prefix.Match(l); k > 0 {
					tl = bytes.TrimSpace(l[k:])
				} else if fr.Prefix.MatchBare(l) {
					tl = nil
				}
			}
			if len(tl) > 0 && !fence && !html && !isHTMLFrameLine(tl) && string(tl) != "--" {
				t.Fatalf("line %d %q was not returned (frame %+v)", i+1, lines[i], fr)
			}
		}
	})
}
