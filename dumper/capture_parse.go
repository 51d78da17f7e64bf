package dumper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// The traceback text of a big process is hundreds of MiB, and reading it
// takes longer than the runtime took to print it. It is held in memory
// anyway, so it is cut at goroutine boundaries into one chunk per CPU, the
// chunks are read in parallel each into its own Table, and the routines
// are then re-interned into the caller's Table (one map lookup per routine,
// one Table call per distinct frame, stack, value set and label set).

// minParseChunk is the smallest chunk worth a goroutine of its own.
const minParseChunk = 4 << 20

// parseTraceback reads runtime.Stack text into a dump with its routines.
func parseTraceback(ctx context.Context, text []byte, t *stack.Table) (*stack.Dump, error) {
	return parseTracebackChunks(ctx, text, t, min(runtime.GOMAXPROCS(0), len(text)/minParseChunk))
}

// parseTracebackChunks reads text in about n parallel chunks.
func parseTracebackChunks(ctx context.Context, text []byte, t *stack.Table, n int) (*stack.Dump, error) {
	chunks := splitTraceback(text, n)
	if len(chunks) == 1 {
		return parseChunk(ctx, text, t)
	}
	type result struct {
		d   *stack.Dump
		t   *stack.Table
		err error
	}
	results := make([]result, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		ct := t
		if i > 0 {
			ct = stack.NewTable()
		}
		results[i].t = ct
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].d, results[i].err = parseChunk(ctx, c, ct)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
	}
	d := results[0].d
	line, offset := bytes.Count(chunks[0], []byte("\n")), int64(len(chunks[0]))
	for i, r := range results[1:] {
		m := newTableMerger(t)
		for _, rt := range r.d.Routines {
			m.routine(rt)
			rt.Line += line
		}
		for _, w := range r.d.Warnings {
			if w.Line > 0 {
				w.Line += line
			}
			w.Offset += offset
		}
		d.Routines = append(d.Routines, r.d.Routines...)
		d.Warnings = append(d.Warnings, r.d.Warnings...)
		d.Total += r.d.Total
		d.Truncated = d.Truncated || r.d.Truncated
		line += bytes.Count(chunks[i+1], []byte("\n"))
		offset += int64(len(chunks[i+1]))
	}
	return d, nil
}

// splitTraceback cuts text into about n chunks, each starting at a
// goroutine header (after its blank separator line).
func splitTraceback(text []byte, n int) [][]byte {
	if n <= 1 {
		return [][]byte{text}
	}
	var chunks [][]byte
	size := len(text) / n
	for len(chunks) < n-1 {
		cut := cutTraceback(text, size)
		if cut == len(text) {
			break
		}
		chunks = append(chunks, text[:cut])
		text = text[cut:]
	}
	return append(chunks, text)
}

// parseChunk reads one run of goroutines.
func parseChunk(ctx context.Context, text []byte, t *stack.Table) (*stack.Dump, error) {
	var c collectStage
	p := stack.Pipeline{
		Source:    gotext.NewRuntimeReader(bytes.NewReader(text), gotext.ReadOptions{Table: t}),
		Encoder:   &c,
		ReadError: func(err error) error { return fmt.Errorf("parse traceback: %w", err) },
	}
	d, err := p.Next(ctx) // parse errors are kept in d.Warnings
	if err == io.EOF {
		return &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}, nil
	}
	if err != nil {
		return nil, err
	}
	d.Source.Kind = stack.KindGoTraceback
	return d, nil
}

// tableMerger re-interns routines read into another Table into t.
type tableMerger struct {
	t      *stack.Table
	frames map[*stack.Frame]*stack.Frame
	stacks map[*stack.Stack]*stack.Stack
	values map[*stack.FrameValues]*stack.FrameValues
	labels map[*stack.Label]stack.Labels // by first element: interned sets share it
	buf    []*stack.Frame
}

func newTableMerger(t *stack.Table) *tableMerger {
	return &tableMerger{
		t:      t,
		frames: make(map[*stack.Frame]*stack.Frame),
		stacks: make(map[*stack.Stack]*stack.Stack),
		values: make(map[*stack.FrameValues]*stack.FrameValues),
		labels: make(map[*stack.Label]stack.Labels),
	}
}

func (m *tableMerger) routine(r *stack.Routine) {
	r.Stack = m.stack(r.Stack)
	r.CreatedBy = m.frame(r.CreatedBy)
	r.Values = m.vals(r.Values)
	r.Labels = m.labelSet(r.Labels)
	r.Name, r.State = m.t.String(r.Name), m.t.String(r.State)
	for i := range r.Ancestors {
		a := &r.Ancestors[i]
		a.Stack, a.CreatedBy, a.Values = m.stack(a.Stack), m.frame(a.CreatedBy), m.vals(a.Values)
	}
}

func (m *tableMerger) frame(f *stack.Frame) *stack.Frame {
	if f == nil {
		return nil
	}
	if g, ok := m.frames[f]; ok {
		return g
	}
	g := m.t.Frame(*f)
	m.frames[f] = g
	return g
}

func (m *tableMerger) stack(s *stack.Stack) *stack.Stack {
	if s == nil {
		return nil
	}
	if g, ok := m.stacks[s]; ok {
		return g
	}
	m.buf = m.buf[:0]
	for _, f := range s.Frames {
		m.buf = append(m.buf, m.frame(f))
	}
	g := m.t.Stack(m.buf, stack.Elision{Elided: s.Elided, Count: s.ElidedCount, At: s.ElidedAt})
	m.stacks[s] = g
	return g
}

func (m *tableMerger) vals(v *stack.FrameValues) *stack.FrameValues {
	if v == nil {
		return nil
	}
	if g, ok := m.values[v]; ok {
		return g
	}
	g := m.t.Values(v.Frames)
	m.values[v] = g
	return g
}

func (m *tableMerger) labelSet(ls stack.Labels) stack.Labels {
	if len(ls) == 0 {
		return ls
	}
	if g, ok := m.labels[&ls[0]]; ok {
		return g
	}
	g := m.t.Labels(append(stack.Labels(nil), ls...))
	m.labels[&ls[0]] = g
	return g
}
