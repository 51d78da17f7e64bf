package dedupe

import (
	"slices"
	"sort"
)

// idSet keeps the smallest ids added to it, up to a limit, and counts the
// ones it let go. Which ids it keeps does not depend on the order they
// came in: below the limit ids are appended, at the limit the slice turns
// into a max-heap whose top gives way to any smaller id. Memory is bounded
// by the limit, whatever the number of routines.
type idSet struct {
	ids   []int64
	limit int  // < 0: no limit
	heap  bool // ids is a max-heap
	more  int64
	// members mirrors ids when the set keeps distinct values (parent ids);
	// nil for goroutine ids, which a dump lists once each.
	members  map[int64]struct{}
	distinct bool
	last     int64 // last value added in distinct mode, a cheap repeat check
}

func newIDSet(limit int, distinct bool) idSet {
	return idSet{limit: limit, distinct: distinct}
}

// add adds id. Zero ids (inputs without ids) are not kept.
func (s *idSet) add(id int64) {
	if id == 0 {
		return
	}
	if s.distinct {
		if id == s.last {
			return
		}
		s.last = id
		if _, ok := s.members[id]; ok {
			return
		}
	}
	if s.limit < 0 || len(s.ids) < s.limit {
		s.ids = append(s.ids, id)
		s.remember(id)
		return
	}
	if s.limit == 0 {
		s.more++
		return
	}
	if !s.heap {
		heapify(s.ids)
		s.heap = true
	}
	s.more++
	if id >= s.ids[0] {
		return
	}
	if s.distinct {
		delete(s.members, s.ids[0])
	}
	s.ids[0] = id
	s.remember(id)
	siftDown(s.ids, 0)
}

func (s *idSet) remember(id int64) {
	if !s.distinct {
		return
	}
	if s.members == nil {
		s.members = make(map[int64]struct{})
	}
	s.members[id] = struct{}{}
}

// sorted returns a sorted copy of the kept ids; nil when there are none.
func (s *idSet) sorted() []int64 {
	if len(s.ids) == 0 {
		return nil
	}
	out := slices.Clone(s.ids)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] }) // not generic: a service links one sort less
	return out
}

// heapify orders h as a max-heap.
func heapify(h []int64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

// siftDown moves h[i] down to its place in the max-heap h.
func siftDown(h []int64, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		big := l
		if r := l + 1; r < n && h[r] > h[l] {
			big = r
		}
		if h[i] >= h[big] {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}
