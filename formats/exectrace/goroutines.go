package exectrace

// traceGoroutines stores the replayed state of every goroutine of a trace
// by id. States live in fixed-size chunks, so that a million of them are
// never copied to grow a slice; ids below traceDenseIDs (all of them in
// most processes) are found through a slice rather than a map, which is
// what a million lookups per trace spend most of their time on.
type traceGoroutines struct {
	chunks [][]traceG
	n      int
	dense  []int32 // index+1 of the goroutine with that id; 0 when none
	sparse map[int64]int32
}

const (
	traceGChunk = 1024
	// traceDenseIDs bounds the id-indexed slice (16 MiB at most).
	traceDenseIDs = 1 << 22
)

// at returns the goroutine stored at index i.
func (s *traceGoroutines) at(i int32) *traceG { return &s.chunks[i/traceGChunk][i%traceGChunk] }

// lookup returns the live goroutine with the given id, or nil.
func (s *traceGoroutines) lookup(id int64) *traceG {
	if id >= 0 && id < traceDenseIDs {
		if id < int64(len(s.dense)) && s.dense[id] != 0 {
			return s.at(s.dense[id] - 1)
		}
		return nil
	}
	if i, ok := s.sparse[id]; ok {
		return s.at(i)
	}
	return nil
}

// create stores a new goroutine with the given id and returns it.
func (s *traceGoroutines) create(id int64) *traceG {
	if s.n%traceGChunk == 0 {
		s.chunks = append(s.chunks, make([]traceG, traceGChunk))
	}
	i := int32(s.n)
	s.n++
	g := s.at(i)
	*g = traceG{id: id}
	switch {
	case id >= 0 && id < traceDenseIDs:
		if id >= int64(len(s.dense)) {
			grown := make([]int32, min(max(2*len(s.dense), int(id)+1, 1024), traceDenseIDs))
			copy(grown, s.dense)
			s.dense = grown
		}
		s.dense[id] = i + 1
	default:
		if s.sparse == nil {
			s.sparse = make(map[int64]int32)
		}
		s.sparse[id] = i
	}
	return g
}

// remove marks the goroutine with the given id gone; its id may be
// created again.
func (s *traceGoroutines) remove(id int64) {
	g := s.lookup(id)
	if g == nil {
		return
	}
	g.gone = true
	if id >= 0 && id < traceDenseIDs {
		s.dense[id] = 0
	} else {
		delete(s.sparse, id)
	}
}
