package stack

import (
	"encoding/binary"
	"hash/maphash"
	"strconv"
	"strings"
)

// Table interns the strings, frames, stacks and frame values of dumps, so
// that memory follows the number of distinct call sites and stacks rather
// than the number of routines: a million goroutines over 60 distinct stacks
// cost little more than 60 stacks. Share one Table between readers to
// compare stacks across dumps by pointer.
//
// A Table is not safe for concurrent use.
type Table struct {
	strs   map[string]string
	frames map[Frame]*Frame
	stacks map[string]*Stack
	values *[maxValues]valuesSlot // direct-mapped cache, see Values
	seed   maphash.Seed
	labels map[string]Labels
	nstack int
	key    []byte // scratch for stack and value keys
}

// NewTable returns an empty Table.
func NewTable() *Table {
	return &Table{
		strs:   make(map[string]string),
		frames: make(map[Frame]*Frame),
		stacks: make(map[string]*Stack),
		values: new([maxValues]valuesSlot),
		seed:   maphash.MakeSeed(),
		labels: make(map[string]Labels),
	}
}

// Bytes returns the interned string equal to b. A hit does not allocate.
func (t *Table) Bytes(b []byte) string {
	if s, ok := t.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	t.strs[s] = s
	return s
}

// String returns the interned copy of s.
func (t *Table) String(s string) string {
	if is, ok := t.strs[s]; ok {
		return is
	}
	s = strings.Clone(s)
	t.strs[s] = s
	return s
}

// Frame returns the interned frame equal to f. Its strings are interned too.
func (t *Table) Frame(f Frame) *Frame {
	f.id = 0
	if p, ok := t.frames[f]; ok {
		return p
	}
	f.Func, f.File, f.Module = t.String(f.Func), t.String(f.File), t.String(f.Module)
	p := new(Frame)
	*p = f
	p.id = int32(len(t.frames) + 1)
	t.frames[f] = p
	return p
}

// Elision says whether, how many and where frames were left out of a
// stack by the runtime (Stack.Elided, ElidedCount and ElidedAt). The zero
// value means none were.
type Elision struct {
	// Elided is set when frames were left out.
	Elided bool
	// Count is N from `...N frames elided...` (Go 1.21+); 0 for
	// `...additional frames elided...`, whose count is unknown.
	Count int
	// At is the index in the stack's frames where the marker stood.
	At int
}

// Stack returns the interned stack of the given frames and elision (the
// zero Elision for a whole stack). The frames must come from t. frames is
// copied on first use, so callers may reuse the slice.
func (t *Table) Stack(frames []*Frame, e Elision) *Stack {
	k := t.key[:0]
	for _, f := range frames {
		k = binary.AppendUvarint(k, uint64(f.id))
	}
	if e.Elided {
		k = append(k, 0)
		k = binary.AppendUvarint(k, uint64(e.Count))
		k = binary.AppendUvarint(k, uint64(e.At))
	}
	t.key = k
	if s, ok := t.stacks[string(k)]; ok {
		return s
	}
	t.nstack++
	s := &Stack{ID: t.nstack, Frames: append([]*Frame(nil), frames...), Elided: e.Elided, ElidedCount: e.Count, ElidedAt: e.At}
	t.stacks[string(k)] = s
	return s
}

// maxValues is the number of slots of a Table's FrameValues cache (see
// Values); a power of two.
const maxValues = 1 << 10

// valuesSlot is one entry of the FrameValues cache.
type valuesSlot struct {
	hash uint64
	p    *FrameValues
}

// Values returns FrameValues equal to vs, or nil when no value is set. vs
// is copied. Unlike frames and stacks, values are deduplicated through a
// small direct-mapped cache rather than kept for the Table's life: they
// mostly differ from goroutine to goroutine (pointer arguments), and
// keeping every one would make a streaming reader's memory grow with
// goroutines instead of stacks. Equal values met close together share one
// pointer; compare contents, not pointers, to match values across a long
// stream.
func (t *Table) Values(vs []FrameValue) *FrameValues {
	k := t.key[:0]
	empty := true
	size := 0
	for _, v := range vs {
		if v.Args != "" || v.FP != 0 || v.SP != 0 || v.PC != 0 || len(v.Locks) > 0 {
			empty = false
		}
		size += len(v.Args)
		k = appendKeyString(k, v.Args)
		k = binary.AppendUvarint(k, v.FP)
		k = binary.AppendUvarint(k, v.SP)
		k = binary.AppendUvarint(k, v.PC)
		for _, l := range v.Locks {
			k = appendKeyString(k, string(l.Kind))
			k = appendKeyString(k, l.Addr)
			k = appendKeyString(k, l.Class)
		}
		k = append(k, ';')
	}
	t.key = k
	if empty {
		return nil
	}
	h := maphash.Bytes(t.seed, k)
	slot := &t.values[h&(maxValues-1)]
	if slot.p != nil && slot.hash == h && slot.p.equal(vs) {
		return slot.p
	}
	// One string holds every frame's arguments.
	var b strings.Builder
	b.Grow(size)
	for _, v := range vs {
		b.WriteString(v.Args)
	}
	all := b.String()
	p := &FrameValues{Frames: make([]FrameValue, len(vs))}
	for i, v := range vs {
		v.Args, all = all[:len(v.Args)], all[len(v.Args):]
		if v.Locks != nil {
			v.Locks = append([]Lock(nil), v.Locks...)
		}
		p.Frames[i] = v
	}
	*slot = valuesSlot{hash: h, p: p}
	return p
}

// appendKeyString appends s to a key, length first so keys are unambiguous.
func appendKeyString(k []byte, s string) []byte {
	k = binary.AppendUvarint(k, uint64(len(s)))
	return append(k, s...)
}

// equal reports whether p holds exactly vs.
func (p *FrameValues) equal(vs []FrameValue) bool {
	if len(p.Frames) != len(vs) {
		return false
	}
	for i, v := range vs {
		w := &p.Frames[i]
		if w.Args != v.Args || w.FP != v.FP || w.SP != v.SP || w.PC != v.PC || len(w.Locks) != len(v.Locks) {
			return false
		}
		for j, l := range v.Locks {
			if w.Locks[j] != l {
				return false
			}
		}
	}
	return true
}

// Labels returns the interned label set equal to ls, sorted by key.
// ls may be reordered; it is copied on first use.
func (t *Table) Labels(ls Labels) Labels {
	if len(ls) == 0 {
		return nil
	}
	sortLabels(ls)
	k := t.key[:0]
	for _, l := range ls {
		k = strconv.AppendQuote(k, l.Key)
		k = strconv.AppendQuote(k, l.Value)
	}
	t.key = k
	if p, ok := t.labels[string(k)]; ok {
		return p
	}
	p := make(Labels, len(ls))
	for i, l := range ls {
		p[i] = Label{t.String(l.Key), t.String(l.Value)}
	}
	t.labels[string(k)] = p
	return p
}

// Len reports the number of distinct frames and stacks interned so far.
func (t *Table) Len() (frames, stacks int) { return len(t.frames), len(t.stacks) }

func sortLabels(ls Labels) {
	// Insertion sort: label sets are small.
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].Key < ls[j-1].Key; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}
