package dedupe

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// handlerOf returns the path index of a generated group, from its
// example.com/app.handlerN frame.
func handlerOf(t *testing.T, grp *stack.Group) int {
	t.Helper()
	for _, f := range grp.Sample.Frames() {
		if n, ok := strings.CutPrefix(f.Func, "example.com/app.handler"); ok {
			i := 0
			for _, c := range n {
				i = i*10 + int(c-'0')
			}
			return i
		}
	}
	t.Fatalf("group %s has no handler frame", grp.Key)
	return -1
}

func sumCounts(groups []*stack.Group) int64 {
	var n int64
	for _, g := range groups {
		n += g.Count
	}
	return n
}

func TestGroupByStackOneGroupPerCodePath(t *testing.T) {
	const k, n = 7, 3000
	g := newGen(1)
	paths := genPaths(k, 0)
	d, perPath := g.dump(paths, n)
	if _, stacks := g.t.Len(); stacks <= k {
		t.Fatalf("generator made only %d interned stacks; offsets should vary", stacks)
	}

	groups := Group(d, Options{})
	if len(groups) != k {
		t.Fatalf("got %d groups, want %d", len(groups), k)
	}
	if got := sumCounts(groups); got != d.Total {
		t.Errorf("group counts sum to %d, dump total is %d", got, d.Total)
	}
	seen := map[int]bool{}
	for i, grp := range groups {
		p := handlerOf(t, grp)
		if seen[p] {
			t.Errorf("path %d split over several groups", p)
		}
		seen[p] = true
		if grp.Count != perPath[p] {
			t.Errorf("group of path %d: count %d, want %d", p, grp.Count, perPath[p])
		}
		if int64(len(grp.IDs)) != grp.Count || grp.MoreIDs != 0 {
			t.Errorf("group of path %d: %d ids (+%d more) for %d members", p, len(grp.IDs), grp.MoreIDs, grp.Count)
		}
		if !slices.IsSorted(grp.IDs) {
			t.Errorf("group of path %d: ids not sorted", p)
		}
		if grp.Sample.ID != grp.IDs[0] {
			t.Errorf("group of path %d: sample id %d, want the lowest id %d", p, grp.Sample.ID, grp.IDs[0])
		}
		var states int64
		for _, c := range grp.States {
			states += c
		}
		if states != grp.Count {
			t.Errorf("group of path %d: states histogram sums to %d, want %d", p, states, grp.Count)
		}
		if !slices.Equal(grp.ParentIDs, []int64{1}) {
			t.Errorf("group of path %d: parent ids %v, want [1]", p, grp.ParentIDs)
		}
		if i > 0 {
			prev := groups[i-1]
			if prev.Count < grp.Count || prev.Count == grp.Count && prev.Key >= grp.Key {
				t.Errorf("groups %d and %d out of order: (%d, %s) before (%d, %s)", i-1, i, prev.Count, prev.Key, grp.Count, grp.Key)
			}
		}
	}
}

func TestGroupIDsAreAllRoutinesOnce(t *testing.T) {
	g := newGen(2)
	d, _ := g.dump(genPaths(5, 0), 500)
	var ids []int64
	for _, grp := range Group(d, Options{}) {
		ids = append(ids, grp.IDs...)
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("ids over all groups: position %d holds %d; want every id 1..%d once", i, id, len(d.Routines))
		}
	}
	if len(ids) != len(d.Routines) {
		t.Fatalf("%d ids listed for %d routines", len(ids), len(d.Routines))
	}
}

func TestGroupByFuncMergesShiftedBuilds(t *testing.T) {
	const k = 5
	g := newGen(3)
	before, perBefore := g.dump(genPaths(k, 0), 400)
	after, perAfter := g.dump(genPaths(k, 7), 300) // same code, lines moved
	both := &stack.Dump{Routines: append(slices.Clone(before.Routines), after.Routines...), Total: before.Total + after.Total}

	if got := len(Group(both, Options{By: ByStack})); got != 2*k {
		t.Errorf("ByStack: %d groups, want %d (lines differ between the builds)", got, 2*k)
	}
	groups := Group(both, Options{By: ByFunc})
	if len(groups) != k {
		t.Fatalf("ByFunc: %d groups, want %d", len(groups), k)
	}
	for _, grp := range groups {
		p := handlerOf(t, grp)
		if want := perBefore[p] + perAfter[p]; grp.Count != want {
			t.Errorf("ByFunc group of path %d: count %d, want %d", p, grp.Count, want)
		}
	}

	// Keys of each build alone match at ByFunc, not at ByStack.
	keys := func(d *stack.Dump, by By) []string {
		var ks []string
		for _, grp := range Group(d, Options{By: by}) {
			ks = append(ks, grp.Key)
		}
		slices.Sort(ks)
		return ks
	}
	if a, b := keys(before, ByFunc), keys(after, ByFunc); !slices.Equal(a, b) {
		t.Errorf("ByFunc keys differ between builds:\n%v\n%v", a, b)
	}
	if a, b := keys(before, ByStack), keys(after, ByStack); slices.ContainsFunc(a, func(k string) bool { return slices.Contains(b, k) }) {
		t.Errorf("ByStack keys of shifted builds should all differ:\n%v\n%v", a, b)
	}
}

