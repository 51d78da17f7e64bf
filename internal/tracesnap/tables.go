package tracesnap

import "iter"

// numTable holds a generation's string or stack table: values by their
// wire id. Id 0 is always present and means the empty value, as in
// x/exp/trace; inserting it, or any id twice, fails.
type numTable[T any] struct {
	ids    []uint64
	values []T
	byID   map[uint64]int32
	dense  []int32 // index+1 by id, built by lookup's first call when ids are dense
	frozen bool
}

func (t *numTable[T]) insert(id uint64, v T) bool {
	if id == 0 {
		return false
	}
	if t.byID == nil {
		t.byID = make(map[uint64]int32)
	}
	if _, dup := t.byID[id]; dup {
		return false
	}
	t.byID[id] = int32(len(t.values))
	t.ids = append(t.ids, id)
	t.values = append(t.values, v)
	return true
}

func (t *numTable[T]) len() int { return len(t.values) }

// at returns the value at index i (in insertion order).
func (t *numTable[T]) at(i int32) *T { return &t.values[i] }

// index returns the index of id, -1 for id 0, and whether id is present.
func (t *numTable[T]) index(id uint64) (int32, bool) {
	if id == 0 {
		return -1, true
	}
	if !t.frozen {
		t.freeze()
	}
	if id < uint64(len(t.dense)) {
		i := t.dense[id]
		return i - 1, i != 0
	}
	if t.dense != nil {
		return 0, false
	}
	i, ok := t.byID[id]
	return i, ok
}

// freeze builds the dense index when the ids allow it (they are 1, 2, 3…
// in traces the runtime writes).
func (t *numTable[T]) freeze() {
	t.frozen = true
	var top uint64
	for _, id := range t.ids {
		top = max(top, id)
	}
	if top > uint64(4*len(t.ids)+64) {
		return
	}
	t.dense = make([]int32, top+1)
	for i, id := range t.ids {
		t.dense[id] = int32(i) + 1
	}
}

func (t *numTable[T]) get(id uint64) (T, bool) {
	i, ok := t.index(id)
	if !ok || i < 0 {
		var zero T
		return zero, ok
	}
	return t.values[i], true
}

func (t *numTable[T]) all() iter.Seq2[uint64, T] {
	return func(yield func(uint64, T) bool) {
		for i, v := range t.values {
			if !yield(t.ids[i], v) {
				return
			}
		}
	}
}
