// Package labelsnap reads the pprof labels of every goroutine of the
// calling process, at the cost of the runtime's own goroutine profile
// walk.
//
// runtime/pprof's goroutine profile is the only public source of other
// goroutines' labels, and writing it (debug=0 or debug=1 alike) builds a
// text key of every goroutine's stack with fmt before counting them: at a
// million goroutines that costs as much again as the walk itself. This
// package calls the walk that runtime/pprof calls (the runtime's
// concurrent goroutine profile: two stop-the-worlds of microseconds, each
// goroutine recorded while the program runs) and reads its results
// directly, on the Go releases whose layout of those results it was
// checked against (go1.26.x and go1.27.x, runtime_go126.go). On any other
// release, or if a self-check on every call finds the layout different,
// Take returns ErrUnsupported and the caller falls back to runtime/pprof.
package labelsnap

import (
	"context"
	"errors"
	"runtime"
	"runtime/pprof"
	"strings"
	"unsafe"

	"github.com/stackdump/stackdump/stack"
)

// ErrUnsupported is returned by Take on a Go release whose goroutine
// profile layout this package does not know, or when its self-check
// fails: read the labels from runtime/pprof's goroutine profile instead.
var ErrUnsupported = errors.New("labelsnap: the runtime's goroutine profile layout is not known for " + runtime.Version())

// Snapshot is what the goroutine profile says about labels.
type Snapshot struct {
	// Goroutines is how many goroutines the profile recorded (the calling
	// goroutine excluded).
	Goroutines int
	// Labelled is how many of them had pprof labels.
	Labelled int
	// Profile has one routine per distinct stack and label set, with its
	// count, as a goroutine profile read back with its labels; nil when
	// Labelled is 0 (no goroutine has labels: nothing to join).
	Profile *stack.Dump
}

// probeKey and probeValue label the calling goroutine during the walk:
// the runtime records it first, and reading its labels back checks the
// layout before any other goroutine's are read.
const (
	probeKey   = "stackdump_labelsnap_probe"
	probeValue = "layout"
)

// Take takes the runtime's goroutine profile with labels, interning the
// stacks of labelled goroutines (and of unlabelled ones on the same
// stacks) into t. It returns ErrUnsupported when the runtime's layout is
// not known; the runtime's walk is then not taken.
func Take(t *stack.Table) (*Snapshot, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	var recs []stackRecord
	var labels []unsafe.Pointer
	pprof.Do(context.Background(), pprof.Labels(probeKey, probeValue), func(context.Context) {
		recs, labels = fetch()
	})
	if len(recs) == 0 || !probeOK(labels[0]) {
		return nil, ErrUnsupported
	}
	recs, labels = recs[1:], labels[1:] // the calling goroutine
	s := &Snapshot{Goroutines: len(recs)}
	for _, l := range labels {
		if len(labelPairs(l)) > 0 {
			s.Labelled++
		}
	}
	if s.Labelled > 0 {
		s.Profile = group(recs, labels, t)
	}
	return s, nil
}

// probeOK reports whether the calling goroutine's label set reads back as
// the probe's.
func probeOK(p unsafe.Pointer) bool {
	ls := labelPairs(p)
	return len(ls) == 1 && ls[0].key == probeKey && ls[0].value == probeValue
}

// group counts the records by stack and label set and symbolizes each
// distinct stack once.
func group(recs []stackRecord, labels []unsafe.Pointer, t *stack.Table) *stack.Dump {
	type key struct {
		stack  string // the pcs' bytes
		labels int32  // index into sets
	}
	setOf := make(map[unsafe.Pointer]int32) // label set pointer → index into sets
	bySet := make(map[string]int32)         // label set content → index into sets
	sets := []stack.Labels{nil}             // 0: no labels
	counts := make(map[key]int64)
	var order []key
	var kb strings.Builder
	for i, r := range recs {
		set := int32(0)
		if p := labels[i]; p != nil {
			var ok bool
			if set, ok = setOf[p]; !ok {
				set = setIndex(labelPairs(p), bySet, &sets, &kb)
				setOf[p] = set
			}
		}
		k := key{stack: pcBytes(r.Stack), labels: set}
		n, seen := counts[k]
		if !seen {
			k.stack = strings.Clone(k.stack) // the map keeps it; the record's memory is not ours
			order = append(order, k)
		}
		counts[k] = n + 1
	}
	frames := make(map[string]*stack.Stack)
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoPprof}}
	for _, k := range order {
		s, ok := frames[k.stack]
		if !ok {
			s = symbolize(k.stack, t)
			frames[k.stack] = s
		}
		r := &stack.Routine{Count: counts[k], Stack: s, Labels: sets[k.labels]}
		if r.Labels != nil {
			r.Labels = t.Labels(r.Labels)
		}
		d.Routines = append(d.Routines, r)
		d.Total += r.Count
	}
	return d
}

// setIndex returns the index of a label set's content in sets, adding it.
func setIndex(ps []labelPair, bySet map[string]int32, sets *[]stack.Labels, kb *strings.Builder) int32 {
	if len(ps) == 0 {
		return 0
	}
	kb.Reset()
	for _, p := range ps {
		kb.WriteString(p.key)
		kb.WriteByte(0)
		kb.WriteString(p.value)
		kb.WriteByte(0)
	}
	if i, ok := bySet[kb.String()]; ok {
		return i
	}
	ls := make(stack.Labels, len(ps))
	for i, p := range ps {
		ls[i] = stack.Label{Key: p.key, Value: p.value}
	}
	ls.Sort()
	i := int32(len(*sets))
	*sets = append(*sets, ls)
	bySet[kb.String()] = i
	return i
}

// pcBytes returns the memory of pcs as a string, without copying.
func pcBytes(pcs []uintptr) string {
	if len(pcs) == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Pointer(&pcs[0])), len(pcs)*int(unsafe.Sizeof(pcs[0])))
}

// symbolize turns a stack's pcs (as pcBytes made them) into an interned
// stack, as runtime/pprof's profile names its frames (runtime.goexit
// left out).
func symbolize(b string, t *stack.Table) *stack.Stack {
	pcs := make([]uintptr, len(b)/int(unsafe.Sizeof(uintptr(0))))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(pcs))), len(b)), b)
	var fs []*stack.Frame
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function == "runtime.goexit" {
			break
		}
		if f.Function != "" || f.File != "" {
			fs = append(fs, t.Frame(stack.Frame{Func: f.Function, File: f.File, Line: f.Line}))
		}
		if !more {
			break
		}
	}
	return t.Stack(fs, stack.Elision{})
}
