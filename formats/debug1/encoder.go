package debug1

import (
	"bytes"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stackdump/stackdump/formats/internal/aggregate"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// debug1Encoder writes dumps as /debug/pprof/goroutine?debug=1 text, byte
// for byte the form runtime/pprof's printCountProfile prints, so that
// scripts written for the live endpoint read stackdump's output too:
//
//	goroutine profile: total 39
//	10 @ 0x4e9815
//	#	0x4e9814	main.waitChanRecv+0x14	/src/main.go:163
//
// The header's total is known only when a dump ends, so routines are held
// per dump, summed per distinct (stack, labels) — memory follows distinct
// stacks, not goroutines — and written at EndDump, sorted as the runtime
// sorts them: by count, highest first, then by the `@` line. Full dumps
// (Count 1 per goroutine) aggregate into records this way.
//
// Differences from the runtime's output, which has the binary at hand:
//   - The `@` line holds one return PC per printed frame, FrameValue.PC+1;
//     0x0 where the PC is unknown (debug=2 text has none). The runtime also
//     lists the PCs of the leading runtime frames it hides.
//   - Every frame of the model's stack is printed. The runtime hides
//     leading runtime.* frames and runtime.goexit; stacks read from debug=2
//     text or pprof keep them, so reading the output back gives the stacks
//     that were written.
//   - A frame PC the model does not know is printed as 0x0, an offset it
//     does not know as +0x0.
//   - States, ids, wait times and creators have no place in the format and
//     are left out; a dump whose routines are all Leaked is written as a
//     `goroutineleak profile`.
type debug1Encoder struct {
	w   io.Writer
	agg *aggregate.Routines
	buf []byte // output waiting to be written
	rec []byte // scratch for rendering records
}

func newDebug1Encoder(w io.Writer) stack.Encoder {
	return &debug1Encoder{w: w, agg: aggregate.New(false)}
}

// BeginDump starts a profile.
func (e *debug1Encoder) BeginDump(*stack.Dump) error {
	e.agg.Reset()
	return nil
}

// WriteRoutine counts r in its record.
func (e *debug1Encoder) WriteRoutine(r *stack.Routine) error {
	e.agg.Add(r)
	return nil
}

// debug1Record is a rendered record: key is the `@` line and labels line
// (the runtime's sort key), text the whole record.
type debug1Record struct {
	count int64
	key   string
	text  string
}

// EndDump writes the profile.
func (e *debug1Encoder) EndDump(*stack.Dump) error {
	records := make([]debug1Record, 0, len(e.agg.Entries))
	index := make(map[string]int, len(e.agg.Entries))
	for _, ent := range e.agg.Entries {
		var keyLen int
		e.rec, keyLen = appendDebug1Record(e.rec[:0], ent)
		if i, ok := index[string(e.rec)]; ok {
			records[i].count += ent.Count
			continue
		}
		text := string(e.rec)
		index[text] = len(records)
		records = append(records, debug1Record{count: ent.Count, key: text[:keyLen], text: text})
	}
	// sort.Slice, not a generic sort: the dumper links this writer, and a
	// sort instantiated for this struct costs it 12 KB.
	sort.Slice(records, func(i, j int) bool {
		a, b := &records[i], &records[j]
		switch {
		case a.count != b.count:
			return a.count > b.count
		case a.key != b.key:
			return a.key < b.key
		}
		return a.text < b.text
	})

	name := "goroutine"
	if e.agg.AllLeaked() {
		name = "goroutineleak"
	}
	b := append(e.buf[:0], name...)
	b = append(b, " profile: total "...)
	b = strconv.AppendInt(b, e.agg.Total, 10)
	b = append(b, '\n')
	var err error
	for _, r := range records {
		b = strconv.AppendInt(b, r.count, 10)
		b = append(b, ' ')
		b = append(b, r.text...)
		if b, err = codec.WriteIfFull(e.w, b); err != nil {
			return err
		}
	}
	e.buf, err = codec.WriteRest(e.w, b)
	return err
}

// appendDebug1Record renders an entry without its count: the `@` line, the
// labels line, the frame lines aligned as text/tabwriter aligns them, and
// the blank line that ends a record. keyLen is the length of the first two.
func appendDebug1Record(b []byte, e *aggregate.Entry) (_ []byte, keyLen int) {
	frames := e.Frames()
	b = append(b, '@')
	for i := range frames {
		b = append(b, " 0x"...)
		if pc := e.PC(i); pc != 0 {
			b = strconv.AppendUint(b, pc+1, 16)
		} else {
			b = append(b, '0')
		}
	}
	if len(e.Labels) > 0 {
		b = append(b, "\n# labels: "...)
		b = appendDebug1Labels(b, e.Labels)
	}
	keyLen = len(b)
	b = append(b, '\n')
	for i := 0; i < len(frames); {
		if frames[i].Func == "" {
			b = append(b, "#\t0x"...)
			b = strconv.AppendUint(b, e.PC(i), 16)
			b = append(b, '\n')
			i++
			continue
		}
		// A run of frames with symbols is a tabwriter column block.
		j := i
		pcWidth, fnWidth := 0, 0
		for ; j < len(frames) && frames[j].Func != ""; j++ {
			pcWidth = max(pcWidth, 2+hexLen(e.PC(j)))
			fnWidth = max(fnWidth, utf8.RuneCountInString(frames[j].Func)+3+hexLen(frames[j].Offset))
		}
		for ; i < j; i++ {
			f := frames[i]
			b = append(b, "#\t0x"...)
			b = strconv.AppendUint(b, e.PC(i), 16)
			b = appendTabPadding(b, 2+hexLen(e.PC(i)), pcWidth+1)
			start := len(b)
			b = appendClean(b, f.Func)
			b = append(b, "+0x"...)
			b = strconv.AppendUint(b, f.Offset, 16)
			b = appendTabPadding(b, utf8.RuneCount(b[start:]), fnWidth+1)
			b = appendClean(b, f.File)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, '\n')
		}
	}
	return append(b, '\n'), keyLen
}

// appendTabPadding pads a cell of textWidth runes in a column of width
// runes (widest cell plus one) with tabs, as text/tabwriter does with
// tabwidth 8 and '\t' padding: the column ends at the next multiple of 8.
func appendTabPadding(b []byte, textWidth, width int) []byte {
	cell := (width + 7) / 8 * 8
	for n := (cell - textWidth + 7) / 8; n > 0; n-- {
		b = append(b, '\t')
	}
	return b
}

// hexLen is the number of hex digits of v (1 for 0).
func hexLen(v uint64) int {
	n := 1
	for v >= 16 {
		v >>= 4
		n++
	}
	return n
}

// appendClean appends s with tabs and line breaks turned into spaces, so
// that a name can never break the line structure.
func appendClean(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\t\n\r") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// appendDebug1Labels appends a label set as runtime/pprof's labelMap.String
// does: Go-quoted "key":"value" pairs, sorted as strings, joined by ", ".
func appendDebug1Labels(b []byte, ls stack.Labels) []byte {
	pairs := make([][]byte, len(ls))
	for i, l := range ls {
		p := strconv.AppendQuote(nil, l.Key)
		p = append(p, ':')
		pairs[i] = strconv.AppendQuote(p, l.Value)
	}
	slices.SortFunc(pairs, bytes.Compare)
	b = append(b, '{')
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, p...)
	}
	return append(b, '}')
}
