package dumper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/stackdump/stackdump/stack"
)

// Go 1.26 prints pprof labels in goroutine headers only with
// GODEBUG=tracebacklabels=1. A runtime setting can be changed while the
// program runs (os.Setenv("GODEBUG") makes the runtime re-read it), so full
// mode turns it on for the one runtime.Stack call, unless the process's
// GODEBUG already says tracebacklabels=…: then the user chose, and
// tracebacklabels=0 is respected.
//
// Without printed labels, full mode joins the labels of the goroutine
// profile (which has them, per distinct stack and label set) to the
// traceback's routines by stack: the same function, file and line sequence
// once leading runtime frames are dropped. When one stack carries several
// label sets in the profile, which routine has which is unknowable: those
// routines get no labels and the dump a warning.

const probeLabel = "stackdump_probe"

// tracebackPrintsLabels reports whether runtime.Stack prints pprof labels
// in goroutine headers, by printing the current goroutine under a label.
// It costs a few microseconds and no stop-the-world.
func tracebackPrintsLabels() bool {
	var printed bool
	pprof.Do(context.Background(), pprof.Labels(probeLabel, "1"), func(context.Context) {
		var b [1024]byte
		n := runtime.Stack(b[:], false)
		head, _, _ := bytes.Cut(b[:n], []byte("\n"))
		printed = bytes.Contains(head, []byte(probeLabel))
	})
	return printed
}

// godebugEnvMu serialises the changes of GODEBUG made here, so that
// concurrent captures restore what they found.
var godebugEnvMu sync.Mutex

// withTracebackLabels runs f with the runtime printing pprof labels in
// goroutine headers, turning GODEBUG=tracebacklabels=1 on for the duration
// when the process's GODEBUG does not set it. It reports whether labels
// were printed.
func withTracebackLabels(f func()) bool {
	if tracebackPrintsLabels() {
		f()
		return true
	}
	godebugEnvMu.Lock()
	defer godebugEnvMu.Unlock()
	env, had := os.LookupEnv("GODEBUG")
	if godebugSets(env, "tracebacklabels") {
		f()
		return false
	}
	set := "tracebacklabels=1"
	if env != "" {
		set = env + "," + set
	}
	if err := os.Setenv("GODEBUG", set); err != nil {
		f()
		return false
	}
	defer func() {
		if had {
			os.Setenv("GODEBUG", env)
		} else {
			os.Unsetenv("GODEBUG")
		}
	}()
	printed := tracebackPrintsLabels() // false on a runtime without the setting
	f()
	return printed
}

// godebugSets reports whether a GODEBUG value sets key.
func godebugSets(env, key string) bool {
	for kv := range strings.SplitSeq(env, ",") {
		if k, _, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == key {
			return true
		}
	}
	return false
}

// labelIndex maps normalized stacks of a goroutine profile to their labels.
type labelIndex struct {
	stacks []profStack
	byKey  map[int]map[string]labelEntry // prefix length (0: whole stack) → key → entry
	any    bool                          // some stack has labels
}

type profStack struct {
	frames []*stack.Frame // normalized
	labels stack.Labels
}

// labelEntry is what the profile says about one stack: its label set, or
// that it has several.
type labelEntry struct {
	labels    stack.Labels
	ambiguous bool
}

// profileLabels takes a goroutine profile and indexes its labels.
func profileLabels() (*labelIndex, error) {
	t := stack.NewTable()
	d, err := readGoroutineProfile(context.Background(), t)
	if err != nil {
		return nil, err
	}
	return newLabelIndex(d), nil
}

// newLabelIndex indexes the labels of a goroutine profile's routines.
func newLabelIndex(d *stack.Dump) *labelIndex {
	ix := &labelIndex{byKey: make(map[int]map[string]labelEntry)}
	for _, r := range d.Routines {
		ix.stacks = append(ix.stacks, profStack{frames: normalizeFrames(r.Frames()), labels: r.Labels})
		if len(r.Labels) > 0 {
			ix.any = true
		}
	}
	return ix
}

