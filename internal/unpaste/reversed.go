package unpaste

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
)

// A log viewer (CloudWatch, Splunk, Kibana) shows the newest line first,
// and a dump copied out of it comes reversed: a goroutine's frames above
// its header, a thread's header below its stack. Such a paste is learnt
// from the head (sniffReversed) and read back in order: the layer reads
// the input whole (up to maxReversedBytes) and returns its lines from the
// last up, each with its own line number and offset, and the first dump
// read says so in a warning (codec.Reader.Next, from the layer's Note).

// maxReversedBytes bounds the input a reversed paste is read whole for:
// runtime/pprof's own cut of a debug=2 dump. A larger input is read in
// its order, as the readers read any reversed text (with a warning that
// the lines look reversed).
const maxReversedBytes = 64 << 20

// reversedMsg is the warning of a dump read from a reversed paste.
const reversedMsg = "the lines come newest first (as a log viewer shows them): read from the last line up"

// sniffReversed reports whether the lines of head come newest first:
// the lines that start a block of a dump (codec.Form.Block: a goroutine,
// a debug=1 record, a JVM thread, a race report's block) stand below the
// lines that follow them in a dump (a call, a `#` frame line,
// `java.lang.Thread.State:`) rather than above.
func sniffReversed(head []byte, f *Frame, forms codec.Forms) bool {
	// Each line that starts a block is judged by the lines around it.
	reversed, inOrder := 0, 0
	var prev, cur []byte
	n := 0
	judge := func(next []byte) {
		follows := forms.BlockStart(cur)
		switch {
		case follows == nil:
		case follows(next):
			inOrder++
		case follows(prev):
			reversed++
		}
	}
	for len(head) > 0 {
		k := bytes.IndexByte(head, '\n')
		if k < 0 {
			break // the last, perhaps cut, line of the head
		}
		line := head[:k]
		head = head[k+1:]
		if f != nil {
			line = f.Strip(line)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 && f != nil && f.Doubled {
			continue // a blank line after every line: the lines around it are neighbours
		}
		if n > 0 {
			judge(line)
		}
		prev, cur = cur, line
		n++
	}
	if n > 0 {
		judge(nil)
	}
	return reversed >= 1 && inOrder == 0 || reversed >= 2 && reversed >= 4*inOrder
}

// rawLine is one line of a reversed input, as read.
type rawLine struct {
	text      []byte
	num       int
	off, next int64
}

// fillReversed reads the whole input and queues its lines from the last
// to the first, then its end. An input larger than maxReversedBytes is
// queued in its order, and read on as it comes.
func (fr *layer) fillReversed() {
	fr.reversedRead = true
	var lines []rawLine
	var size int64
	var end *frameItem
	for end == nil && size <= fr.maxReversed {
		ln, err := fr.raw.ReadLine()
		next := fr.raw.Offset()
		switch {
		case err == codec.ErrLineTooLong:
			// Kept in place as a line of its own: the warning names it.
			it := fr.item()
			it.num, it.off, it.next = ln.Num, ln.Off, next
			it.kind = itemLong
			n, head := fr.raw.TooLong()
			it.longLen, it.longHead = n, append(it.longHead, head...)
			lines = append(lines, rawLine{num: -1, off: int64(len(fr.queue))})
			fr.queue = append(fr.queue, it)
		case err != nil:
			end = fr.item()
			end.num, end.off, end.next = ln.Num, ln.Off, next
			end.kind, end.err = itemErr, err
		default:
			lines = append(lines, rawLine{text: bytes.Clone(ln.Text), num: ln.Num, off: ln.Off, next: next})
			size += int64(len(ln.Text))
		}
	}
	long := fr.queue
	fr.queue = nil
	if end == nil {
		// Too large to hold: read in its order.
		fr.f.Reversed = false
		for _, l := range lines {
			fr.queueRaw(l, long)
		}
		return
	}
	for i := len(lines) - 1; i >= 0; i-- {
		fr.queueRaw(lines[i], long)
	}
	fr.queue = append(fr.queue, end)
}

// queueRaw classifies and queues one line read by fillReversed (an
// overlong line, num -1, is the item at index off of long).
func (fr *layer) queueRaw(l rawLine, long []*frameItem) {
	if l.num < 0 {
		fr.queue = append(fr.queue, long[l.off])
		return
	}
	it := fr.item()
	it.num, it.off, it.next = l.num, l.off, l.next
	fr.classify(it, l.text)
}
