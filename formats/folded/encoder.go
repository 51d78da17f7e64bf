package folded

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/formats/internal/aggregate"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// foldedEncoder writes Brendan Gregg's folded stacks, the input of
// flamegraph.pl, speedscope, inferno and most flame-graph tools: one line
// per distinct stack of a dump, the functions from the outermost to the
// innermost joined by ';', a space, and the number of goroutines (or
// threads) on that stack:
//
//	main.main;main.serve;net/http.(*conn).serve 12
//
// Stacks are compared by their function names only (file, line and
// offset left out, as flame graphs merge them), summed per dump, and the
// lines sorted, so the output is deterministic. Names are cleaned so that
// a line always splits back into its frames: ';' inside a name (generic
// shapes such as "go.shape.struct { A int; B string }") becomes ',', tabs
// and line breaks become spaces. A frame without symbol is written as its
// PC ("0x4a3b2c"), a routine without frames as "[no frames]" or, for a
// goroutine running on another thread, "[stack unavailable]". Like a
// pprof profile, folded output holds one dump: a second is
// ErrOneDumpPerProfile.
type foldedEncoder struct {
	w      io.Writer
	dumps  int
	stacks map[*stack.Stack]int64
	order  []*stack.Stack // first-seen order, for a map-free walk
	buf    []byte
	line   []byte
}

func newFoldedEncoder(w io.Writer) stack.Encoder {
	return &foldedEncoder{w: w, stacks: make(map[*stack.Stack]int64)}
}

// foldedUnavailable stands for the routines with no stack to show.
var (
	foldedNoFrames    = &stack.Stack{}
	foldedUnavailable = &stack.Stack{}
)

// BeginDump starts the dump; a second dump is an error.
func (e *foldedEncoder) BeginDump(*stack.Dump) error {
	if e.dumps > 0 {
		return stack.ErrOneDumpPerProfile
	}
	e.dumps++
	clear(e.stacks)
	clear(e.order)
	e.order = e.order[:0]
	return nil
}

// WriteRoutine counts r on its stack.
func (e *foldedEncoder) WriteRoutine(r *stack.Routine) error {
	s := r.Stack
	switch {
	case r.Unavailable && (s == nil || len(s.Frames) == 0):
		s = foldedUnavailable
	case s == nil || len(s.Frames) == 0:
		s = foldedNoFrames
	}
	if _, ok := e.stacks[s]; !ok {
		e.order = append(e.order, s)
	}
	e.stacks[s] += aggregate.RoutineCount(r)
	return nil
}

// EndDump writes the dump's lines.
func (e *foldedEncoder) EndDump(*stack.Dump) error {
	counts := make(map[string]int64, len(e.order))
	lines := make([]string, 0, len(e.order))
	for _, s := range e.order {
		e.line = appendFoldedStack(e.line[:0], s)
		if n, ok := counts[string(e.line)]; ok {
			counts[string(e.line)] = n + e.stacks[s]
			continue
		}
		line := string(e.line)
		counts[line] = e.stacks[s]
		lines = append(lines, line)
	}
	slices.Sort(lines)
	b := e.buf[:0]
	var err error
	for _, line := range lines {
		b = append(b, line...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, counts[line], 10)
		b = append(b, '\n')
		if b, err = codec.WriteIfFull(e.w, b); err != nil {
			return err
		}
	}
	e.buf, err = codec.WriteRest(e.w, b)
	return err
}

// appendFoldedStack appends the frames of s, outermost first, joined by ';'.
func appendFoldedStack(b []byte, s *stack.Stack) []byte {
	switch s {
	case foldedNoFrames:
		return append(b, "[no frames]"...)
	case foldedUnavailable:
		return append(b, "[stack unavailable]"...)
	}
	for i := len(s.Frames) - 1; i >= 0; i-- {
		f := s.Frames[i]
		if i < len(s.Frames)-1 {
			b = append(b, ';')
		}
		if f.Func == "" {
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, f.Offset, 16)
			continue
		}
		b = appendFoldedName(b, f.Func)
	}
	return b
}

// appendFoldedName appends name with ';' turned into ',' and tabs and
// line breaks into spaces.
func appendFoldedName(b []byte, name string) []byte {
	if !strings.ContainsAny(name, ";\t\n\r") {
		return append(b, name...)
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case ';':
			b = append(b, ',')
		case '\t', '\n', '\r':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return b
}
