package unpaste

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// A dump copied out of a terminal or a narrow window can come with its
// long lines broken at the window's width, the rest of each at column 0:
//
//	"main" #1 prio=5 os_prio=0 cpu=58.52ms elapsed=4.85s tid=0x00007f6d64017ea0 nid=0x1ab5 waiting on condition  [0x3
//	84bf000]
//
// The width is learnt from the head (sniffSoftWrap): lines of exactly the
// longest length, each followed by a line no dump starts a line with. The
// framed LineReader then joins such a line with the lines that continue it
// (fillWrapped); the joined line has the first one's number and offset.

// minWrapWidth is the narrowest window a soft wrap is learnt for.
const minWrapWidth = 40

// wrapWidth measures a line as a window does: in bytes (a viewer that
// breaks the text itself) or in columns, tabs to the next multiple of 8
// and a rune each (a terminal).
func wrapWidth(l []byte, columns bool) int {
	if !columns {
		return len(l)
	}
	n := 0
	for i := 0; i < len(l); {
		if i+8 <= len(l) && plainWord(binary.LittleEndian.Uint64(l[i:])) {
			n, i = n+8, i+8 // eight ASCII bytes, no tab: a column each
			continue
		}
		switch c := l[i]; {
		case c == '\t':
			n += 8 - n%8
			i++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			_, size := utf8.DecodeRune(l[i:])
			i += size
			n++
		}
	}
	return n
}

// plainWord reports whether the eight bytes of x are ASCII and none is a
// tab.
func plainWord(x uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	t := x ^ ('\t' * ones) // a zero byte where x has a tab
	return x&high == 0 && (t-ones)&^t&high == 0
}

// sniffSoftWrap returns the width the lines of head were broken at, and
// whether it counts columns; 0 when they were not.
func sniffSoftWrap(head []byte, f *Frame) (width int, columns bool) {
	if f.Padded || f.Flat || f.Doubled {
		return 0, false // every line at the width, or at column 0: no line stands out
	}
	// The lines of head, but the last, perhaps cut, one, without "\r":
	// cut once, and measured once for each way of counting (the head is
	// 64 KiB of every input read, so this is part of each read's cost).
	head = head[:bytes.LastIndexByte(head, '\n')+1]
	lines := make([][]byte, 0, bytes.Count(head, []byte("\n")))
	for l := range bytes.Lines(head) {
		lines = append(lines, bytes.TrimSuffix(l[:len(l)-1], []byte("\r")))
	}
	widths := make([]int32, len(lines))
	best := 0
	for _, cols := range []bool{false, true} {
		w := int32(0)
		for i := range widths {
			widths[i] = int32(wrapWidth(lines[i], cols))
			w = max(w, widths[i])
		}
		if w < minWrapWidth {
			continue
		}
		// A line of the full width that the next continues is a broken
		// one; a line of the full width the next does not continue is
		// evidence against, unless it is itself the rest of a broken line
		// (a line twice the width ends with a full one).
		broken, whole := 0, 0
		rest := false // the line continues the line before it
		for i := 0; i+1 < len(widths); i++ {
			full := widths[i] == w
			cont := full && f.continuesLine(lines[i], lines[i+1])
			switch {
			case cont:
				broken++
			case full && !rest:
				whole++
			}
			rest = cont
		}
		if broken >= 2 && 2*broken >= whole && broken > best {
			best, width, columns = broken, int(w), cols
		}
	}
	return width, columns
}

// continues reports whether l, the line after one of the window's full
// width, is the rest of that line: text at column 0 that no line of a dump
// starts with, and without the paste's own prefix or quotes (they stand
// before the whole line, not before its rest).
func (f *Frame) continues(l []byte) bool {
	return f.mayContinue(l) && !isCallLine(l)
}

