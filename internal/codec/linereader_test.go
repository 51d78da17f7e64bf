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
// (newMemLineReader), and compares
// every line, number, offset and error with refLines; every other line is
// first offered to skipLine, which may take it only when it is exactly the
// text given and a "\n", and the others to PeekLine and TakeLine, which
// may take it only as ReadLine would return it.
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
		lr := NewLineReader(bufio.NewReaderSize(src, 16+rng.IntN(64)), max)
		if round%3 == 2 {
			lr = newMemLineReader(data, max) // the input in memory
		}
		want := refLines(data, max)
		for i, w := range want {
			if !w.long && rng.IntN(2) == 0 {
				// skipLine takes the line only as text+"\n" in the window.
				if lr.SkipLine(w.text + "x") {
					t.Fatalf("round %d line %d: skipLine took a wrong text", round, i)
				}
				raw := data[w.off:min(len(data), int(w.off)+len(w.text)+1)]
				took := lr.SkipLine(w.text)
				if took && (string(raw) != w.text+"\n" || lr.Num != w.num || lr.Off != w.off || lr.NoEOL) {
					t.Fatalf("round %d line %d: skipLine took %q: num=%d off=%d; want %+v", round, i, raw, lr.Num, lr.Off, w)
				}
				if took {
					skipped++
					continue
				}
			} else if peek := lr.PeekLine(); peek != nil {
				// PeekLine offers the line only as ReadLine returns it,
				// from the window, ended by "\n" alone.
				raw := data[w.off:min(len(data), int(w.off)+len(peek)+1)]
				if w.long || string(peek) != w.text || string(raw) != w.text+"\n" {
					t.Fatalf("round %d line %d: PeekLine gave %q; want %+v (%q in the input)", round, i, peek, w, raw)
				}
				lr.TakeLine(peek)
				if lr.Num != w.num || lr.Off != w.off || lr.NoEOL || lr.NextOff != w.off+int64(len(raw)) {
					t.Fatalf("round %d line %d: TakeLine left num=%d off=%d next=%d noEOL=%v; want %+v", round, i, lr.Num, lr.Off, lr.NextOff, lr.NoEOL, w)
				}
				peeked++
				continue
			}
			line, err := lr.ReadLine()
			switch {
			case w.long && err != ErrLineTooLong,
				!w.long && (err != nil || string(line) != w.text),
				lr.Num != w.num || lr.Off != w.off || lr.NoEOL != w.noEOL:
				t.Fatalf("round %d line %d: got %q %v num=%d off=%d noEOL=%v; want %+v", round, i, line, err, lr.Num, lr.Off, lr.NoEOL, w)
			}
			if w.long && lr.longLen < int64(max) {
				t.Fatalf("round %d line %d: skipped line of %d bytes reported as %d", round, i, len(w.text), lr.longLen)
			}
		}
		if line, err := lr.ReadLine(); err != io.EOF {
			t.Fatalf("round %d: after the last line got %q, %v; want EOF", round, line, err)
		}
	}
	if skipped < 100 || peeked < 100 {
		t.Errorf("skipLine took only %d lines, PeekLine offered %d", skipped, peeked)
	}
}