func TestGroupByExactSplitsByArgsAndState(t *testing.T) {
	tab := stack.NewTable()
	f := frame(tab, "main.worker", "/src/main.go", 12)
	st := stackOf(tab, f)
	args := func(s string) *stack.FrameValues { return tab.Values([]stack.FrameValue{{Args: s}}) }
	rs := []*stack.Routine{
		{ID: 1, State: "chan receive", Stack: st, Values: args("0x1")},
		{ID: 2, State: "chan receive", Stack: st, Values: args("0x1")},
		{ID: 3, State: "chan receive", Stack: st, Values: args("0x2")},
		{ID: 4, State: "select", Stack: st, Values: args("0x1")},
		{ID: 5, State: "select", Stack: st, Values: args("0x1")},
	}
	d := &stack.Dump{Routines: rs, Total: int64(len(rs))}

	exact := Group(d, Options{By: ByExact})
	var got [][]int64
	for _, grp := range exact {
		got = append(got, grp.IDs)
		if len(grp.States) != 1 {
			t.Errorf("ByExact group %v has states %v; want one", grp.IDs, grp.States)
		}
	}
	// Groups of equal counts are ordered by key; compare as a set.
	slices.SortFunc(got, func(a, b []int64) int { return int(a[0] - b[0]) })
	want := [][]int64{{1, 2}, {3}, {4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ByExact groups %v, want %v", got, want)
	}

	stackGroups := Group(d, Options{By: ByStack})
	if len(stackGroups) != 1 {
		t.Fatalf("ByStack: %d groups, want 1", len(stackGroups))
	}
	if want := map[string]int64{"chan receive": 3, "select": 2}; !reflect.DeepEqual(stackGroups[0].States, want) {
		t.Errorf("ByStack states %v, want %v", stackGroups[0].States, want)
	}
}

func TestGroupExactSeesOffsetsAndRuntimeFrames(t *testing.T) {
	tab := stack.NewTable()
	user := func(off uint64) *stack.Frame {
		return tab.Frame(stack.Frame{Func: "main.worker", File: "/src/main.go", Line: 12, Offset: off, HasOffset: true})
	}
	park := frame(tab, "runtime.gopark", "/go/src/runtime/proc.go", 435)
	rs := []*stack.Routine{
		{ID: 1, Stack: stackOf(tab, user(0x10))},
		{ID: 2, Stack: stackOf(tab, user(0x14))},
		{ID: 3, Stack: stackOf(tab, park, user(0x10))},
	}
	d := &stack.Dump{Routines: rs, Total: 3}
	if n := len(Group(d, Options{By: ByExact})); n != 3 {
		t.Errorf("ByExact: %d groups, want 3", n)
	}
	if n := len(Group(d, Options{By: ByStack})); n != 1 {
		t.Errorf("ByStack: %d groups, want 1", n)
	}
}

func TestGroupCreatorOnlyWhenAsked(t *testing.T) {
	tab := stack.NewTable()
	st := stackOf(tab, frame(tab, "main.worker", "/src/main.go", 12))
	rs := []*stack.Routine{
		{ID: 1, Stack: st, CreatedBy: frame(tab, "main.main", "/src/main.go", 30), ParentID: 7},
		{ID: 2, Stack: st, CreatedBy: frame(tab, "main.start", "/src/main.go", 40), ParentID: 9},
		{ID: 3, Stack: st, CreatedBy: frame(tab, "main.start", "/src/main.go", 40), ParentID: 9},
	}
	d := &stack.Dump{Routines: rs, Total: 3}
	one := Group(d, Options{})
	if len(one) != 1 || !slices.Equal(one[0].ParentIDs, []int64{7, 9}) {
		t.Fatalf("default: %d groups, parents %v; want 1 group with parents [7 9]", len(one), one[0].ParentIDs)
	}
	split := Group(d, Options{SplitByCreator: true})
	if len(split) != 2 || split[0].Count != 2 || split[0].Sample.CreatedBy.Func != "main.start" {
		t.Errorf("SplitByCreator: want a group of 2 created by main.start and one of 1, got %d groups", len(split))
	}
}

func TestGroupWeighsGroupedInputs(t *testing.T) {
	// debug=1 and pprof records: no ids, a count each, labels.
	tab := stack.NewTable()
	st := stackOf(tab, frame(tab, "time.Sleep", "/go/src/runtime/time.go", 188), frame(tab, "main.sleepLoop", "/src/main.go", 171))
	web := tab.Labels(stack.Labels{{Key: "svc", Value: "web"}})
	db := tab.Labels(stack.Labels{{Key: "svc", Value: "db"}})
	rs := []*stack.Routine{
		{Count: 40, Stack: st, Labels: web},
		{Count: 2, Stack: st, Labels: db},
		{Count: 5, Stack: st},
		{Count: 3, Stack: st, Labels: db, Locked: true},
	}
	d := &stack.Dump{Routines: rs, Total: 50}
	groups := Group(d, Options{})
	if len(groups) != 1 {
		t.Fatalf("%d groups, want 1", len(groups))
	}
	grp := groups[0]
	if grp.Count != 50 || len(grp.IDs) != 0 || grp.MoreIDs != 0 || grp.Locked != 3 {
		t.Errorf("count %d, ids %v (+%d), locked %d; want 50, none, 3", grp.Count, grp.IDs, grp.MoreIDs, grp.Locked)
	}
	want := []stack.LabelCount{{Labels: web, Count: 40}, {Labels: db, Count: 5}}
	if !reflect.DeepEqual(grp.Labels, want) {
		t.Errorf("labels %v, want %v", grp.Labels, want)
	}
	if grp.Sample.Count != 40 {
		t.Errorf("sample is the record of count %d; want the largest (40)", grp.Sample.Count)
	}
}

func TestGroupLabelsMatchAcrossTables(t *testing.T) {
	// Label sets equal in content but interned by different tables (two
	// readers) are one label set.
	t1, t2 := stack.NewTable(), stack.NewTable()
	st := stackOf(t1, frame(t1, "main.f", "/src/main.go", 1))
	rs := []*stack.Routine{
		{ID: 1, Stack: st, Labels: t1.Labels(stack.Labels{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}})},
		{ID: 2, Stack: st, Labels: t2.Labels(stack.Labels{{Key: "b", Value: "2"}, {Key: "a", Value: "1"}})},
	}
	groups := Group(&stack.Dump{Routines: rs}, Options{})
	if len(groups[0].Labels) != 1 || groups[0].Labels[0].Count != 2 {
		t.Errorf("labels %v; want one set counted twice", groups[0].Labels)
	}
}

