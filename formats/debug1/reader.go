package debug1

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

// debug1Decoder reads the grouped text of /debug/pprof/goroutine?debug=1
// (runtime/pprof's printCountProfile): each `N @ …` record becomes one
// [stack.Routine] with Count N and ID 0; the `# labels:` line becomes its Labels
// and the `#` frame lines its Stack, with each printed PC in the frame's
// FrameValue.PC. The record's `@` line is checked but not kept: it also
// lists the PCs of the runtime frames the runtime hides, which the model
// has no frame for.
//
// Every `<name> profile: total N` header starts a dump, so several profiles
// in one stream are several dumps; text before a header is skipped. The
// header's total is checked against the sum of the counts at the end of the
// dump (a mismatch is a warning, and a dump that ends early is Truncated).
// A read error of the input ends the dump there, Truncated, with a warning
// that wraps the error, and the next dump is that error.
// A `goroutineleak` profile marks its routines Leaked. Any other profile
// (`threadcreate profile: total N`, a program's own) stops reading with
// ErrNotGoroutineProfile: its records are not goroutines.
//
// debug=1 carries no goroutine ids, states, wait times or creators, and
// does not say which frames were inlined.
type debug1Decoder struct {
	lines *codec.Lines
	t     *stack.Table

	dump   *stack.Dump
	header debug1Header
	line   int   // line number of the header
	offset int64 // byte offset of the header
	text   string
	sum    int64 // counts read so far
	ended  bool  // errEndOfDump was or is about to be returned
	eof    bool  // the input ended inside this dump
	// readErr is the input's read error that ended the dump early; the
	// next nextDump returns it.
	readErr error

	// The record being read.
	rec    *stack.Routine
	frames []*stack.Frame
	values []stack.FrameValue
	labels stack.Labels
	hasPC  bool

	// held keeps the junk lines between dumps: the first lines of a dump
	// of another form, handed on with it (otherForm) when it starts.
	held      codec.Held
	otherForm *codec.OtherFormError
	handOver  bool        // the stream's Stream.HandOver
	others    codec.Forms // the stream's other text forms (codec.Stream.Forms)

	// noHeader is set for a profile read without its header (see
	// headerless); pending is a warning to return next; orphans counts
	// the frame lines met before a profile, from line orphanNum.
	noHeader bool
	pending  *stack.ParseError
	// openAtEnd is set when the input ended inside a record; warnedAt is
	// the line of the last warning about a record's line.
	openAtEnd bool
	warnedAt  int
	// lastNum and lastOff name the line read last.
	lastNum   int
	lastOff   int64
	orphans   int
	orphanNum int
	orphanOff int64
}

func newDebug1Decoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	opts = opts.WithDefaults()
	return &debug1Decoder{lines: unpaste.NewLines(in, opts.MaxLineBytes, codec.Forms{Form()}), t: opts.Table,
		handOver: in.HandOver, others: in.Forms.Others(stack.KindGoDebug1)}
}

// nextDump skips to the next profile header.
func (d *debug1Decoder) NextDump() (*stack.Dump, error) {
	if d.readErr != nil {
		return nil, d.readErr
	}
	if d.otherForm != nil {
		return nil, d.otherForm
	}
	for {
		ln, err := d.lines.Read()
		line := ln.Text
		if err == codec.ErrLineTooLong || err == codec.ErrRegionEnd || err == codec.ErrGap {
			continue
		}
		if err != nil {
			return nil, err // io.EOF at the end
		}
		h, ok := parseDebug1Header(line)
		if !ok {
			if k := d.others.StartForm(line); k != "" && d.handOver {
				d.otherForm = d.held.HandOver(d.lines, k, line)
				return nil, d.otherForm
			}
			if _, ok := parseDebug1Record(line); ok {
				return d.headerless(), nil
			}
			if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '#' {
				d.orphan()
			}
			d.held.Add(line, d.lines.Num(), d.lines.Line().Off)
			continue
		}
		if h.name != "goroutine" && h.name != "goroutineleak" {
			return nil, codec.NotGoroutineProfile(h.name, d.lines.Num(), d.lines.Line().Off, line)
		}
		d.header, d.line, d.offset, d.text = h, d.lines.Num(), d.lines.Line().Off, string(line)
		d.sum, d.ended, d.eof, d.noHeader, d.openAtEnd = 0, false, false, false, false
		d.dump = &stack.Dump{Source: stack.Source{Kind: stack.KindGoDebug1}}
		d.orphanWarning()
		if h.total > codec.MaxTotal {
			d.dump.Warnings = append(d.dump.Warnings, d.lines.ParseError("header total "+strconv.FormatInt(h.total, 10)+
				" is above the bound of "+strconv.FormatInt(codec.MaxTotal, 10)+"; taken as that"))
			d.header.total = codec.MaxTotal
		}
		return d.dump, nil
	}
}

