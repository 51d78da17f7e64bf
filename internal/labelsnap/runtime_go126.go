//go:build go1.26 && !go1.28

package labelsnap

import "unsafe"

// The layout of the runtime's goroutine profile with labels, as read in
// the sources of go1.26.8 and go1.27.3 (the same in both):
//
//   - runtime.pprof_goroutineProfileWithLabels (runtime/mprof.go) is the
//     function runtime/pprof's writeGoroutine calls; it is marked for
//     go:linkname on its definition, which is what lets a package outside
//     the standard library link to it.
//   - Its records are internal/profilerecord.StackRecord: struct{ Stack
//     []uintptr }, the pcs of one goroutine's stack (logical frames, for
//     runtime.CallersFrames), the calling goroutine's first.
//   - Each label pointer is a goroutine's g.labels: nil, or a
//     *runtime/pprof.labelMap, struct{ label.Set } with label.Set struct{
//     List []label.Label } and label.Label struct{ Key, Value string }
//     (internal/runtime/pprof/label); sorted by key, never changed once
//     set (pprof.WithLabels makes a new one).
//
// Take checks the layout on every call by reading back the label set it
// gives the calling goroutine before reading any other.

const supported = true

type stackRecord struct{ Stack []uintptr }

type labelPair struct{ key, value string }

type labelSet struct{ list []labelPair }

//go:linkname goroutineProfileWithLabels runtime.pprof_goroutineProfileWithLabels
func goroutineProfileWithLabels(p []stackRecord, labels []unsafe.Pointer) (n int, ok bool)

// fetch runs the runtime's goroutine profile with labels, as runtime/pprof
// does: sized first, retried if goroutines were added meanwhile.
func fetch() ([]stackRecord, []unsafe.Pointer) {
	n, _ := goroutineProfileWithLabels(nil, nil)
	for {
		recs := make([]stackRecord, n+10)
		labels := make([]unsafe.Pointer, n+10)
		var ok bool
		if n, ok = goroutineProfileWithLabels(recs, labels); ok {
			return recs[:n], labels[:n]
		}
	}
}

// labelPairs returns the label set a label pointer points to.
func labelPairs(p unsafe.Pointer) []labelPair {
	if p == nil {
		return nil
	}
	return (*labelSet)(p).list
}
