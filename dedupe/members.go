package dedupe

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// group accumulates what a Grouper knows about the members of one group.
type group struct {
	key     keyHash
	count   int64
	ids     idSet
	parents idSet
	states  []stateCount // few per group: a linear scan beats a map
	waitMin int
	waitMax int
	locked  int64
	leaked  int64

	labels     map[string]*labelCount // by canonical key
	refs       []labelRefSlot         // by identity, while few
	refMap     map[labelsRef]*labelCount
	lastLabels labelsRef
	lastCount  *labelCount

	sample    stack.Routine // a copy: readers may reuse their routines
	hasSample bool
}

type stateCount struct {
	state string
	count int64
}

type labelRefSlot struct {
	ref labelsRef
	lc  *labelCount
}

type labelCount struct {
	labels stack.Labels
	key    string
	count  int64
}

// add counts r, which stands for r.Count routines (at least one).
func (a *group) add(g *Grouper, r *stack.Routine) {
	w := r.Count
	if w <= 0 {
		w = 1
	}
	g.total += w
	first := a.count == 0
	a.count += w
	a.ids.add(r.ID)
	a.parents.add(r.ParentID)
	if r.State != "" {
		a.addState(r.State, w)
	}
	if first || r.WaitMinutes < a.waitMin {
		a.waitMin = r.WaitMinutes
	}
	if r.WaitMinutes > a.waitMax {
		a.waitMax = r.WaitMinutes
	}
	if r.Locked {
		a.locked += w
	}
	if r.Leaked {
		a.leaked += w
	}
	if len(r.Labels) > 0 {
		a.addLabels(g, r.Labels, w)
	}
	if !a.hasSample || g.compareSample(r, &a.sample) < 0 {
		a.sample = *r.Clone() // r's values may be reused by a streaming reader
		a.hasSample = true
	}
}

func (a *group) addState(state string, w int64) {
	for i := range a.states {
		if a.states[i].state == state {
			a.states[i].count += w
			return
		}
	}
	a.states = append(a.states, stateCount{state, w})
}

func (a *group) addLabels(g *Grouper, ls stack.Labels, w int64) {
	ref := labelsRef{&ls[0], len(ls)}
	if ref == a.lastLabels {
		a.lastCount.count += w
		return
	}
	lc := a.labelsByRef(ref)
	if lc == nil {
		k := g.labelKey(ls)
		if lc = a.labels[k]; lc == nil {
			if a.labels == nil {
				a.labels = make(map[string]*labelCount)
			}
			lc = &labelCount{labels: ls, key: k}
			a.labels[k] = lc
		}
		a.rememberRef(ref, lc)
	}
	lc.count += w
	a.lastLabels, a.lastCount = ref, lc
}

// maxLabelRefScan is how many label sets a group looks up by a linear scan
// before it takes a map.
const maxLabelRefScan = 8

// labelsByRef finds a label set by identity, without hashing strings.
func (a *group) labelsByRef(ref labelsRef) *labelCount {
	if a.refMap != nil {
		return a.refMap[ref]
	}
	for _, r := range a.refs {
		if r.ref == ref {
			return r.lc
		}
	}
	return nil
}

func (a *group) rememberRef(ref labelsRef, lc *labelCount) {
	if a.refMap == nil && len(a.refs) < maxLabelRefScan {
		a.refs = append(a.refs, labelRefSlot{ref, lc})
		return
	}
	if a.refMap == nil {
		a.refMap = make(map[labelsRef]*labelCount)
		for _, r := range a.refs {
			a.refMap[r.ref] = r.lc
		}
		a.refs = nil
	}
	a.refMap[ref] = lc
}

