package codec

import (
	"bytes"
	"errors"
)

// ErrRegionEnd is returned by a framed LineReader's ReadLine at a line
// that closes a paste region: a closing fence, a closing HTML tag, prose
// after the dump. A reader ends the dump there as it would at the end of
// the input, judging whether it was cut (the line before has Last set),
// and goes on reading: another dump may follow. Num and Off name the
// closing line.
var ErrRegionEnd = errors.New("end of a paste region")

// ErrGap is returned by a framed LineReader's ReadLine at a grep group
// separator ("--"): lines of the dump were left out there. A reader ends
// the routine it was reading and says so in a warning naming the line
// (Num and Off), and goes on.
var ErrGap = errors.New("lines left out of the paste here")

// lookahead bounds how many lines a framed reader reads ahead to tell
// whether a line is the last of its paste region.
const lookahead = 64

// frameItem is one line of a framed input, classified.
type frameItem struct {
	kind  itemKind
	text  []byte // the line without its frame; owned by the item
	num   int
	off   int64
	next  int64 // byte offset after the line
	noEOL bool
	err   error // itemErr: the error; itemLong: errLineTooLong
	// For itemLong: what TooLongError needs.
	longLen  int64
	longHead []byte
}

type itemKind uint8

const (
	itemLine   itemKind = iota // a line of the dump (or other text) to read
	itemBlank                  // a blank line
	itemSkip                   // a frame line: not returned
	itemRegion                 // closes a paste region: ErrRegionEnd
	itemGap                    // grep's separator: ErrGap
	itemLong                   // an overlong line: ErrLineTooLong
	itemErr                    // a read error or io.EOF
)

// framer is the state of a LineReader reading a framed input.
type framer struct {
	f       Frame
	queue   []*frameItem
	free    []*frameItem
	fence   bool // inside a Markdown fence or an HTML <pre>
	inline  bool // a backtick glued to the first line is not closed yet
	first   bool // no line was kept yet
	start   bool // no line was kept since a paste region started
	content bool // the last line kept was not blank (Frame.Doubled)
	// sawContent is set once a line of the dump was kept; blank is set
	// when a blank line followed it (prose after it ends the region).
	sawContent, blank bool
	// rawNum and rawNext are the number and the end offset of the last
	// line read from the input (rawSet once one was).
	rawNum  int
	rawNext int64
	rawSet  bool
	jsonKey string // Frame.JSONField, kept while its lines are classified
	// reversedRead is set once a reversed input was read whole
	// (fillReversed), up to maxReversed bytes.
	reversedRead bool
	maxReversed  int64
	// wrapBuf holds a soft-wrapped line joined again (fillWrapped), and
	// peek the line read after it, queued by the next fill.
	wrapBuf []byte
	peek    rawPeek
}

// framedLines is how a LineReader reads its lines when a paste frame is
// set aside: the framer below. An interface, so that the framer is linked
// only into programs that set a frame (SetFrame), not into those that read
// only what the runtime wrote.
type framedLines interface {
	read(lr *LineReader) ([]byte, error)
	frame() *Frame
}

func (fr *framer) read(lr *LineReader) ([]byte, error) { return lr.readFramed() }
func (fr *framer) frame() *Frame                       { return &fr.f }

// SetFrame makes lr set the paste frame f aside (see Frame); nil reads
// lines as they are.
func (lr *LineReader) SetFrame(f *Frame) {
	if f == nil {
		lr.frame = nil
		lr.special = lr.back || len(lr.pushed) > 0
		return
	}
	lr.frame = &framer{f: *f, first: true, start: true, inline: f.Inline, jsonKey: f.JSONField, maxReversed: maxReversedBytes}
	lr.special = true
}

// Framed reports whether lr sets a paste frame aside: its lines are then
// not the input's bytes (Win must not be read directly).
func (lr *LineReader) Framed() bool { return lr.special }

// Frame returns the paste frame lr sets aside, or nil.
func (lr *LineReader) Frame() *Frame {
	if lr.frame == nil {
		return nil
	}
	return lr.frame.frame()
}