// normalizeFrames drops leading runtime frames (gopark and friends, which
// the two sources print differently) and a trailing runtime.goexit.
func normalizeFrames(fs []*stack.Frame) []*stack.Frame {
	for len(fs) > 0 && fs[0].IsRuntime() {
		fs = fs[1:]
	}
	for len(fs) > 0 && fs[len(fs)-1].Func == "runtime.goexit" {
		fs = fs[:len(fs)-1]
	}
	return fs
}

// appendStackKey appends the function, file and line of frames to k.
func appendStackKey(k []byte, frames []*stack.Frame) []byte {
	for _, f := range frames {
		k = append(k, f.Func...)
		k = append(k, 0)
		k = append(k, f.File...)
		k = append(k, ':')
		k = strconv.AppendInt(k, int64(f.Line), 10)
		k = append(k, '\n')
	}
	return k
}

func labelsKey(ls stack.Labels) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(strconv.Quote(l.Key))
		b.WriteString(strconv.Quote(l.Value))
	}
	return b.String()
}

// index returns the entries by stack key, keyed on the first n normalized
// frames (the whole stack when n is 0). Built on first use for each n.
func (ix *labelIndex) index(n int) map[string]labelEntry {
	if m, ok := ix.byKey[n]; ok {
		return m
	}
	m := make(map[string]labelEntry)
	var k []byte
	for _, s := range ix.stacks {
		fs := s.frames
		if n > 0 {
			if len(fs) < n {
				continue
			}
			fs = fs[:n]
		}
		k = appendStackKey(k[:0], fs)
		e, seen := m[string(k)]
		switch {
		case !seen:
			m[string(k)] = labelEntry{labels: s.labels}
		case !e.ambiguous && labelsKey(e.labels) != labelsKey(s.labels):
			m[string(k)] = labelEntry{ambiguous: true}
		}
	}
	ix.byKey[n] = m
	return m
}

// lookup returns the profile's entry for a traceback stack. An elided
// stack (more than 100 frames) is matched on the frames before the elision.
func (ix *labelIndex) lookup(s *stack.Stack, k []byte) (labelEntry, bool, []byte) {
	frames := s.Frames
	n := 0
	if s.Elided {
		lead := len(frames) - len(normalizeFrames(frames))
		frames = frames[:s.ElidedAt]
		n = max(s.ElidedAt-lead, 1)
	}
	k = appendStackKey(k[:0], normalizeFrames(frames))
	e, ok := ix.index(n)[string(k)]
	return e, ok, k
}

// apply sets the labels of d's routines from the profile and returns a
// warning when some could not be told apart, or nil.
func (ix *labelIndex) apply(d *stack.Dump, t *stack.Table) *stack.ParseError {
	if !ix.any {
		return nil
	}
	type result struct {
		labels    stack.Labels
		ambiguous bool
	}
	byStack := make(map[*stack.Stack]result)
	var k []byte
	var skipped, stacks, firstLine int
	for _, r := range d.Routines {
		if r.Stack == nil || len(r.Labels) > 0 {
			continue
		}
		res, done := byStack[r.Stack]
		if !done {
			var e labelEntry
			var ok bool
			e, ok, k = ix.lookup(r.Stack, k)
			if ok {
				res = result{ambiguous: e.ambiguous}
				if len(e.labels) > 0 {
					res.labels = t.Labels(append(stack.Labels(nil), e.labels...))
				}
			}
			byStack[r.Stack] = res
			if res.ambiguous {
				stacks++
			}
		}
		if res.ambiguous {
			if skipped == 0 {
				firstLine = r.Line
			}
			skipped++
			continue
		}
		r.Labels = res.labels
	}
	if skipped == 0 {
		return nil
	}
	exact := "run with GODEBUG=tracebacklabels=1 for exact labels"
	if !runtimeGo126 {
		exact = "a process built with Go 1.26 or newer has exact labels"
	}
	return &stack.ParseError{
		Line: firstLine,
		Msg: fmt.Sprintf("pprof labels left off %d goroutines on %d stacks: the goroutine profile shows several label sets "+
			"for the same stack and the traceback does not say which goroutine has which (%s)", skipped, stacks, exact),
	}
}
