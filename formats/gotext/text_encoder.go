package gotext

import (
	"io"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// textEncoder writes dumps as Go traceback text, the form the runtime
// prints (debug=2, panics, SIGQUIT), so that its output is itself a dump
// any Go tool reads.
type textEncoder struct {
	w        io.Writer
	buf      []byte
	dumps    int  // dumps written so far
	n        int  // routines written in the current dump
	preamble bool // the current dump has a preamble
	races    int  // its races written so far
	system   bool // its system stack was written
	// For a signal dump: the signal line that opens it, and the ids
	// written. A repeated id can only come from per-thread blocks
	// (Dump.ThreadBlocks, not yet known while a dump streams): it is the
	// next thread's g0, and starts the next block.
	signal  string
	written idSet
}

func newTextEncoder(w io.Writer) stack.Encoder {
	return &textEncoder{w: w, buf: make([]byte, 0, 2*codec.WriteChunkSize)}
}

// BeginDump writes the dump's preamble.
func (e *textEncoder) BeginDump(d *stack.Dump) error {
	first := e.dumps == 0
	e.dumps++
	e.n, e.preamble, e.races, e.system = 0, len(d.Preamble) > 0, len(d.Races), d.SystemStack != nil
	e.signal = ""
	e.written.clear()
	for _, line := range d.Preamble {
		if isPreambleStart([]byte(line)) {
			if len(line) > 3 && line[:3] == "SIG" {
				e.signal = line
			}
			break
		}
	}
	b := e.buf
	if !first {
		b = append(b, '\n')
	}
	for _, rc := range d.Races {
		b = appendTextRace(b, rc)
	}
	for _, line := range d.Preamble {
		b = append(b, line...)
		b = append(b, '\n')
	}
	if len(d.Preamble) > 0 {
		b = append(b, '\n')
	}
	if d.SystemStack != nil {
		b = appendTextSystemStack(b, d.SystemStack)
		e.preamble = false
	}
	e.buf = b
	return e.flushIfFull()
}

// WriteRoutine writes one goroutine.
func (e *textEncoder) WriteRoutine(r *stack.Routine) error {
	b := e.buf
	switch {
	case e.signal != "" && hasHeader(r) && e.written.add(r.ID):
		// The next OS thread's block, as the runtime separates them.
		b = append(b, "\n-----\n\n"...)
		b = append(b, e.signal...)
		b = append(b, "\n\n"...)
		e.written.clear()
		e.written.add(r.ID)
	case e.n > 0:
		b = append(b, '\n')
	}
	b = appendTextRoutine(b, r, e.n == 0 && e.preamble)
	e.n++
	e.buf = b
	return e.flushIfFull()
}

// EndDump writes the races and system stack that were not known when the
// dump began (a JSON document may hold them after its goroutines) and
// hands the text on.
func (e *textEncoder) EndDump(d *stack.Dump) error {
	if e.races < len(d.Races) || !e.system && d.SystemStack != nil {
		if e.n > 0 {
			e.buf = append(e.buf, '\n')
		}
		for _, rc := range d.Races[e.races:] {
			e.buf = appendTextRace(e.buf, rc)
		}
		if !e.system && d.SystemStack != nil {
			e.buf = appendTextSystemStack(e.buf, d.SystemStack)
		}
		e.races, e.system = len(d.Races), true
	}
	if d.Truncated {
		e.buf = appendCutMarker(e.buf, d)
	}
	return e.flush()
}

// appendCutMarker ends the text of a truncated dump with a CutMarker line,
// after a blank line, so that reading it back marks the dump Truncated
// again. It says why with the reader's "dump truncated: …" warning, when
// the dump has one.
func appendCutMarker(b []byte, d *stack.Dump) []byte {
	why := "the dump was truncated; later goroutines are missing"
	for _, w := range d.Warnings {
		if rest, ok := strings.CutPrefix(w.Msg, "dump truncated: "); ok && rest != "" {
			why = rest
		}
	}
	b = append(b, '\n')
	b = append(b, CutMarker...)
	b = append(b, why...)
	return append(b, '\n')
}

func (e *textEncoder) flushIfFull() error {
	if len(e.buf) < codec.WriteChunkSize {
		return nil
	}
	return e.flush()
}

func (e *textEncoder) flush() (err error) {
	e.buf, err = codec.WriteRest(e.w, e.buf)
	return err
}

// hasHeader reports whether r is written with a goroutine header, whose
// id the reader checks for repeats: not a header-less thread stack.
func hasHeader(r *stack.Routine) bool {
	return r.ID != 0 || r.State != ""
}

// appendTextRoutine appends a goroutine in traceback form: header, frames,
// elision marker, creator, ancestors. A routine the runtime prints
// without a goroutine header keeps its form: right after the preamble,
// the crashing thread's frames of old signal dumps (goroutine 0, no
// state).
func appendTextRoutine(b []byte, r *stack.Routine, afterPreamble bool) []byte {
	switch {
	case r.ID == 0 && r.State == "" && afterPreamble && textHeaderless(r) && len(r.Frames()) > 0 && !r.Frames()[0].Native:
	default:
		b = appendTextHeader(b, r)
	}
	if r.Unavailable {
		b = append(b, "\tgoroutine running on other thread; stack unavailable\n"...)
	}
	b = appendTextStack(b, r.Stack, r.Values)
	if r.CreatedBy != nil {
		b = appendTextCreator(b, r.CreatedBy, r.CreatedByValues, r.ParentID)
	}
	for i := range r.Ancestors {
		a := &r.Ancestors[i]
		b = append(b, "[originating from goroutine "...)
		b = strconv.AppendInt(b, a.ID, 10)
		b = append(b, "]:\n"...)
		b = appendTextAncestorStack(b, a.Stack, a.Values)
		if a.CreatedBy != nil {
			b = appendTextCreator(b, a.CreatedBy, nil, 0)
		}
	}
	return b
}

// textHeaderless reports whether a header would say nothing about r but
// its id and state.
func textHeaderless(r *stack.Routine) bool {
	return !r.HasGP && !r.Leaked && !r.Scan && !r.Durable && r.WaitMinutes == 0 && !r.Locked &&
		r.Bubble == 0 && len(r.Labels) == 0 && !r.Unavailable
}

// appendTextHeader appends `goroutine N [gp=… m=… mp=…] [state…]:`, the
// suffixes in the order runtime.goroutineheader prints them.
func appendTextHeader(b []byte, r *stack.Routine) []byte {
	b = append(b, "goroutine "...)
	b = strconv.AppendInt(b, r.ID, 10)
	if r.HasGP {
		b = append(b, " gp=0x"...)
		b = strconv.AppendUint(b, r.GP, 16)
		if r.M < 0 {
			b = append(b, " m=nil"...)
		} else {
			b = append(b, " m="...)
			b = strconv.AppendInt(b, r.M, 10)
			b = append(b, " mp=0x"...)
			b = strconv.AppendUint(b, r.MP, 16)
		}
	}
	b = append(b, " ["...)
	b = append(b, r.State...)
	if r.Leaked {
		b = append(b, " (leaked)"...)
	}
	if r.Scan {
		b = append(b, " (scan)"...)
	}
	if r.Durable {
		b = append(b, " (durable)"...)
	}
	if r.WaitMinutes > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(r.WaitMinutes), 10)
		b = append(b, " minutes"...)
	}
	if r.Locked {
		b = append(b, ", locked to thread"...)
	}
	if r.Bubble != 0 {
		b = append(b, ", synctest bubble "...)
		b = strconv.AppendInt(b, r.Bubble, 10)
	}
	if len(r.Labels) > 0 {
		b = append(b, " labels:{"...)
		for i, l := range r.Labels {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendTextQuoted(b, l.Key)
			b = append(b, ": "...)
			b = appendTextQuoted(b, l.Value)
		}
		b = append(b, '}')
	}
	return append(b, "]:\n"...)
}

