package gotext

import (
	"hash/maphash"

	"github.com/stackdump/stackdump/stack"
)

// valueSpan is one frame's values with its arguments as a span of a
// shared buffer (see valueCache.valuesOf).
type valueSpan struct {
	argStart, argEnd int
	fp, sp, pc       uint64
}

// valueCacheSize is the number of slots of a valueCache; a power of two.
const valueCacheSize = 1 << 10

// valueCache deduplicates the FrameValues the Go traceback reader makes,
// as Table.Values does for other readers, through a small direct-mapped
// cache: values mostly differ from goroutine to goroutine (pointer
// arguments), and keeping every one would make memory grow with
// goroutines instead of stacks. Equal values met close together share one
// pointer. The zero value is ready to use.
type valueCache struct {
	seed  maphash.Seed
	slots *[valueCacheSize]cachedValues
}

// cachedValues is one slot of a valueCache.
type cachedValues struct {
	hash uint64
	p    *stack.FrameValues
}

// valuesOf returns FrameValues for frames whose arguments lie in args, as
// the reader collects them, or nil when no value is set: it builds no
// intermediate []FrameValue, and on a miss copies the arguments once, as
// one string.
func (c *valueCache) valuesOf(args []byte, spans []valueSpan) *stack.FrameValues {
	empty := true
	lo, hi := len(args), 0
	for _, v := range spans {
		if v.argEnd > v.argStart {
			lo, hi = min(lo, v.argStart), max(hi, v.argEnd)
			empty = false
		} else if v.fp != 0 || v.sp != 0 || v.pc != 0 {
			empty = false
		}
	}
	if empty {
		return nil
	}
	if c.slots == nil {
		c.seed, c.slots = maphash.MakeSeed(), new([valueCacheSize]cachedValues)
	}
	// Hash the arguments in place, then mix in each frame's layout and
	// numbers: no key is built. A hit is confirmed field by field.
	var h uint64
	if hi > lo {
		h = maphash.Bytes(c.seed, args[lo:hi])
	}
	for _, v := range spans {
		h = mixHash(h, uint64(v.argStart-lo)<<32|uint64(v.argEnd-v.argStart))
		if v.fp|v.sp|v.pc != 0 { // rare: GOTRACEBACK=system
			h = mixHash(h, v.fp)
			h = mixHash(h, v.sp)
			h = mixHash(h, v.pc)
		}
	}
	slot := &c.slots[h&(valueCacheSize-1)]
	if p := slot.p; p != nil && slot.hash == h && len(p.Frames) == len(spans) {
		same := true
		for i, v := range spans {
			w := &p.Frames[i]
			if w.FP != v.fp || w.SP != v.sp || w.PC != v.pc || len(w.Locks) != 0 || w.Args != string(args[v.argStart:v.argEnd]) {
				same = false
				break
			}
		}
		if same {
			return p
		}
	}
	all := ""
	if hi > lo {
		all = string(args[lo:hi])
	}
	p := &stack.FrameValues{Frames: make([]stack.FrameValue, len(spans))}
	for i, v := range spans {
		f := &p.Frames[i]
		if v.argEnd > v.argStart {
			f.Args = all[v.argStart-lo : v.argEnd-lo]
		}
		f.FP, f.SP, f.PC = v.fp, v.sp, v.pc
	}
	*slot = cachedValues{hash: h, p: p}
	return p
}

// mixHash folds x into h (a multiply-xorshift step).
func mixHash(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}
