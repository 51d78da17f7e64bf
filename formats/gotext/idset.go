package gotext

// idSet is a set of goroutine ids: a bitmap for the dense small ids the
// runtime hands out, a map for the rest. Clearing it keeps its memory.
type idSet struct {
	bits  []uint64
	used  int // words of bits written since the last clear
	large map[int64]struct{}
}

// idSetDense bounds the bitmap: ids below it cost one bit (2 MiB at most).
const idSetDense = 1 << 24

// add inserts id and reports whether it was already there.
func (s *idSet) add(id int64) bool {
	if id >= 0 && id < idSetDense {
		w, b := int(id>>6), uint64(1)<<(id&63)
		if w >= len(s.bits) {
			s.bits = append(s.bits, make([]uint64, w+1-len(s.bits)+len(s.bits)/2)...)
		}
		dup := s.bits[w]&b != 0
		s.bits[w] |= b
		s.used = max(s.used, w+1)
		return dup
	}
	if s.large == nil {
		s.large = make(map[int64]struct{})
	}
	_, dup := s.large[id]
	s.large[id] = struct{}{}
	return dup
}

// has reports whether id is in the set.
func (s *idSet) has(id int64) bool {
	if id >= 0 && id < idSetDense {
		w := int(id >> 6)
		return w < len(s.bits) && s.bits[w]&(uint64(1)<<(id&63)) != 0
	}
	_, ok := s.large[id]
	return ok
}

func (s *idSet) clear() {
	clear(s.bits[:s.used])
	s.used = 0
	if len(s.large) > 0 {
		clear(s.large)
	}
}
