package unpaste

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
)

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

// layer reads the lines of a pasted input with its frame set aside: a
// codec.Layer over the input's LineReader.
type layer struct {
	raw     *codec.LineReader
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
	jsonKey           string // Frame.JSONField, kept while its lines are classified
	// reversedRead is set once a reversed input was read whole
	// (fillReversed), up to maxReversed bytes.
	reversedRead bool
	maxReversed  int64
	// wrapBuf holds a soft-wrapped line joined again (fillWrapped), and
	// peek the line read after it, queued by the next fill.
	wrapBuf []byte
	peek    rawPeek
	// The line last returned: its text, the offset after it, and the
	// length and first bytes of an overlong one.
	lineBuf  []byte
	next     int64
	longLen  int64
	longHead []byte
}

// NewLines returns the lines of in, as codec.NewLines does, with the
// paste frame of the input set aside: the frame the door learnt while it
// sniffed the input (Stream.SetFrame), or else the one the input's first
// bytes show (Sniff, with the stream's forms, or forms when it has none).
// An input that shows none is read as it is, at no cost.
func NewLines(in *codec.Stream, max int, forms codec.Forms) *codec.Lines {
	if l := in.Lines(); l != nil {
		return l // a reader handed the stream on
	}
	l := codec.NewLines(in, max)
	f, known := in.Frame()
	if !known {
		if in.Forms != nil {
			forms = in.Forms
		}
		fr := Sniff(in.Head(sniffBytes), forms)
		in.SetFrame(fr)
		f = fr
	}
	if fr, _ := f.(*Frame); fr != nil {
		wrap(l, fr)
	}
	return l
}

// sniffBytes is how much of an input NewLines looks at.
const sniffBytes = 64 << 10

// wrap makes l read its lines through a layer that sets the paste frame
// f aside.
func wrap(l *codec.Lines, f *Frame) {
	l.Wrap(func(raw *codec.LineReader) codec.Layer { return newLayer(raw, f) })
}

// newLayer returns the layer that sets f aside from the lines of raw.
func newLayer(raw *codec.LineReader, f *Frame) *layer {
	return &layer{raw: raw, f: *f, first: true, start: true, inline: f.Inline, jsonKey: f.JSONField, maxReversed: maxReversedBytes}
}

// Note is codec.Layer's: a paste read from its last line up says so.
func (fr *layer) Note() string {
	if fr.f.Reversed {
		return reversedMsg
	}
	return ""
}

// TooLong is codec.Layer's.
func (fr *layer) TooLong() (int64, []byte) { return fr.longLen, fr.longHead }

// ReadLine returns the next line of a framed input (see codec.Layer).
func (fr *layer) ReadLine() (codec.Line, error) {
	for {
		if len(fr.queue) == 0 {
			fr.fill()
		}
		it := fr.queue[0]
		ln := codec.Line{Num: it.num, Off: it.off, NoEOL: it.noEOL}
		switch it.kind {
		case itemSkip:
			fr.pop()
			fr.recycle(it)
			continue
		case itemLine:
			ln.Last = it.noEOL || fr.lastOfRegion()
		}
		fr.next = it.next
		if it.kind == itemErr {
			// The error stays queued: every later call returns it again.
			return ln, it.err
		}
		fr.pop()
		var err error
		switch it.kind {
		case itemLine, itemBlank:
			fr.lineBuf = append(fr.lineBuf[:0], it.text...)
			ln.Text = fr.lineBuf
		case itemRegion:
			if fr.fenceClosedEarly() {
				// The dump goes on after the fence, its indentation lost
				// as Markdown renders text: not the end of the region.
				fr.recycle(it)
				continue
			}
			err = codec.ErrRegionEnd
		case itemGap:
			err = codec.ErrGap
		case itemLong:
			fr.longLen = it.longLen
			fr.longHead = append(fr.longHead[:0], it.longHead...)
			err = codec.ErrLineTooLong
		}
		fr.recycle(it)
		return ln, err
	}
}

// fenceClosedEarly reports, for the closing fence just popped, whether
// the dump goes on after it: the first line after it (past blank lines)
// is a dump's own or one of its stack lines at column 0, as a fence
// closed in the middle of a dump leaves the rest (rendered as Markdown
// text, copied back without its indentation). Those lines then read as
// flattened text: a Go file line at column 0 gets its tab back, here and
// after.
func (fr *layer) fenceClosedEarly() bool {
	seen := 0 // lines looked at after the fence
	for i := 0; ; i++ {
		for len(fr.queue) <= i {
			if len(fr.queue) > lookahead || fr.fence {
				return false // far, or a new fence opened: a paste of its own
			}
			fr.fill()
		}
		if fr.fence {
			return false
		}
		switch it := fr.queue[i]; it.kind {
		case itemSkip, itemBlank:
			continue
		case itemLine:
			if !continuesDump(it.text, fr.f.forms) {
				if seen++; seen < fenceLookLines {
					continue // a line of the dump no shape tells (a preamble's, a state)
				}
				return false
			}
			fr.f.Flat = true
			for _, q := range fr.queue[i:] {
				if q.kind == itemLine && len(q.text) > 0 && q.text[0] != ' ' && q.text[0] != '\t' && isGoFileLine(q.text) {
					q.text = append([]byte{'\t'}, q.text...)
				}
			}
			return true
		default:
			return false
		}
	}
}