// appendTextStack appends a stack's frames with the elision marker where
// the runtime printed it.
func appendTextStack(b []byte, s *stack.Stack, vs *stack.FrameValues) []byte {
	return appendTextFrames(b, s, vs, appendTextFrame)
}

// appendTextAncestorStack appends an ancestor section's frames, which the
// runtime prints as `f(...)` whatever their arguments were.
func appendTextAncestorStack(b []byte, s *stack.Stack, vs *stack.FrameValues) []byte {
	return appendTextFrames(b, s, vs, appendTextAncestorFrame)
}

// appendTextFrames appends a stack's frames, each by appendFrame with its
// value from vs (nil where vs has none), and the elision marker where the
// runtime printed it.
func appendTextFrames(b []byte, s *stack.Stack, vs *stack.FrameValues, appendFrame func(b []byte, f *stack.Frame, v *stack.FrameValue) []byte) []byte {
	if s == nil {
		return b
	}
	for i, f := range s.Frames {
		if s.Elided && i == s.ElidedAt {
			b = appendTextElision(b, s)
		}
		var v *stack.FrameValue
		if vs != nil && i < len(vs.Frames) {
			v = &vs.Frames[i]
		}
		b = appendFrame(b, f, v)
	}
	if s.Elided && s.ElidedAt >= len(s.Frames) {
		b = appendTextElision(b, s)
	}
	return b
}

