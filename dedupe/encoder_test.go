package dedupe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// pipelineInputs are real dumps (testdata/gen): a service's goroutine
// profile, a leak-proof profile, two runtime.Stack dumps in one file.
var pipelineInputs = []string{"demo_go126.txt", "leakproof_go127.txt", "stacks2_go126.txt"}

func readGo(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGroupingEncoderWritesGroups: a pipeline into NewGroupingEncoder
// writes what grouping each dump in memory and WriteGroups write, in
// every grouped format.
func TestGroupingEncoderWritesGroups(t *testing.T) {
	for _, name := range pipelineInputs {
		data := readGo(t, name)
		dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []output.Format{output.Text, output.JSON, output.Debug1} {
			opts := Options{By: ByFunc}
			var want bytes.Buffer
			for _, d := range dumps {
				if err := formats.WriteGroups(&want, f, d, Group(d, opts)); err != nil {
					t.Fatal(err)
				}
			}
			var got bytes.Buffer
			enc := NewGroupingEncoder(func(d *stack.Dump, groups []*stack.Group) error {
				return formats.WriteGroups(&got, f, d, groups)
			}, opts)
			p := stack.Pipeline{Source: formats.NewReader(bytes.NewReader(data), formats.ReadOptions{ReuseRoutines: true}), Encoder: enc}
			if n, err := p.Run(context.Background()); err != nil || n != len(dumps) {
				t.Fatalf("%s as %s: Run = %d, %v; want %d dumps", name, f, n, err, len(dumps))
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s as %s: grouping encoder wrote %d bytes, WriteGroups %d, and they differ", name, f, got.Len(), want.Len())
			}
		}
	}
}

// TestGroupThrough: routines pass through unchanged (the output is the
// plain encoder's) and the groups are Group's.
func TestGroupThrough(t *testing.T) {
	data := readGo(t, "demo_go126.txt")
	dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("ReadAll: %d dumps, %v", len(dumps), err)
	}
	var want, got, wantGroups, gotGroups bytes.Buffer
	wenc, _ := formats.NewEncoder(&want, output.JSON)
	if err := stack.WriteDump(wenc, dumps[0]); err != nil {
		t.Fatal(err)
	}
	enc, _ := formats.NewEncoder(&got, output.JSON)
	g := GroupThrough(enc, Options{})
	p := stack.Pipeline{Source: formats.NewReader(bytes.NewReader(data), formats.ReadOptions{ReuseRoutines: true}), Encoder: g}
	d, err := p.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("GroupThrough changed the output: %d bytes, want %d", got.Len(), want.Len())
	}
	if err := formats.WriteGroups(&wantGroups, output.JSON, dumps[0], Group(dumps[0], Options{})); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteGroups(&gotGroups, output.JSON, d, g.Groups()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotGroups.Bytes(), wantGroups.Bytes()) {
		t.Errorf("GroupThrough's groups differ from Group's")
	}
	if g.Total() != dumps[0].Total {
		t.Errorf("Total = %d, want %d", g.Total(), dumps[0].Total)
	}
}

// stopAfter is an Encoder that fails on routine n.
type stopAfter struct{ n, seen int }

var errStop = errors.New("stop")

func (s *stopAfter) BeginDump(*stack.Dump) error { return nil }
func (s *stopAfter) EndDump(*stack.Dump) error   { return nil }
func (s *stopAfter) WriteRoutine(*stack.Routine) error {
	if s.seen++; s.seen == s.n {
		return errStop
	}
	return nil
}

// TestGroupThroughStopped: after a dump stopped half way, Groups holds
// the routines grouped so far.
func TestGroupThroughStopped(t *testing.T) {
	data := readGo(t, "demo_go126.txt")
	g := GroupThrough(&stopAfter{n: 40}, Options{})
	p := stack.Pipeline{Source: formats.NewReader(bytes.NewReader(data), formats.ReadOptions{}), Encoder: g}
	if _, err := p.Next(context.Background()); err != errStop {
		t.Fatalf("Next error = %v, want errStop", err)
	}
	var n int64
	for _, grp := range g.Groups() {
		n += grp.Count
	}
	if n != 40 || g.Total() != 40 {
		t.Errorf("groups count %d routines, Total %d; want the 40 written", n, g.Total())
	}
}
