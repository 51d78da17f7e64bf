package goproc

import (
	"sort"

	"github.com/stackdump/stackdump/stack"
)

// maxLabels and maxLabelLen bound what is read of one goroutine's labels.
const (
	maxLabels   = 1 << 10
	maxLabelLen = 1 << 16
)

// labels returns the pprof labels g.labels points to, sorted by key: from
// Go 1.24 a struct whose first field is the sorted list of {key, value}
// pairs; before, a pointer to a map[string]string. Label sets are shared
// by the goroutines a labelled one starts, and never change once made:
// each is read once.
func (r *reader) labels(p uint64) stack.Labels {
	if ls, ok := r.labelSet[p]; ok {
		return ls
	}
	var ls stack.Labels
	if r.bin.minor >= 24 {
		ls = r.labelList(p)
	} else {
		ls = r.labelMap(p)
	}
	ls.Sort()
	r.labelSet[p] = ls
	return ls
}

// labelList reads a Go 1.24+ label set: a slice of {key, value string}.
func (r *reader) labelList(p uint64) stack.Labels {
	var hdr [16]byte
	if r.mem.read(p, hdr[:]) != nil {
		return nil
	}
	ptr, n := leUint64(hdr[:]), leUint64(hdr[8:])
	if ptr == 0 || n == 0 || n > maxLabels {
		return nil
	}
	b := make([]byte, 32*n)
	if r.mem.read(ptr, b) != nil {
		return nil
	}
	ls := make(stack.Labels, 0, n)
	for i := uint64(0); i < n; i++ {
		k, ok1 := r.goString(b[32*i:])
		v, ok2 := r.goString(b[32*i+16:])
		if ok1 && ok2 {
			ls = append(ls, stack.Label{Key: k, Value: v})
		}
	}
	return ls
}

// The shape of a map[string]string's buckets before Go 1.24 (bucketCnt 8:
// tophash bytes, keys, values, overflow pointer) and the tophash values
// below minTopHash that mark an empty or evacuated slot.
const (
	bucketCnt   = 8
	bucketSize  = bucketCnt + bucketCnt*16*2 + 8
	minTopHash  = 5
	maxBucketsB = 10
)

// labelMap reads the map[string]string p points to (Go 1.19–1.23):
// every bucket with its overflow chain, and the old buckets of a map
// still growing, whose slots not yet evacuated hold entries too.
func (r *reader) labelMap(p uint64) stack.Labels {
	h, err := r.mem.word(p)
	if err != nil || h == 0 {
		return nil
	}
	l := &r.l.Hmap
	hb := make([]byte, max(l.Count, l.B, l.Buckets, l.OldBuckets)+8)
	if r.mem.read(h, hb) != nil {
		return nil
	}
	count := leUint64(hb[l.Count:])
	B := hb[l.B]
	if count == 0 || count > maxLabels || B > maxBucketsB {
		return nil
	}
	seen := map[string]bool{}
	var ls stack.Labels
	walk := func(buckets uint64, n uint64) {
		b := make([]byte, bucketSize)
		for i := uint64(0); i < n && buckets != 0; i++ {
			for at, hops := buckets+i*bucketSize, 0; at != 0 && hops < 64; hops++ {
				if r.mem.read(at, b) != nil {
					break
				}
				for s := 0; s < bucketCnt; s++ {
					if b[s] < minTopHash {
						continue
					}
					k, ok1 := r.goString(b[bucketCnt+16*s:])
					v, ok2 := r.goString(b[bucketCnt+16*bucketCnt+16*s:])
					if ok1 && ok2 && !seen[k] {
						seen[k] = true
						ls = append(ls, stack.Label{Key: k, Value: v})
					}
				}
				at = leUint64(b[bucketSize-8:])
			}
		}
	}
	walk(leUint64(hb[l.Buckets:]), 1<<B)
	if old := leUint64(hb[l.OldBuckets:]); old != 0 && B > 0 {
		// The map doubles as it grows: the old array has half the buckets
		// (or as many, for a same-size grow; reading past half then is
		// harmless only if it exists, so keep to half).
		walk(old, 1<<(B-1))
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Key < ls[j].Key })
	return ls
}

// goString reads the Go string whose header starts b.
func (r *reader) goString(b []byte) (string, bool) {
	ptr, n := leUint64(b), leUint64(b[8:])
	if n == 0 {
		return "", true
	}
	if ptr == 0 || n > maxLabelLen {
		return "", false
	}
	s := make([]byte, n)
	if r.mem.read(ptr, s) != nil {
		return "", false
	}
	return string(s), true
}