// fenceLookLines bounds the lines looked at after a closing fence for one
// that goes on with the dump.
const fenceLookLines = 4

// continuesDump reports whether t, a line met right after a closing
// fence, is one of a dump: a line the forms know, or a stack's line that
// lost its indentation (a Go call or file line, `created by`, a JVM frame
// or lock line, a race report's block line).
func continuesDump(t []byte, forms codec.Forms) bool {
	t = bytes.TrimRight(t, "\r")
	switch {
	case len(t) == 0:
		return false
	case forms.LineForm(t) != "", isGoFileLine(t), bytes.HasPrefix(t, []byte("created by ")),
		bytes.HasPrefix(t, []byte("at ")) && bytes.HasSuffix(t, []byte(")")),
		len(t) > 2 && t[0] == '-' && t[1] == ' ' && (bytes.Contains(t, []byte("<0x")) || bytes.Contains(t, []byte(") @bci="))),
		bytes.HasPrefix(t, []byte("java.lang.Thread.State: ")), bytes.HasPrefix(t, []byte("Locked ownable synchronizers:")),
		bytes.HasPrefix(t, []byte("...additional frames elided...")), bytes.HasPrefix(t, []byte("[originating from goroutine ")),
		forms.BlockStart(t) != nil:
		return true
	}
	// A Go call line: "main.worker(0xc000012345, ...)".
	open := bytes.IndexByte(t, '(')
	return open > 0 && t[len(t)-1] == ')' && bytes.IndexByte(t[:open], ' ') < 0 && bytes.IndexByte(t[:open], '.') > 0
}

// lastOfRegion reports whether the line at the head of the queue is the
// last line of its paste region: only blank lines or frame lines stand
// between it and a frame line that closes the region. The blank lines in
// between are then set aside, as the frame's: the dump ended with the
// line. The end of the input is judged as without a frame (NoEOL).
func (fr *layer) lastOfRegion() bool {
	for i := 1; ; i++ {
		for len(fr.queue) <= i {
			if len(fr.queue) > lookahead {
				return false
			}
			fr.fill()
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

func (fr *layer) pop() {
	copy(fr.queue, fr.queue[1:])
	fr.queue[len(fr.queue)-1] = nil
	fr.queue = fr.queue[:len(fr.queue)-1]
}

func (fr *layer) item() *frameItem {
	if n := len(fr.free); n > 0 {
		it := fr.free[n-1]
		fr.free = fr.free[:n-1]
		*it = frameItem{text: it.text[:0], longHead: it.longHead[:0]}
		return it
	}
	return new(frameItem)
}

func (fr *layer) recycle(it *frameItem) {
	if it.kind != itemErr {
		fr.free = append(fr.free, it)
	}
}

// fill reads one raw line and queues what it is (nothing once the input's
// end or error is queued).
func (fr *layer) fill() {
	if n := len(fr.queue); n > 0 && fr.queue[n-1].kind == itemErr {
		return
	}
	if fr.f.Reversed && !fr.reversedRead {
		fr.fillReversed()
		return
	}
	if p := &fr.peek; p.set {
		p.set = false
		fr.queueRead(p.line, p.next, nil)
		return
	}
	ln, err := fr.raw.ReadLine()
	fr.queueRead(ln, fr.raw.Offset(), err)
}

// queueRead queues what the raw line just read is (or the error that
// ended the reading): an overlong line, the end, or the items classify
// makes of it, joined first with the lines that continue it when the
// window broke it (fillWrapped). next is the offset after the line.
func (fr *layer) queueRead(ln codec.Line, next int64, err error) {
	it := fr.item()
	it.num, it.off, it.next, it.noEOL = ln.Num, ln.Off, next, ln.NoEOL
	switch {
	case err == codec.ErrLineTooLong:
		it.kind = itemLong
		n, head := fr.raw.TooLong()
		it.longLen, it.longHead = n, append(it.longHead, head...)
		fr.queue = append(fr.queue, it)
	case err != nil:
		it.kind, it.err = itemErr, err
		fr.queue = append(fr.queue, it)
	case fr.f.Wrap > 0 && fr.fillWrapped(ln):
		fr.recycle(it)
	default:
		fr.classify(it, ln.Text)
	}
}

// classify queues the items of one raw line.
func (fr *layer) classify(it *frameItem, raw []byte) {
	f := &fr.f
	if f.JSONField != "" {
		if lines, ok := jsonFieldLines(raw, f.JSONField); ok {
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
		text, ok := testJSONOutput(raw)
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
		line = unescapeHTML(line)
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
	if f.Chat && fr.sawContent && fr.blank && isProse(t, false) && f.forms.LineForm(t) == "" {
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
	if f.Flat && line[0] != ' ' && line[0] != '\t' && isGoFileLine(line) {
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

func (fr *layer) push(it *frameItem) { fr.queue = append(fr.queue, it) }

// key returns the JSON field the frame reads a dump from.
func key(fr *layer) string { return fr.jsonKey }
