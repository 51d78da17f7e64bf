package gen

import (
	"bytes"
	"io"
	"maps"
	"testing"

	"github.com/DataDog/gostackparse"
	"github.com/maruel/panicparse/v2/stack"
)

// The peers' parsers are independent judges of the generated shapes: on a
// compatible dump they must find every goroutine, without errors, in the
// states the generator reports.
func TestPeersReadCompatibleDump(t *testing.T) {
	dump, st := Generate(Compatible(3000, 5))

	gs, errs := gostackparse.Parse(bytes.NewReader(dump))
	if len(errs) > 0 || len(gs) != st.Goroutines {
		t.Fatalf("gostackparse: %d goroutines of %d, errors %v", len(gs), st.Goroutines, errs[:min(len(errs), 3)])
	}
	states := map[string]int{}
	for _, g := range gs {
		states[g.State]++
	}
	if !maps.Equal(states, st.States) {
		t.Fatalf("gostackparse states %v, generator says %v", states, st.States)
	}

	snap, _, err := stack.ScanSnapshot(bytes.NewReader(dump), io.Discard, &stack.Opts{})
	if err != nil && err != io.EOF {
		t.Fatalf("panicparse: %v", err)
	}
	if snap == nil || len(snap.Goroutines) != st.Goroutines {
		t.Fatalf("panicparse found %v goroutines of %d", snap, st.Goroutines)
	}
	states = map[string]int{}
	for _, g := range snap.Goroutines {
		states[g.State]++
	}
	if !maps.Equal(states, st.States) {
		t.Fatalf("panicparse states %v, generator says %v", states, st.States)
	}
}

// gostackparse drops exactly the goroutines with a modern form; panicparse
// keeps them all.
func TestPeersReadModernDump(t *testing.T) {
	dump, st := Generate(Modern(3000, 6))
	if st.Modern == 0 {
		t.Fatal("no modern forms")
	}
	gs, errs := gostackparse.Parse(bytes.NewReader(dump))
	if len(gs) != st.Goroutines-st.Modern || len(errs) != st.Modern {
		t.Fatalf("gostackparse: %d goroutines and %d errors; want %d and %d", len(gs), len(errs), st.Goroutines-st.Modern, st.Modern)
	}
	snap, _, err := stack.ScanSnapshot(bytes.NewReader(dump), io.Discard, &stack.Opts{})
	if err != nil && err != io.EOF {
		t.Fatalf("panicparse: %v", err)
	}
	if snap == nil || len(snap.Goroutines) != st.Goroutines {
		t.Fatalf("panicparse found %d goroutines of %d", len(snap.Goroutines), st.Goroutines)
	}
}