// nextRoutine returns the next record of the dump. Problems inside a
// record (a bad frame or labels line) are returned as *ParseError before
// the record itself, which keeps what could be read.
func (d *debug1Decoder) NextRoutine() (*stack.Routine, error) {
	if pe := d.pending; pe != nil {
		d.pending = nil
		return nil, pe
	}
	if d.ended {
		return nil, codec.ErrEndOfDump
	}
	if d.eof {
		// The input, or the paste region, ended after the last record.
		return d.endRecordOrDump()
	}
	l := d.lines
	for {
		ln, err := l.Read()
		line := ln.Text
		if err == codec.ErrLineTooLong {
			// The overlong-line rule; this reader's warning keeps its words.
			e := l.TooLongError()
			e.Msg = "line longer than " + strconv.Itoa(l.Max()) + " bytes skipped"
			return nil, e
		}
		if err == io.EOF || err == codec.ErrRegionEnd {
			break // the end of the input, or of the paste region
		}
		if err == codec.ErrGap {
			pe := &stack.ParseError{Line: l.Num(), Offset: l.Line().Off, Msg: "lines left out here (grep's -- group separator)", Text: "--"}
			if d.rec != nil {
				pe.Msg += "; the record before it is incomplete"
				d.pending = pe
				return d.finishRecord()
			}
			return nil, pe
		}
		if err != nil {
			// Keep what was read: end the dump, truncated (endDump).
			d.readErr = err
			break
		}
		d.lastNum, d.lastOff = l.Num(), l.Line().Off
		trimmed := bytes.TrimLeft(line, " \t")
		switch {
		case len(trimmed) == 0:
			if d.rec != nil {
				return d.finishRecord()
			}
		case trimmed[0] == '#':
			if d.rec == nil {
				if d.sum >= d.header.total {
					l.Unread()
					return d.endDump()
				}
				return nil, l.ParseError("frame line outside a record")
			}
			if err := d.addCommentLine(trimmed[1:]); err != nil {
				d.warnedAt = l.Num()
				return nil, err
			}
		default:
			if _, ok := parseDebug1Header(line); ok {
				l.Unread()
				return d.endRecordOrDump()
			}
			if count, ok := parseDebug1Record(line); ok {
				if d.rec != nil {
					l.Unread()
					return d.finishRecord()
				}
				if kept, cut := codec.BoundCount(d.sum, count); cut {
					d.startRecord(kept)
					return nil, l.ParseError(codec.CountTooLarge("record count", count, kept))
				}
				d.startRecord(count)
				continue
			}
			if d.rec != nil {
				l.Unread()
				return d.finishRecord()
			}
			if d.sum >= d.header.total || d.noHeader {
				// The profile is complete: what follows is not ours.
				l.Unread()
				return d.endDump()
			}
			return nil, l.ParseError("unexpected line in a goroutine profile")
		}
	}
	d.eof = true
	d.openAtEnd = d.rec != nil
	return d.endRecordOrDump()
}

func (d *debug1Decoder) startRecord(count int64) {
	d.rec = &stack.Routine{Count: count, Line: d.lines.Num(), Leaked: d.header.name == "goroutineleak"}
	d.frames, d.values, d.labels, d.hasPC = d.frames[:0], d.values[:0], d.labels[:0], false
}

// addCommentLine adds a `# labels:` or frame line (without its '#') to the
// record.
func (d *debug1Decoder) addCommentLine(rest []byte) error {
	if text, ok := bytes.CutPrefix(rest, []byte(" labels: ")); ok {
		ls, err := parseDebug1Labels(d.labels[:0], text)
		if err != nil {
			pe := d.lines.ParseError("bad labels: " + err.Error())
			pe.Err = err
			return pe
		}
		d.labels = ls
		d.rec.Labels = d.t.Labels(ls)
		return nil
	}
	f, err := parseDebug1Frame(rest)
	if err != nil {
		pe := d.lines.ParseError(err.Error())
		pe.Err = err
		return pe
	}
	var fr stack.Frame
	if len(f.fn) == 0 {
		// A PC the runtime could not symbolize: keep it in Offset so that
		// different unknown PCs stay different frames.
		fr = stack.Frame{Native: true, Offset: f.pc}
	} else {
		fr = stack.Frame{Line: f.line, Offset: f.offset, HasOffset: f.hasOffset}
		fr.Func = d.t.Bytes(f.fn)
		fr.File = d.t.Bytes(f.file)
	}
	d.frames = append(d.frames, d.t.Frame(fr))
	d.values = append(d.values, stack.FrameValue{PC: f.pc})
	d.hasPC = d.hasPC || f.pc != 0
	if f.noFile || f.noLine {
		// runtime/pprof always prints file:line: a line cut short.
		return d.lines.ParseError("frame line without file:line")
	}
	return nil
}

// finishRecord interns the record's stack and returns it.
func (d *debug1Decoder) finishRecord() (*stack.Routine, error) {
	r := d.rec
	d.rec = nil
	r.Stack = d.t.Stack(d.frames, stack.Elision{})
	if d.hasPC {
		r.Values = d.t.Values(d.values)
	}
	d.sum += r.Count
	d.dump.Total = d.sum
	return r, nil
}

func (d *debug1Decoder) endRecordOrDump() (*stack.Routine, error) {
	if d.rec != nil {
		return d.finishRecord()
	}
	return d.endDump()
}

// endDump ends the dump, first reporting a total that does not match the
// header's.
func (d *debug1Decoder) endDump() (*stack.Routine, error) {
	d.ended = true
	if d.readErr != nil {
		d.dump.Truncated = true
		return nil, &stack.ParseError{Line: d.lines.Num(), Offset: d.lines.Line().Off, Msg: "dump truncated: reading stopped: " + d.readErr.Error(), Err: d.readErr}
	}
	if d.noHeader {
		return nil, codec.ErrEndOfDump // no total to check
	}
	if d.eof && d.sum < d.header.total {
		d.dump.Truncated = true
		if d.openAtEnd && d.warnedAt != d.lastNum {
			// Nothing says where: the record the input ended in.
			d.pending = &stack.ParseError{Line: d.lastNum, Offset: d.lastOff,
				Msg: fmt.Sprintf("dump truncated: the input ends inside a record, after %d of the %d goroutines the header counts", d.sum, d.header.total)}
		}
	}
	if d.sum != d.header.total {
		return nil, &stack.ParseError{
			Line: d.line, Offset: d.offset, Msg: "header total " + strconv.FormatInt(d.header.total, 10) +
				" but the records count " + strconv.FormatInt(d.sum, 10),
			Text: d.text,
		}
	}
	return nil, codec.ErrEndOfDump
}