func TestGroupWaitRange(t *testing.T) {
	tab := stack.NewTable()
	st := stackOf(tab, frame(tab, "main.f", "/src/main.go", 1))
	var rs []*stack.Routine
	for i, w := range []int{7, 3, 12, 5} {
		rs = append(rs, &stack.Routine{ID: int64(i + 1), Stack: st, WaitMinutes: w})
	}
	grp := Group(&stack.Dump{Routines: rs}, Options{})[0]
	if grp.WaitMin != 3 || grp.WaitMax != 12 {
		t.Errorf("wait range %d..%d, want 3..12", grp.WaitMin, grp.WaitMax)
	}
}

func TestGroupIDsCap(t *testing.T) {
	tab := stack.NewTable()
	st := stackOf(tab, frame(tab, "main.f", "/src/main.go", 1))
	const n, max = 1000, 10
	var rs []*stack.Routine
	for _, id := range rand.New(rand.NewPCG(4, 4)).Perm(n) {
		rs = append(rs, &stack.Routine{ID: int64(id + 1), ParentID: int64(id%50 + 1), Stack: st})
	}
	d := &stack.Dump{Routines: rs, Total: n}

	grp := Group(d, Options{MaxIDs: max})[0]
	wantIDs := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if !slices.Equal(grp.IDs, wantIDs) || grp.MoreIDs != n-max {
		t.Errorf("ids %v (+%d more), want %v (+%d more)", grp.IDs, grp.MoreIDs, wantIDs, n-max)
	}
	if !slices.Equal(grp.ParentIDs, wantIDs) {
		t.Errorf("parent ids %v, want the %d smallest distinct: %v", grp.ParentIDs, max, wantIDs)
	}

	all := Group(d, Options{MaxIDs: -1})[0]
	if len(all.IDs) != n || all.MoreIDs != 0 || len(all.ParentIDs) != 50 {
		t.Errorf("no cap: %d ids (+%d), %d parents; want %d, 0, 50", len(all.IDs), all.MoreIDs, len(all.ParentIDs), n)
	}
	def := Group(d, Options{})[0]
	if len(def.IDs) != n {
		t.Errorf("default cap %d: %d ids listed of %d", DefaultMaxIDs, len(def.IDs), n)
	}
}

