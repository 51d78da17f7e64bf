package tracesnap

import (
	"iter"
	"sort"
)

// goTable holds one value per live goroutine (or thread, or proc) id.
// Values live in fixed-size chunks, so that a million of them are never
// copied to grow a slice, and freed slots are reused; ids below denseIDs
// (all of them in most processes) are found through a slice rather than a
// map, which is what a million lookups per trace spend most of their time
// on.
type goTable[T any] struct {
	chunks [][]T
	n      int32
	free   []int32
	dense  []int32 // index+1 of the value with that id; 0 when none
	sparse map[int64]int32
	live   int
}

const (
	goChunk = 1024
	// denseIDs bounds the id-indexed slice (16 MiB at most).
	denseIDs = 1 << 22
)

func (t *goTable[T]) at(i int32) *T { return &t.chunks[i/goChunk][i%goChunk] }

// get returns the value of id, or nil.
func (t *goTable[T]) get(id int64) *T {
	if uint64(id) < denseIDs {
		if id < int64(len(t.dense)) && t.dense[id] != 0 {
			return t.at(t.dense[id] - 1)
		}
		return nil
	}
	if i, ok := t.sparse[id]; ok {
		return t.at(i)
	}
	return nil
}

// add stores a zero value for id, which must be absent, and returns it.
func (t *goTable[T]) add(id int64) *T {
	var i int32
	var v *T
	if k := len(t.free); k > 0 {
		i = t.free[k-1]
		t.free = t.free[:k-1]
		v = t.at(i)
		var zero T
		*v = zero
	} else {
		if t.n%goChunk == 0 {
			t.chunks = append(t.chunks, make([]T, goChunk)) // zeroed
		}
		i = t.n
		t.n++
		v = t.at(i)
	}
	t.live++
	if uint64(id) < denseIDs {
		if id >= int64(len(t.dense)) {
			grown := make([]int32, min(max(2*len(t.dense), int(id)+1, 1024), denseIDs))
			copy(grown, t.dense)
			t.dense = grown
		}
		t.dense[id] = i + 1
		return v
	}
	if t.sparse == nil {
		t.sparse = make(map[int64]int32)
	}
	t.sparse[id] = i
	return v
}

// reserve makes room for ids below n without growing the index later.
func (t *goTable[T]) reserve(n int) {
	n = min(n, denseIDs)
	if n > len(t.dense) {
		grown := make([]int32, n)
		copy(grown, t.dense)
		t.dense = grown
	}
	if c := (n + goChunk - 1) / goChunk; c > cap(t.chunks) {
		t.chunks = append(make([][]T, 0, c), t.chunks...)
	}
}

// remove drops id's value; its slot is reused.
func (t *goTable[T]) remove(id int64) {
	var i int32
	if uint64(id) < denseIDs {
		if id >= int64(len(t.dense)) || t.dense[id] == 0 {
			return
		}
		i = t.dense[id] - 1
		t.dense[id] = 0
	} else {
		var ok bool
		if i, ok = t.sparse[id]; !ok {
			return
		}
		delete(t.sparse, id)
	}
	t.free = append(t.free, i)
	t.live--
}

// len returns the number of ids stored.
func (t *goTable[T]) len() int { return t.live }

// ascending yields the ids stored and their values, by increasing id:
// the negative ids of sparse, then dense's, then sparse's others. It
// calls yield from one place, so that a caller's loop body, inlined at
// each call of yield, is compiled once.
func (t *goTable[T]) ascending() iter.Seq2[int64, *T] {
	return func(yield func(int64, *T) bool) {
		var neg, big []int64
		for id := range t.sparse {
			if id < 0 {
				neg = append(neg, id)
			} else {
				big = append(big, id)
			}
		}
		sort.Slice(neg, func(i, j int) bool { return neg[i] < neg[j] }) // not generic: smaller
		sort.Slice(big, func(i, j int) bool { return big[i] < big[j] })
		dense := len(neg) + len(t.dense)
		for k := range dense + len(big) {
			var id int64
			var v *T
			switch {
			case k < len(neg):
				id = neg[k]
				v = t.at(t.sparse[id])
			case k < dense:
				id = int64(k - len(neg))
				i := t.dense[id]
				if i == 0 {
					continue
				}
				v = t.at(i - 1)
			default:
				id = big[k-dense]
				v = t.at(t.sparse[id])
			}
			if !yield(id, v) {
				return
			}
		}
	}
}
