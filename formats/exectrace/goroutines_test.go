package exectrace

import "testing"

func TestTraceGoroutines(t *testing.T) {
	var s traceGoroutines
	ids := []int64{1, 7, 3000, traceDenseIDs - 1, traceDenseIDs, 1 << 40, -1}
	for _, id := range ids {
		if s.lookup(id) != nil {
			t.Fatalf("id %d found before it was created", id)
		}
		s.create(id).parent = id * 2
	}
	for i := int64(0); i < 3*traceGChunk; i++ { // spill into more chunks
		s.create(100_000 + i)
	}
	for _, id := range ids {
		g := s.lookup(id)
		if g == nil || g.id != id || g.parent != id*2 {
			t.Errorf("lookup(%d) = %+v", id, g)
		}
	}
	s.remove(7)
	s.remove(1 << 40)
	s.remove(12345) // never created: no-op
	if s.lookup(7) != nil || s.lookup(1<<40) != nil {
		t.Error("removed goroutines still found")
	}
	if g := s.lookup(100_000 + 2*traceGChunk); g == nil || g.id != 100_000+2*traceGChunk {
		t.Errorf("goroutine in the third chunk: %+v", g)
	}
	if g := s.create(7); g.parent != 0 || s.lookup(7) != g {
		t.Error("re-created goroutine is not a fresh one")
	}
	gone := 0
	for i := range int32(s.n) {
		if s.at(i).gone {
			gone++
		}
	}
	if gone != 2 {
		t.Errorf("%d goroutines marked gone, want 2", gone)
	}
}
