package codec

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// refLine is what readLine should report for one line.
type refLine struct {
	text  string // without terminator; "" for a skipped line
	long  bool   // skipped for its length
	num   int
	off   int64
	noEOL bool
}

// refLines splits data the simple way: lines end at '\n', a "\r" before
// it is dropped, a line longer than max is skipped.
func refLines(data []byte, max int) []refLine {
	var out []refLine
	off := int64(0)
	for num := 1; len(data) > 0; num++ {
		i := bytes.IndexByte(data, '\n')
		raw, noEOL := data, true
		if i >= 0 {
			raw, noEOL = data[:i+1], false
		}
		data = data[len(raw):]
		text := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		l := refLine{text: string(text), num: num, off: off, noEOL: noEOL}
		if len(text) > max {
			l.text, l.long = "", true
		}
		out = append(out, l)
		off += int64(len(raw))
	}
	return out
}

// TestLineReader reads random text, with lines around the buffer size and
// the line limit, through small buffers, one-byte reads and in memory
// (newMemLineReader), and compares every line, number, offset and error
// with refLines. Lines are also taken the way an accelerator takes them:
// out of the Window, one line or a run of them, with Advance, which must
// leave the cursor where ReadLine would have left it; a text that is not
// the window's next line is never found there.
func TestLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	skipped, peeked := 0, 0
	for round := range 300 {
		var data []byte
		for range rng.IntN(40) {
			n := rng.IntN(50)
			if rng.IntN(8) == 0 {
				n = rng.IntN(300) // longer than the buffer or the limit
			}
			for range n {
				data = append(data, "abc \t(){}:0x"[rng.IntN(12)])
			}
			switch rng.IntN(5) {
			case 0:
				data = append(data, '\r', '\n')
			case 1:
				data = append(data, '\n', '\n')
			default:
				data = append(data, '\n')
			}
		}
		if rng.IntN(3) == 0 && len(data) > 0 {
			data = data[:len(data)-1-rng.IntN(len(data))/2] // cut mid-line
		}
		max := 16 + rng.IntN(120)
		var src io.Reader = bytes.NewReader(data)
		if round%3 == 1 {
			src = iotest.OneByteReader(src)
		}
		lr := newLineReader(bufio.NewReaderSize(src, 16+rng.IntN(64)), max)
		if round%3 == 2 {
			lr = newMemLineReader(data, max) // the input in memory
		}
		want := refLines(data, max)
		for i := 0; i < len(want); i++ {
			w := want[i]
			win, pos := lr.Window()
			if string(win[pos:]) != string(data[w.off:w.off+int64(len(win)-pos)]) {
				t.Fatalf("round %d line %d: the window holds %q, not the input at %d", round, i, win[pos:], w.off)
			}
			if !w.long && rng.IntN(2) == 0 {
				// The line as its text and a "\n" in the window: taken
				// alone; a wrong text is not there.
				if windowHolds(win, pos, w.text+"x", max) {
					t.Fatalf("round %d line %d: the window holds a wrong text", round, i)
				}
				if !windowHolds(win, pos, w.text, max) {
					goto read
				}
				lr.Advance(len(w.text)+1, 1)
				if l := lr.Line(); string(l.Text) != w.text || l.Num != w.num || l.Off != w.off || l.NoEOL || lr.Offset() != w.off+int64(len(w.text)+1) {
					t.Fatalf("round %d line %d: Advance left %+v next=%d; want %+v", round, i, l, lr.Offset(), w)
				}
				skipped++
				continue
			} else if n, k := wholeLines(win, pos, max, 1+rng.IntN(3)); k > 0 {
				// A run of whole lines ended by "\n" alone, as
				// ReadLine would return them.
				lr.Advance(n, k)
				last := want[i+k-1]
				for _, x := range want[i : i+k] {
					if x.long || x.noEOL {
						t.Fatalf("round %d line %d: the window offered %+v", round, i, x)
					}
				}
				if l := lr.Line(); string(l.Text) != last.text || l.Num != last.num || l.Off != last.off || l.NoEOL || lr.Offset() != w.off+int64(n) {
					t.Fatalf("round %d line %d: Advance(%d, %d) left %+v next=%d; want %+v", round, i, n, k, l, lr.Offset(), last)
				}
				i += k - 1
				peeked++
				continue
			}
		read:
			l, err := lr.ReadLine()
			switch {
			case w.long && err != ErrLineTooLong,
				!w.long && (err != nil || string(l.Text) != w.text),
				l.Num != w.num || l.Off != w.off || l.NoEOL != w.noEOL:
				t.Fatalf("round %d line %d: got %+v %v; want %+v", round, i, l, err, w)
			}
			if n, _ := lr.TooLong(); w.long && n < int64(max) {
				t.Fatalf("round %d line %d: skipped line of %d bytes reported as %d", round, i, len(w.text), n)
			}
		}
		if l, err := lr.ReadLine(); err != io.EOF {
			t.Fatalf("round %d: after the last line got %+v, %v; want EOF", round, l, err)
		}
	}
	if skipped < 100 || peeked < 100 {
		t.Errorf("took only %d single lines and %d runs out of the window", skipped, peeked)
	}
}

// windowHolds reports whether win[pos:] starts with text and a "\n", as a
// line ReadLine would return: no longer than max, not ending in "\r".
func windowHolds(win []byte, pos int, text string, max int) bool {
	end := pos + len(text)
	return end < len(win) && win[end] == '\n' && len(text) <= max &&
		(len(text) == 0 || text[len(text)-1] != '\r') && string(win[pos:end]) == text
}

// wholeLines returns the bytes and the number of up to count whole lines
// at win[pos:], each ended by "\n" alone, not empty and no longer than
// max.
func wholeLines(win []byte, pos, max, count int) (n, k int) {
	for k < count {
		e := bytes.IndexByte(win[pos+n:], '\n')
		if e <= 0 || e > max || win[pos+n+e-1] == '\r' {
			break
		}
		n += e + 1
		k++
	}
	return n, k
}
