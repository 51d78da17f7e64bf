package debug1

import (
	"fmt"
	"math"

	"github.com/stackdump/stackdump/stack"
)

// How the debug=1 reader takes a profile pasted into an issue, a chat or
// a log (docs/go-formats.md, "Pasted dumps"); the paste's frame itself is
// set aside by the line reader (codec.Frame).

// headerless starts a dump at a record line met before any profile
// header, a profile whose `goroutine profile: total N` line the paste
// left out: `N @ 0x…` followed by `#` frame lines is a debug=1 record and
// nothing else. The record line is read again as the dump's first; the
// total is not checked, and a warning says so.
func (d *debug1Decoder) headerless() *stack.Dump {
	l := d.lines
	d.header = debug1Header{name: "goroutine", total: math.MaxInt64}
	d.line, d.offset, d.text = l.Num(), l.Line().Off, ""
	d.sum, d.ended, d.eof, d.noHeader = 0, false, false, true
	d.dump = &stack.Dump{Source: stack.Source{Kind: stack.KindGoDebug1}}
	if pe := d.orphanWarning(); pe != nil {
		d.dump.Warnings = append(d.dump.Warnings, pe)
	}
	d.dump.Warnings = append(d.dump.Warnings, l.ParseError("goroutine profile without its `goroutine profile: total N` line (the input starts below it): its records are read, their total is not checked"))
	l.Unread()
	return d.dump
}

// orphan counts a `#` line met before any profile: the frames of a
// record whose `N @ …` line the paste cut off.
func (d *debug1Decoder) orphan() {
	if d.orphans == 0 {
		d.orphanNum, d.orphanOff = d.lines.Num(), d.lines.Line().Off
	}
	d.orphans++
}

// orphanWarning returns the warning for the orphan lines counted, or nil.
func (d *debug1Decoder) orphanWarning() *stack.ParseError {
	if d.orphans == 0 {
		return nil
	}
	pe := &stack.ParseError{Line: d.orphanNum, Offset: d.orphanOff,
		Msg: fmt.Sprintf("%d lines of a record whose `N @ …` line is not in the input skipped", d.orphans)}
	d.orphans = 0
	return pe
}