func TestGroupOrderIndependent(t *testing.T) {
	for _, by := range Levels() {
		t.Run(by.String(), func(t *testing.T) {
			g := newGen(5)
			d, _ := g.dump(genPaths(9, 0), 2000)
			// Some records without ids and with counts, and label sets.
			labels := []stack.Labels{nil, g.t.Labels(stack.Labels{{Key: "k", Value: "a"}}), g.t.Labels(stack.Labels{{Key: "k", Value: "b"}})}
			for i, r := range d.Routines {
				r.Labels = labels[i%3]
				if i%10 == 0 {
					r.ID, r.Count = 0, int64(i%7+1)
				}
			}
			opts := Options{By: by, MaxIDs: 50}
			want := Group(d, opts)
			rnd := rand.New(rand.NewPCG(6, uint64(by)))
			for range 5 {
				shuffled := slices.Clone(d.Routines)
				rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				got := Group(&stack.Dump{Routines: shuffled}, opts)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("grouping a shuffled dump gave different groups")
				}
			}
		})
	}
}

func TestGroupsCanBeTakenTwice(t *testing.T) {
	g := newGen(7)
	d, _ := g.dump(genPaths(3, 0), 100)
	gr := NewGrouper(Options{})
	for _, r := range d.Routines[:50] {
		gr.Add(r)
	}
	first := gr.Groups()
	for _, r := range d.Routines[50:] {
		gr.Add(r)
	}
	if got := sumCounts(first); got != 50 {
		t.Errorf("first snapshot counts %d, want 50", got)
	}
	if got := sumCounts(gr.Groups()); got != 100 || gr.Total() != 100 {
		t.Errorf("final counts %d (Total %d), want 100", got, gr.Total())
	}
	if !reflect.DeepEqual(gr.Groups(), Group(d, Options{})) {
		t.Errorf("incremental grouping differs from grouping at once")
	}
}

func TestGrouperKeepsNoReferenceToRoutines(t *testing.T) {
	tab := stack.NewTable()
	st := stackOf(tab, frame(tab, "main.f", "/src/main.go", 1))
	r := &stack.Routine{ID: 3, State: "select", Stack: st}
	gr := NewGrouper(Options{})
	gr.Add(r)
	r.ID, r.State = 99, "reused" // a reader reusing its routine
	if s := gr.Groups()[0].Sample; s.ID != 3 || s.State != "select" {
		t.Errorf("sample changed with the added routine: id %d state %q", s.ID, s.State)
	}
}