// export builds the stack.Group of a.
func (a *group) export() *stack.Group {
	out := &stack.Group{
		Key:       a.key.String(),
		Count:     a.count,
		IDs:       a.ids.sorted(),
		MoreIDs:   a.ids.more,
		WaitMin:   a.waitMin,
		WaitMax:   a.waitMax,
		Locked:    a.locked,
		Leaked:    a.leaked,
		ParentIDs: a.parents.sorted(),
	}
	if len(a.states) > 0 {
		out.States = make(map[string]int64, len(a.states))
		for _, s := range a.states {
			out.States[s.state] = s.count
		}
	}
	if len(a.labels) > 0 {
		lcs := make([]*labelCount, 0, len(a.labels))
		for _, lc := range a.labels {
			lcs = append(lcs, lc)
		}
		slices.SortFunc(lcs, func(x, y *labelCount) int {
			if c := cmp.Compare(y.count, x.count); c != 0 {
				return c
			}
			return strings.Compare(x.key, y.key)
		})
		out.Labels = make([]stack.LabelCount, len(lcs))
		for i, lc := range lcs {
			out.Labels[i] = stack.LabelCount{Labels: lc.labels, Count: lc.count}
		}
	}
	sample := a.sample
	out.Sample = &sample
	return out
}

// compareSample orders candidate samples: the lowest non-zero id first,
// then (for inputs without ids) the largest count, then by content, then
// by input line, so that the sample does not depend on the order the
// routines were added in.
func (g *Grouper) compareSample(x, y *stack.Routine) int {
	if c := compareIDs(x.ID, y.ID); c != 0 {
		return c
	}
	if c := cmp.Compare(y.Count, x.Count); c != 0 {
		return c
	}
	if c := strings.Compare(x.State, y.State); c != 0 {
		return c
	}
	if c := cmp.Compare(x.WaitMinutes, y.WaitMinutes); c != 0 {
		return c
	}
	if c := compareBools(x.Locked, y.Locked); c != 0 {
		return c
	}
	if c := strings.Compare(g.labelKey(x.Labels), g.labelKey(y.Labels)); c != 0 {
		return c
	}
	if c := compareStacks(x.Stack, y.Stack); c != 0 {
		return c
	}
	if c := compareValues(x.Values, y.Values); c != 0 {
		return c
	}
	if c := compareFrames(x.CreatedBy, y.CreatedBy); c != 0 {
		return c
	}
	if c := cmp.Compare(x.ParentID, y.ParentID); c != 0 {
		return c
	}
	if c := strings.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	if x.Thread != nil && y.Thread != nil {
		if c := cmp.Compare(x.Thread.OSID, y.Thread.OSID); c != 0 {
			return c
		}
	}
	// Last resort for routines alike in all the above (JVM threads
	// without ids and with equal names): where they were in the input.
	return cmp.Compare(x.Line, y.Line)
}

// compareIDs puts non-zero ids first, in increasing order.
func compareIDs(x, y int64) int {
	switch {
	case x == y:
		return 0
	case x == 0:
		return 1
	case y == 0:
		return -1
	}
	return cmp.Compare(x, y)
}

func compareBools(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

func compareStacks(x, y *stack.Stack) int {
	if x == y {
		return 0
	}
	if x == nil || y == nil {
		return compareBools(x != nil, y != nil)
	}
	if c := slices.CompareFunc(x.Frames, y.Frames, compareFrames); c != 0 {
		return c
	}
	if c := compareBools(x.Elided, y.Elided); c != 0 {
		return c
	}
	if c := cmp.Compare(x.ElidedCount, y.ElidedCount); c != 0 {
		return c
	}
	return cmp.Compare(x.ElidedAt, y.ElidedAt)
}

func compareFrames(x, y *stack.Frame) int {
	if x == y {
		return 0
	}
	if x == nil || y == nil {
		return compareBools(x != nil, y != nil)
	}
	if c := strings.Compare(x.Func, y.Func); c != 0 {
		return c
	}
	if c := strings.Compare(x.File, y.File); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Line, y.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Offset, y.Offset); c != 0 {
		return c
	}
	if c := compareBools(x.HasOffset, y.HasOffset); c != 0 {
		return c
	}
	if c := compareBools(x.Inlined, y.Inlined); c != 0 {
		return c
	}
	return strings.Compare(x.Module, y.Module)
}

func compareValues(x, y *stack.FrameValues) int {
	if x == y {
		return 0
	}
	if x == nil || y == nil {
		return compareBools(x != nil, y != nil)
	}
	return slices.CompareFunc(x.Frames, y.Frames, func(a, b stack.FrameValue) int {
		return strings.Compare(a.Args, b.Args)
	})
}