func appendTextElision(b []byte, s *stack.Stack) []byte {
	if s.ElidedCount > 0 {
		b = append(b, "..."...)
		b = strconv.AppendInt(b, int64(s.ElidedCount), 10)
		return append(b, " frames elided...\n"...)
	}
	return append(b, "...additional frames elided...\n"...)
}

// appendTextAncestorFrame appends `func(...)` and its file line.
func appendTextAncestorFrame(b []byte, f *stack.Frame, v *stack.FrameValue) []byte {
	b = append(b, f.Func...)
	b = append(b, "(...)\n"...)
	return appendTextLocation(b, f, v, "\t")
}

// appendTextFrame appends `func(args)` and its `\tfile:line +0x…` line.
func appendTextFrame(b []byte, f *stack.Frame, v *stack.FrameValue) []byte {
	if f.Native && f.Func == "non-Go function" && f.File == "" && f.Line == 0 && !f.HasOffset {
		// A cgo frame the runtime could not symbolize: one line.
		b = append(b, "non-Go function"...)
		if v != nil && v.PC != 0 {
			b = append(b, " at pc=0x"...)
			b = strconv.AppendUint(b, v.PC, 16)
		}
		return append(b, '\n')
	}
	b = appendTextCall(b, f, v)
	return appendTextLocation(b, f, v, "\t")
}

// appendTextCall appends a frame's call line: `func(args)` with v's
// arguments, `func(...)` for an inlined frame, the bare name for a native
// one.
func appendTextCall(b []byte, f *stack.Frame, v *stack.FrameValue) []byte {
	b = append(b, f.Func...)
	switch {
	case f.Native:
		// A cgo frame symbolized without Go metadata prints no parentheses.
	case f.Inlined:
		b = append(b, "(...)"...)
	default:
		b = append(b, '(')
		if v != nil {
			b = append(b, v.Args...)
		}
		b = append(b, ')')
	}
	return append(b, '\n')
}

// appendTextLocation appends a frame's file line: file:line, the pc
// offset and the fp/sp/pc annotations, after indent. A frame that knows
// none of them has no file line.
func appendTextLocation(b []byte, f *stack.Frame, v *stack.FrameValue, indent string) []byte {
	hasValues := v != nil && (v.FP != 0 || v.SP != 0 || v.PC != 0)
	if f.File == "" && f.Line == 0 && !f.HasOffset && !hasValues {
		return b
	}
	b = append(b, indent...)
	sep := ""
	if f.File != "" || f.Line != 0 || f.HasOffset {
		b = append(b, f.File...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.Line), 10)
		sep = " "
	}
	if f.HasOffset {
		b = append(b, " +0x"...)
		b = strconv.AppendUint(b, f.Offset, 16)
	}
	if hasValues {
		// `\tpc=0x…` alone: a cgo frame without a file.
		for _, a := range [...]struct {
			name string
			v    uint64
		}{{"fp=0x", v.FP}, {"sp=0x", v.SP}, {"pc=0x", v.PC}} {
			if a.v != 0 {
				b = append(b, sep...)
				b = append(b, a.name...)
				b = strconv.AppendUint(b, a.v, 16)
				sep = " "
			}
		}
	}
	return append(b, '\n')
}

// appendTextCreator appends `created by F in goroutine N` and its file line.
func appendTextCreator(b []byte, f *stack.Frame, v *stack.FrameValue, parent int64) []byte {
	b = append(b, "created by "...)
	b = append(b, f.Func...)
	if parent != 0 {
		b = append(b, " in goroutine "...)
		b = strconv.AppendInt(b, parent, 10)
	}
	b = append(b, '\n')
	return appendTextLocation(b, f, v, "\t")
}

// appendTextQuoted quotes s as the runtime's printquoted does for
// labels in Go 1.26 headers: \n \r \t \\ \" escaped, printable ASCII as
// is, anything else as \xNN, \uNNNN or \UNNNNNNNN.
func appendTextQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\\' || r == '"':
			b = append(b, '\\', byte(r))
		case r >= ' ' && r <= '~':
			b = append(b, byte(r))
		case r < 0x7f:
			b = append(b, '\\', 'x')
			b = appendTextHex(b, uint64(r), 2)
		case r < 0x10000:
			b = append(b, '\\', 'u')
			b = appendTextHex(b, uint64(r), 4)
		default:
			b = append(b, '\\', 'U')
			b = appendTextHex(b, uint64(r), 8)
		}
	}
	return append(b, '"')
}

// appendTextHex appends v in lower-case hex, at least n digits.
func appendTextHex(b []byte, v uint64, n int) []byte {
	var tmp [16]byte
	i := len(tmp)
	for v != 0 || len(tmp)-i < n {
		i--
		tmp[i] = "0123456789abcdef"[v&0xf]
		v >>= 4
	}
	return append(b, tmp[i:]...)
}