// mayContinue is continues without its test for a call line.
func (f *Frame) mayContinue(l []byte) bool {
	if len(l) == 0 || l[0] == ' ' || l[0] == '\t' {
		return false
	}
	if f.Quote > 0 && l[0] == '>' || f.Prefix.Active() && (f.Prefix.Match(l) > 0 || f.Prefix.MatchBare(l)) {
		return false
	}
	if f.forms.StartForm(l) != "" {
		return false
	}
	for _, p := range []string{"created by ", "goroutine ", "#", "\"", "panic: ", "fatal error: ", "SIG", "PC=",
		"Full thread dump", "JNI global", "Found ", "Java stack information", "==", "WARNING: DATA RACE",
		"java.lang.Thread.State:", "at ", "- ", "Locked ownable synchronizers:", "Heap", "[originating from goroutine",
		"...", "exit status", "runtime stack:", "```", "<", "["} {
		if bytes.HasPrefix(l, []byte(p)) {
			return false
		}
	}
	return true
}

// continuesLine reports whether l is the rest of full, a line of the
// window's width: l continues it (continues), and a location line at
// column 0 (the rest of a broken one, "ock_test.go:12 +0x7e") is taken
// for one only after a location line that lost its end, not after a
// call: a flattened dump has them at column 0 everywhere.
func (f *Frame) continuesLine(full, l []byte) bool {
	if t := bytes.TrimLeft(l, " "); bytes.HasPrefix(t, []byte("[0x")) && bytes.HasSuffix(t, []byte("]")) &&
		f.forms.StartForm(full) == stack.KindJVMText && !bytes.HasSuffix(full, []byte("]")) {
		// A thread header broken before the spaces and address that end
		// it.
		return true
	}
	if unfinished(full) && f.mayContinue(l) {
		// A call or a thread header the window cut: whatever follows at
		// column 0 is its rest, even when it ends like a call.
		return true
	}
	if !f.continues(l) {
		return false
	}
	return !isGoFileLine(l) || len(full) > 0 && full[0] == '\t' && !isGoFileLine(full)
}

// unfinished reports whether full, a line at column 0, stops where no
// line of a dump does: a call without its closing parenthesis, a thread
// header inside its address.
func unfinished(full []byte) bool {
	if len(full) == 0 || full[0] == ' ' || full[0] == '\t' {
		return false
	}
	switch full[len(full)-1] {
	case ')', ':', ']':
		return false
	}
	return bytes.IndexByte(full, '(') > 0 || full[0] == '"'
}

// fillWrapped queues ln, a raw line just read, joined with the lines that
// continue it. It returns false when the line is not the window's width:
// queueRead queues it as it is.
func (fr *layer) fillWrapped(ln codec.Line) bool {
	f := &fr.f
	if wrapWidth(ln.Text, f.WrapColumns) != f.Wrap {
		return false
	}
	it := fr.item()
	it.num, it.off = ln.Num, ln.Off
	joined := append(fr.wrapBuf[:0], ln.Text...)
	lastAt := 0 // where the last piece starts in joined: its bytes may be gone once the next line is read
	next, noEOL := fr.raw.Offset(), ln.NoEOL
	for wrapWidth(joined[lastAt:], f.WrapColumns) == f.Wrap {
		l, err := fr.raw.ReadLine()
		if err != nil || !f.continuesLine(joined[lastAt:], l.Text) {
			// The line ends here. What was read after it is queued
			// now if it is the end, else held for the next fill.
			it.next, it.noEOL = next, noEOL
			fr.wrapBuf = joined
			fr.classify(it, joined)
			if err != nil {
				fr.queueRead(l, fr.raw.Offset(), err)
			} else {
				p := &fr.peek
				p.text = append(p.text[:0], l.Text...)
				p.line, p.line.Text = l, p.text
				p.next, p.set = fr.raw.Offset(), true
			}
			return true
		}
		lastAt = len(joined)
		joined = append(joined, l.Text...)
		next, noEOL = fr.raw.Offset(), l.NoEOL
	}
	it.next, it.noEOL = next, noEOL
	fr.wrapBuf = joined
	fr.classify(it, joined)
	return true
}

// isCallLine reports whether l (trimmed) is shaped as a Go function
// call line: "main.worker(0xc000012345, ...)", "main.main()".
func isCallLine(l []byte) bool {
	return len(l) > 2 && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0
}

// rawPeek is a raw line fillWrapped read to see whether it continued the
// line before, and did not: fill queues it next. text keeps its bytes.
type rawPeek struct {
	line codec.Line
	text []byte
	next int64
	set  bool
}
