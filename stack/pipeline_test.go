package stack_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// TestPipelineRunMatchesWriteDump streams real dumps through a Pipeline,
// reusing routines, and checks the output is what the dumps read whole
// and written with WriteDump make.
func TestPipelineRunMatchesWriteDump(t *testing.T) {
	for _, name := range realDumps {
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, name)
			dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			wenc, _ := formats.NewEncoder(&want, output.JSON)
			for _, d := range dumps {
				if err := stack.WriteDump(wenc, d); err != nil {
					t.Fatal(err)
				}
			}

			var got bytes.Buffer
			enc, _ := formats.NewEncoder(&got, output.JSON)
			rd := formats.NewReader(bytes.NewReader(data), formats.ReadOptions{ReuseRoutines: true})
			p := stack.Pipeline{Source: rd, Encoder: enc}
			n, err := p.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n != len(dumps) {
				t.Errorf("Run wrote %d dumps, ReadAll read %d", n, len(dumps))
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("pipeline output (%d bytes) differs from WriteDump's (%d bytes)", got.Len(), want.Len())
			}
		})
	}
}

// TestPipelineWarnings: parse errors, wrapped or not, go to the one
// callback and reading goes on; any other error stops the dump, wrapped
// by ReadError, and EndDump is not called.
func TestPipelineWarnings(t *testing.T) {
	d := readDemo(t)
	pe1 := &stack.ParseError{Line: 3, Msg: "first"}
	pe2 := &stack.ParseError{Line: 9, Msg: "second"}
	src := &sliceSource{d: d, errs: map[int]error{2: pe1, 5: fmt.Errorf("chunk 2: %w", pe2)}}
	var seen []*stack.ParseError
	enc := &recorder{}
	p := stack.Pipeline{Source: src, Encoder: enc, OnWarning: func(pe *stack.ParseError) { seen = append(seen, pe) },
		ReadError: func(err error) error { return fmt.Errorf("read test: %w", err) }}
	n, err := p.Run(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("Run = %d, %v; want 1 dump, no error", n, err)
	}
	if len(seen) != 2 || seen[0] != pe1 || seen[1] != pe2 {
		t.Errorf("OnWarning saw %v, want the two parse errors, the wrapped one unwrapped", seen)
	}
	if enc.begins != 1 || enc.ends != 1 || enc.routines != len(d.Routines) {
		t.Errorf("encoder got %d begins, %d routines, %d ends; want 1, %d, 1", enc.begins, enc.routines, enc.ends, len(d.Routines))
	}

	errDisk := errors.New("disk gone")
	src = &sliceSource{d: d, errs: map[int]error{4: errDisk}}
	enc = &recorder{}
	p = stack.Pipeline{Source: src, Encoder: enc, ReadError: func(err error) error { return fmt.Errorf("read test: %w", err) }}
	got, err := p.Next(context.Background())
	if !errors.Is(err, errDisk) || err.Error() != "read test: disk gone" {
		t.Errorf("Next error = %v, want errDisk wrapped by ReadError", err)
	}
	if got == nil || enc.routines != 5 || enc.ends != 0 {
		t.Errorf("after a read error: dump %v, %d routines, %d ends; want the dump, 5 routines, no EndDump", got, enc.routines, enc.ends)
	}
}

// TestPipelinePartialRoutine: a routine that comes with its parse error
// (the partial result the error is about) is a warning and is written too,
// in its place; stack.RoutineFunc sees every routine.
func TestPipelinePartialRoutine(t *testing.T) {
	d := readDemo(t)
	pe := &stack.ParseError{Line: 7, Msg: "stack cut"}
	src := &sliceSource{d: d, partial: map[int]*stack.ParseError{3: pe}}
	var got []*stack.Routine
	var seen []*stack.ParseError
	p := stack.Pipeline{Source: src,
		Encoder:   stack.RoutineFunc(func(r *stack.Routine) { got = append(got, r) }),
		OnWarning: func(pe *stack.ParseError) { seen = append(seen, pe) }}
	n, err := p.Run(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("Run = %d, %v; want 1 dump, no error", n, err)
	}
	if len(seen) != 1 || seen[0] != pe {
		t.Errorf("OnWarning saw %v, want the one parse error", seen)
	}
	if len(got) != len(d.Routines) || got[3] != d.Routines[3] {
		t.Errorf("the encoder got %d of %d routines; want every one, the partial routine 3 in its place", len(got), len(d.Routines))
	}
}

