package tracesnap

import (
	"slices"
	"testing"
)

func TestGoTable(t *testing.T) {
	var s goTable[traceG]
	ids := []int64{1, 7, 3000, denseIDs - 1, denseIDs, 1 << 40, -1}
	for _, id := range ids {
		if s.get(id) != nil {
			t.Fatalf("id %d found before it was added", id)
		}
		g := s.add(id)
		g.id, g.parent = id, id*2
	}
	for i := int64(0); i < 3*goChunk; i++ { // spill into more chunks
		s.add(100_000 + i).id = 100_000 + i
	}
	for _, id := range ids {
		g := s.get(id)
		if g == nil || g.id != id || g.parent != id*2 {
			t.Errorf("get(%d) = %+v", id, g)
		}
	}
	s.remove(7)
	s.remove(1 << 40)
	s.remove(12345) // never added: no-op
	if s.get(7) != nil || s.get(1<<40) != nil {
		t.Error("removed ids still found")
	}
	if g := s.get(100_000 + 2*goChunk); g == nil || g.id != 100_000+2*goChunk {
		t.Errorf("value in the third chunk: %+v", g)
	}
	if g := s.add(7); g.parent != 0 || s.get(7) != g {
		t.Error("an id added again does not get a fresh value")
	}
	if want := len(ids) - 2 + 1 + 3*goChunk; s.len() != want {
		t.Errorf("len %d, want %d", s.len(), want)
	}
	var got []int64
	for id, g := range s.ascending() {
		if g != s.get(id) {
			t.Fatalf("ascending yields id %d with another value", id)
		}
		got = append(got, id)
	}
	if !slices.IsSorted(got) || len(got) != s.len() {
		t.Errorf("ascending: %d ids, sorted %v", len(got), slices.IsSorted(got))
	}
	if got[0] != -1 || got[len(got)-1] != denseIDs {
		t.Errorf("ascending runs from %d to %d, want -1 to %d", got[0], got[len(got)-1], denseIDs)
	}
}

func TestGoTableReserve(t *testing.T) {
	var s goTable[traceG]
	s.add(5).id = 5
	s.reserve(10_000)
	if len(s.dense) < 10_000 || s.get(5) == nil || s.get(5).id != 5 {
		t.Fatalf("reserve lost a value or did not grow the index: %d, %+v", len(s.dense), s.get(5))
	}
	for id := int64(0); id < 10_000; id++ {
		if id != 5 {
			s.add(id).id = id
		}
	}
	for id := int64(0); id < 10_000; id++ {
		if g := s.get(id); g == nil || g.id != id {
			t.Fatalf("get(%d) = %+v", id, g)
		}
	}
}