func TestGroupNeverPanicsOnOddModels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(8, 8))
	tab := stack.NewTable()
	funcs := []string{"", "runtime.gopark", "runtime.goexit", "main.f", "panic", "jdk.internal.misc.Unsafe.park", "a/b.(*T).M", "x\x00y\n"}
	randFrame := func() *stack.Frame {
		if rnd.IntN(10) == 0 {
			return nil
		}
		return tab.Frame(stack.Frame{Func: funcs[rnd.IntN(len(funcs))], File: "f.go", Line: rnd.IntN(3) - 1, Offset: uint64(rnd.IntN(3)), HasOffset: rnd.IntN(2) == 0})
	}
	for range 200 {
		var rs []*stack.Routine
		for range rnd.IntN(30) {
			var frames []*stack.Frame
			for range rnd.IntN(6) {
				if f := randFrame(); f != nil {
					frames = append(frames, f)
				}
			}
			r := &stack.Routine{
				ID:          rnd.Int64N(5) - 1,
				Count:       rnd.Int64N(4) - 1,
				State:       genStates[rnd.IntN(len(genStates))],
				WaitMinutes: rnd.IntN(3),
				ParentID:    rnd.Int64N(3),
				CreatedBy:   randFrame(),
			}
			switch rnd.IntN(4) {
			case 0: // nil stack
			case 1:
				r.Stack = &stack.Stack{Frames: frames, Elided: true, ElidedAt: rnd.IntN(8) - 1, ElidedCount: rnd.IntN(5)}
			default:
				r.Stack = tab.Stack(frames, stack.Elision{})
			}
			if rnd.IntN(3) == 0 {
				vs := make([]stack.FrameValue, rnd.IntN(8))
				for i := range vs {
					vs[i].Args = funcs[rnd.IntN(len(funcs))]
				}
				r.Values = &stack.FrameValues{Frames: vs}
			}
			if rnd.IntN(3) == 0 {
				r.Labels = stack.Labels{{Key: funcs[rnd.IntN(len(funcs))], Value: "v"}}
			}
			rs = append(rs, r)
		}
		for _, by := range Levels() {
			for _, split := range []bool{false, true} {
				groups := Group(&stack.Dump{Routines: rs}, Options{By: by, SplitByCreator: split, MaxIDs: rnd.IntN(4) - 1})
				var want int64
				for _, r := range rs {
					want += max(r.Count, 1)
				}
				if got := sumCounts(groups); got != want {
					t.Fatalf("%s: counts sum to %d, want %d", by, got, want)
				}
			}
		}
	}
}

// Stacks of two Tables (two readers) can share a Stack.ID: the cache must
// not mistake one for the other, and equal stacks must still meet.
func TestGroupStacksOfTwoTables(t *testing.T) {
	t1, t2 := stack.NewTable(), stack.NewTable()
	a1 := stackOf(t1, frame(t1, "main.a", "/src/x.go", 1))
	b2 := stackOf(t2, frame(t2, "main.b", "/src/x.go", 2)) // ID 1, like a1
	a2 := stackOf(t2, frame(t2, "main.a", "/src/x.go", 1)) // equal to a1
	if a1.ID != b2.ID {
		t.Fatalf("test needs equal ids: %d, %d", a1.ID, b2.ID)
	}
	for _, by := range Levels() {
		rs := []*stack.Routine{{ID: 1, Stack: a1}, {ID: 2, Stack: b2}, {ID: 3, Stack: a2}, {ID: 4, Stack: a1}, {ID: 5, Stack: b2}}
		groups := Group(&stack.Dump{Routines: rs}, Options{By: by})
		if len(groups) != 2 || !slices.Equal(groups[0].IDs, []int64{1, 3, 4}) || !slices.Equal(groups[1].IDs, []int64{2, 5}) {
			var got [][]int64
			for _, g := range groups {
				got = append(got, g.IDs)
			}
			t.Errorf("%s: groups %v, want [[1 3 4] [2 5]]", by, got)
		}
	}
}

// The three goroutines of the package doc: 3, 2 and 1 groups.
func TestDocExampleLevels(t *testing.T) {
	tab := stack.NewTable()
	worker := func(line int, off uint64) *stack.Stack {
		return stackOf(tab, tab.Frame(stack.Frame{Func: "main.worker", File: "/src/app/worker.go", Line: line, Offset: off, HasOffset: true}))
	}
	creator := tab.Frame(stack.Frame{Func: "main.main", File: "/src/app/main.go", Line: 16, Offset: 0x2f, HasOffset: true})
	args := func(a string) *stack.FrameValues { return tab.Values([]stack.FrameValue{{Args: a}}) }
	rs := []*stack.Routine{
		{ID: 7, State: "chan receive", Stack: worker(42, 0x1c), Values: args("0xc000010000"), CreatedBy: creator, ParentID: 1},
		{ID: 8, State: "select", Stack: worker(42, 0x24), Values: args("0xc000010090"), CreatedBy: creator, ParentID: 1},
		{ID: 9, State: "chan receive", Stack: worker(45, 0x1c), Values: args("0xc000010000"), CreatedBy: creator, ParentID: 1},
	}
	for by, want := range map[By]int{ByExact: 3, ByStack: 2, ByFunc: 1} {
		if got := len(Group(&stack.Dump{Routines: rs}, Options{By: by})); got != want {
			t.Errorf("%s: %d groups, want %d", by, got, want)
		}
	}
}