// TestPipelineEncoderError: the encoder's error comes back as it is, not
// through ReadError.
func TestPipelineEncoderError(t *testing.T) {
	errFull := errors.New("no space left")
	enc := &recorder{failAt: 7, err: errFull}
	p := stack.Pipeline{Source: &sliceSource{d: readDemo(t)}, Encoder: enc,
		ReadError: func(err error) error { return fmt.Errorf("read test: %w", err) }}
	n, err := p.Run(context.Background())
	if err != errFull || n != 0 {
		t.Errorf("Run = %d, %v; want 0, the encoder's own error", n, err)
	}
	if enc.routines != 7 || enc.ends != 0 {
		t.Errorf("%d routines, %d ends; want 7, 0", enc.routines, enc.ends)
	}
}

// TestPipelineContext: a cancelled context stops the pipeline before the
// next dump, and within a few thousand routines of a dump being read.
func TestPipelineContext(t *testing.T) {
	d := readDemo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	enc := &recorder{}
	p := stack.Pipeline{Source: &sliceSource{d: d}, Encoder: enc}
	if n, err := p.Run(ctx); !errors.Is(err, context.Canceled) || n != 0 || enc.begins != 0 {
		t.Errorf("Run with a cancelled context = %d, %v, %d begins; want 0, context.Canceled, 0", n, err, enc.begins)
	}

	// A dump of 10,000 routines (the demo's, repeated), cancelled after
	// the 10th: the pipeline stops at its next look, long before the end.
	big := &stack.Dump{Source: d.Source}
	for len(big.Routines) < 10000 {
		big.Routines = append(big.Routines, d.Routines...)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	enc = &recorder{}
	p = stack.Pipeline{Source: &sliceSource{d: big, cancel: cancel, cancelAt: 9}, Encoder: enc}
	got, err := p.Next(ctx)
	if !errors.Is(err, context.Canceled) || got == nil {
		t.Fatalf("Next = %v, %v; want the dump and context.Canceled", got, err)
	}
	if enc.routines >= len(big.Routines) || enc.ends != 0 {
		t.Errorf("%d of %d routines written, %d ends; want the dump stopped part way", enc.routines, len(big.Routines), enc.ends)
	}
}

// realDumps are dumps real programs printed (testdata/gen): a service's
// goroutine profile, two runtime.Stack dumps in one file, a race report.
var realDumps = []string{"demo_go126.txt", "stacks2_go126.txt", "race_go126.txt", "leak_go126.txt"}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/go/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sliceSource is a DumpSource yielding one real dump's routines with
// errors put in between: after routine i, errs[i]; routine i itself comes
// with partial[i], as a partial routine comes with its parse error.
type sliceSource struct {
	d       *stack.Dump
	errs    map[int]error
	partial map[int]*stack.ParseError
	done    bool
	// cancel, when not nil, is called after routine cancelAt.
	cancel   func()
	cancelAt int
}

func (s *sliceSource) Next() (*stack.Dump, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	return &stack.Dump{Source: s.d.Source, Total: s.d.Total}, nil
}

func (s *sliceSource) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		for i, r := range s.d.Routines {
			var err error
			if pe, ok := s.partial[i]; ok {
				err = pe
			}
			if !yield(r, err) {
				return
			}
			if s.cancel != nil && i == s.cancelAt {
				s.cancel()
			}
			if err, ok := s.errs[i]; ok && !yield(nil, err) {
				return
			}
		}
	}
}

// recorder is an Encoder that counts what it is given and can fail.
type recorder struct {
	begins, routines, ends int
	failAt                 int // the routine whose WriteRoutine fails; 0: none
	err                    error
}

func (e *recorder) BeginDump(*stack.Dump) error { e.begins++; return nil }

func (e *recorder) EndDump(*stack.Dump) error { e.ends++; return nil }

func (e *recorder) WriteRoutine(*stack.Routine) error {
	e.routines++
	if e.routines == e.failAt {
		return e.err
	}
	return nil
}

func readDemo(t *testing.T) *stack.Dump {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(readTestdata(t, "demo_go126.txt")), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("ReadAll: %d dumps, %v", len(dumps), err)
	}
	return dumps[0]
}

// TestCopyAnySource: Copy takes any DumpSource, not only a Reader, and
// runs the same pipeline (wrapped parse errors are warnings).
func TestCopyAnySource(t *testing.T) {
	d := readDemo(t)
	pe := &stack.ParseError{Line: 5, Msg: "cut"}
	enc := &recorder{}
	var seen int
	n, err := formats.Copy(enc, &sliceSource{d: d, errs: map[int]error{0: fmt.Errorf("wrapped: %w", pe)}}, func(*stack.ParseError) { seen++ })
	if err != nil || n != 1 || seen != 1 || enc.routines != len(d.Routines) || enc.ends != 1 {
		t.Errorf("Copy = %d, %v; %d warnings, %d routines, %d ends; want 1 dump, 1 warning, %d routines, 1 end",
			n, err, seen, enc.routines, enc.ends, len(d.Routines))
	}
}
