package codec

import "bytes"

// A log viewer (CloudWatch, Splunk, Kibana) shows the newest line first,
// and a dump copied out of it comes reversed: a goroutine's frames above
// its header, a thread's header below its stack. Such a paste is learnt
// from the head (sniffReversed) and read back in order: the framed
// LineReader reads the input whole (up to maxReversedBytes) and returns
// its lines from the last up, each with its own line number and offset,
// and the first dump read says so in a warning (Reader.Next).

// maxReversedBytes bounds the input a reversed paste is read whole for:
// runtime/pprof's own cut of a debug=2 dump. A larger input is read in
// its order, as the readers read any reversed text (with a warning that
// the lines look reversed).
const maxReversedBytes = 64 << 20

// reversedMsg is the warning of a dump read from a reversed paste.
const reversedMsg = "the lines come newest first (as a log viewer shows them): read from the last line up"

// sniffReversed reports whether the lines of head come newest first:
// the lines that start a goroutine, a debug=1 record, a JVM thread or a
// race report's block stand below the lines that follow them in a dump
// (a call, a `#` frame line, `java.lang.Thread.State:`) rather than above.
func sniffReversed(head []byte, f *Frame) bool {
	// Each line that starts a block is judged by the lines around it.
	reversed, inOrder := 0, 0
	var prev, cur []byte
	n := 0
	judge := func(next []byte) {
		follows := blockStart(cur)
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

// blockStart returns, for a line that starts a block of a dump (a
// goroutine header, a debug=1 record, a JVM thread header, a race
// report's access or creation line), a test of the line that comes right
// after it in the dump; nil for any other line.
func blockStart(line []byte) func([]byte) bool {
	if len(line) == 0 || !mayStartBlock[line[0]] {
		return nil // most lines: the tests below all need one of these first bytes
	}
	switch {
	case IsDebug1Record(line):
		return func(l []byte) bool { return bytes.HasPrefix(l, []byte("#")) }
	case IsJVMThreadHeader(line):
		// jstack's state line, or the first frame of the forms that have
		// none (ThreadInfo.toString, Thread.dump_to_file).
		return func(l []byte) bool {
			return bytes.HasPrefix(l, []byte("java.lang.Thread.State: ")) || isJVMFrameLine(l)
		}
	case IsGoHeader(line), isRaceBlockStart(line):
		return isCallLine
	}
	return nil
}

// isJVMFrameLine reports whether l (trimmed) is a Java frame: "at
// java.lang.Thread.run(Thread.java:750)", or without "at" as
// Thread.dump_to_file writes it.
func isJVMFrameLine(l []byte) bool {
	return len(l) > 2 && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0 && l[0] != '"' && l[0] != '#'
}

// isCallLine reports whether l (trimmed) is a Go function call line:
// "main.worker(0xc000012345, ...)", "main.main()".
func isCallLine(l []byte) bool {
	return len(l) > 2 && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0 && !IsGoHeader(l)
}

// mayStartBlock holds the first bytes of the lines blockStart knows: a
// debug=1 record's count, a JVM thread header's quote or '#', a goroutine
// header's 'g' and the capitals of a race report's block lines. (A
// literal: nothing runs at init in every program that links the codec.)
var mayStartBlock = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, // debug=1
	'5': true, '6': true, '7': true, '8': true, '9': true,
	'"': true, '#': true, // JVM
	'g': true,                                             // goroutine
	'R': true, 'W': true, 'P': true, 'A': true, 'G': true, // race: Read, Write, Previous, Atomic, Goroutine
}

// isRaceBlockStart reports whether line starts a block of a race report:
// an access ("Read at 0x… by goroutine 7:") or a goroutine's creation
// ("Goroutine 7 (running) created at:").
func isRaceBlockStart(line []byte) bool {
	if !bytes.HasSuffix(line, []byte(":")) {
		return false
	}
	for _, p := range []string{"Read at ", "Write at ", "Previous read at ", "Previous write at ",
		"Atomic read at ", "Atomic write at ", "Previous atomic read at ", "Previous atomic write at "} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return bytes.HasPrefix(line, []byte("Goroutine ")) && bytes.HasSuffix(line, []byte(" created at:"))
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
func (lr *LineReader) fillReversed() {
	fr := lr.frame.(*framer)
	fr.reversedRead = true
	var lines []rawLine
	var size int64
	var end *frameItem
	for end == nil && size <= fr.maxReversed {
		if fr.rawSet {
			lr.Num, lr.NextOff = fr.rawNum, fr.rawNext
		}
		raw, err := lr.readRaw()
		fr.rawNum, fr.rawNext, fr.rawSet = lr.Num, lr.NextOff, true
		switch {
		case err == ErrLineTooLong:
			// Kept in place as a line of its own: the warning names it.
			it := fr.item()
			it.num, it.off, it.next = lr.Num, lr.Off, lr.NextOff
			it.kind, it.longLen = itemLong, lr.longLen
			it.longHead = append(it.longHead, lr.LongHead...)
			lines = append(lines, rawLine{num: -1, off: int64(len(fr.queue))})
			fr.queue = append(fr.queue, it)
		case err != nil:
			end = fr.item()
			end.num, end.off, end.next = lr.Num, lr.Off, lr.NextOff
			end.kind, end.err = itemErr, err
		default:
			lines = append(lines, rawLine{text: bytes.Clone(raw), num: lr.Num, off: lr.Off, next: lr.NextOff})
			size += int64(len(raw))
		}
	}
	long := fr.queue
	fr.queue = nil
	if end == nil {
		// Too large to hold: read in its order.
		fr.f.Reversed = false
		for _, l := range lines {
			lr.queueRaw(l, long)
		}
		return
	}
	for i := len(lines) - 1; i >= 0; i-- {
		lr.queueRaw(lines[i], long)
	}
	fr.queue = append(fr.queue, end)
}

// queueRaw classifies and queues one line read by fillReversed (an
// overlong line, num -1, is the item at index off of long).
func (lr *LineReader) queueRaw(l rawLine, long []*frameItem) {
	fr := lr.frame.(*framer)
	if l.num < 0 {
		fr.queue = append(fr.queue, long[l.off])
		return
	}
	it := fr.item()
	it.num, it.off, it.next = l.num, l.off, l.next
	fr.classify(it, l.text)
}