// readFramed returns the next line of a framed input (see ReadLine).
func (lr *LineReader) readFramed() ([]byte, error) {
	fr := lr.frame.(*framer)
	for {
		if len(fr.queue) == 0 {
			lr.fill()
		}
		it := fr.queue[0]
		switch it.kind {
		case itemSkip:
			fr.pop()
			fr.recycle(it)
			continue
		case itemLine:
			lr.Last = it.noEOL || lr.lastOfRegion()
		default:
			lr.Last = false
		}
		lr.Num, lr.Off, lr.NextOff, lr.NoEOL = it.num, it.off, it.next, it.noEOL
		lr.line = nil
		if it.kind == itemErr {
			// The error stays queued: every later call returns it again.
			return nil, it.err
		}
		fr.pop()
		var err error
		switch it.kind {
		case itemLine, itemBlank:
			lr.lineBuf = append(lr.lineBuf[:0], it.text...)
			lr.line = lr.lineBuf
		case itemRegion:
			err = ErrRegionEnd
		case itemGap:
			err = ErrGap
		case itemLong:
			lr.longLen = it.longLen
			lr.LongHead = append(lr.LongHead[:0], it.longHead...)
			err = ErrLineTooLong
		}
		fr.recycle(it)
		return lr.line, err
	}
}

// lastOfRegion reports whether the line at the head of the queue is the
// last line of its paste region: only blank lines or frame lines stand
// between it and a frame line that closes the region. The blank lines in
// between are then set aside, as the frame's: the dump ended with the
// line. The end of the input is judged as without a frame (NoEOL).
func (lr *LineReader) lastOfRegion() bool {
	fr := lr.frame.(*framer)
	for i := 1; ; i++ {
		for len(fr.queue) <= i {
			if len(fr.queue) > lookahead {
				return false
			}
			lr.fill()
		}
		switch it := fr.queue[i]; it.kind {
		case itemSkip, itemBlank:
			continue
		case itemRegion:
			for _, b := range fr.queue[1:i] {
				b.kind = itemSkip
			}
			return true
		case itemErr:
			// The end of the input is judged by NoEOL, as without a
			// frame: a line with its newline before it is whole.
			return false
		default:
			return false
		}
	}
}

func (fr *framer) pop() {
	copy(fr.queue, fr.queue[1:])
	fr.queue[len(fr.queue)-1] = nil
	fr.queue = fr.queue[:len(fr.queue)-1]
}

func (fr *framer) item() *frameItem {
	if n := len(fr.free); n > 0 {
		it := fr.free[n-1]
		fr.free = fr.free[:n-1]
		*it = frameItem{text: it.text[:0], longHead: it.longHead[:0]}
		return it
	}
	return new(frameItem)
}

func (fr *framer) recycle(it *frameItem) {
	if it.kind != itemErr {
		fr.free = append(fr.free, it)
	}
}

// fill reads one raw line and queues what it is (nothing once the input's
// end or error is queued).
func (lr *LineReader) fill() {
	fr := lr.frame.(*framer)
	if n := len(fr.queue); n > 0 && fr.queue[n-1].kind == itemErr {
		return
	}
	if fr.f.Reversed && !fr.reversedRead {
		lr.fillReversed()
		return
	}
	if p := &fr.peek; p.set {
		p.set = false
		lr.Num, lr.Off, lr.NextOff, lr.NoEOL = p.num, p.off, p.next, p.noEOL
		lr.queueRead(fr, p.text, nil)
		return
	}
	// The raw reader's position: lines returned since moved lr's.
	if fr.rawSet {
		lr.Num, lr.NextOff = fr.rawNum, fr.rawNext
	}
	raw, err := lr.readRaw()
	fr.rawNum, fr.rawNext, fr.rawSet = lr.Num, lr.NextOff, true
	lr.queueRead(fr, raw, err)
}

// queueRead queues what the raw line just read is (or the error that
// ended the reading): an overlong line, the end, or the items classify
// makes of it, joined first with the lines that continue it when the
// window broke it (fillWrapped).
func (lr *LineReader) queueRead(fr *framer, raw []byte, err error) {
	it := fr.item()
	it.num, it.off, it.next, it.noEOL = lr.Num, lr.Off, lr.NextOff, lr.NoEOL
	switch {
	case err == ErrLineTooLong:
		it.kind, it.longLen = itemLong, lr.longLen
		it.longHead = append(it.longHead, lr.LongHead...)
		fr.queue = append(fr.queue, it)
	case err != nil:
		it.kind, it.err = itemErr, err
		fr.queue = append(fr.queue, it)
	case fr.f.Wrap > 0 && lr.fillWrapped(fr, raw):
		fr.recycle(it)
	default:
		fr.classify(it, raw)
	}
}

// classify queues the items of one raw line.
func (fr *framer) classify(it *frameItem, raw []byte) {
	f := &fr.f
	if f.JSONField != "" {
		if lines, ok := JSONFieldLines(raw, f.JSONField); ok {
			// The dump's lines, all of this one line of the input.
			f.JSONField = ""
			for _, l := range lines {
				li := fr.item()
				li.num, li.off, li.next = it.num, it.off, it.next
				fr.classify(li, l)
			}
			f.JSONField = key(fr)
			it.kind = itemSkip
			fr.push(it)
			return
		}
	}
	if f.TestJSON {
		text, ok := TestJSONOutput(raw)
		if !ok {
			it.kind = itemSkip // an event without output: run, pass, fail
			fr.push(it)
			return
		}
		raw = text
	}
	raw = f.unwrap(raw)
	_, line := cutQuotes(raw, f.Quote)
	if f.HTML {
		line = UnescapeHTML(line)
	}
	if f.Padded {
		line = bytes.TrimRight(line, " \r")
	} else if f.CRs {
		line = bytes.TrimRight(line, "\r")
	}
	t := bytes.TrimSpace(line)
	if glued, ok := fenceLine(t); ok {
		if fr.fence {
			fr.fence = false
			it.kind = itemRegion
		} else {
			fr.fence, fr.start = true, true
			it.kind = itemSkip
		}
		fr.push(it)
		return
	} else if glued != nil && !fr.fence {
		// ```goroutine 77 [running]: the fence opens, the line is the dump's.
		fr.fence, fr.start = true, true
		line = glued
		t = bytes.TrimSpace(line)
	}
	if isHTMLFrameLine(t) {
		it.kind = itemSkip
		if htmlCloses(t) {
			it.kind = itemRegion
			fr.fence = false
		} else if bytes.HasSuffix(t, []byte("<pre>")) {
			fr.fence, fr.start = true, true
		}
		fr.push(it)
		return
	}
	if f.Prefix.Active() {
		if n := f.Prefix.Match(line); n > 0 {
			line = line[n:]
		} else if f.Prefix.MatchBare(line) {
			line = line[:0] // a blank line: the prefix without its last spaces
		} else if fr.start {
			line = line[f.Prefix.MatchTail(line):]
		}
	}
	t = bytes.TrimSpace(line)
	if string(t) == "--" {
		it.kind = itemGap
		fr.push(it)
		return
	}
	if len(t) == 0 {
		if f.Doubled && fr.content {
			fr.content = false
			it.kind = itemSkip
			fr.push(it)
			return
		}
		fr.content = false
		if fr.sawContent {
			fr.blank = true
		}
		it.kind = itemBlank
		it.text = append(it.text, line...)
		fr.push(it)
		return
	}
	fr.content = true
	if f.Chat && fr.sawContent && fr.blank && IsProse(t, false) {
		// Chat text after the dump: the region ends before it.
		end := fr.item()
		end.kind, end.num, end.off, end.next = itemRegion, it.num, it.off, it.off
		fr.push(end)
		fr.sawContent, fr.blank, fr.start = false, false, true
		it.kind = itemLine
		it.text = append(it.text, line...)
		fr.push(it)
		return
	}
	if f.Flat && line[0] != ' ' && line[0] != '\t' && IsGoFileLine(line) {
		// A file line that lost its tab: give it back.
		it.text = append(append(it.text, '\t'), line...)
		fr.first, fr.start = false, false
		fr.sawContent, fr.blank = true, false
		it.kind = itemLine
		fr.push(it)
		return
	}
	closes := false
	if fr.first && f.Inline && len(line) > 0 && line[0] == '`' {
		line = line[1:]
	}
	if fr.fence && bytes.HasSuffix(line, []byte("```")) && len(bytes.TrimRight(line, "`")) > 0 {
		line = bytes.TrimSuffix(bytes.TrimRight(line, "`"), []byte("\r"))
		closes, fr.fence = true, false
	} else if fr.inline && !fr.first && bytes.HasSuffix(line, []byte("`")) {
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		closes, fr.inline = true, false
	}
	fr.first, fr.start = false, false
	fr.sawContent, fr.blank = true, false
	it.kind = itemLine
	it.text = append(it.text, line...)
	fr.push(it)
	if closes {
		end := fr.item()
		end.kind, end.num, end.off, end.next = itemRegion, it.num, it.off, it.next
		fr.push(end)
	}
}

func (fr *framer) push(it *frameItem) { fr.queue = append(fr.queue, it) }

// key returns the JSON field the frame reads a dump from.
func key(fr *framer) string { return fr.jsonKey }
