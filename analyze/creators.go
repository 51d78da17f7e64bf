package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// The creator tree: every goroutine's header trailer `created by F in
// goroutine N` names the go statement that started it (F, with its file
// and line) and, since Go 1.21, the parent goroutine N. Counting the live
// goroutines per go statement and per parent shows who spawned most, and
// what the spawned goroutines are doing now (their top frames). A parent
// that is no longer in the dump has exited; its children outlived it.

// maxChildren is how many child frames a Creator row lists, and
// maxCreatorParents how many distinct parents a creator counts.
const (
	maxChildren       = 3
	maxCreatorParents = 10_000
)

// Creator is a go statement and the live goroutines it started.
type Creator struct {
	// Frame is the function holding the go statement, at its line.
	Frame FrameRef `json:"frame"`
	Count int64    `json:"count"`
	// Parents counts the distinct goroutines that ran the go statement
	// (0 when the input does not say, before Go 1.21), up to 10000.
	Parents int `json:"parents"`
	// Children are what its goroutines do now: the functions of their
	// places (Frame holds only Func), most first.
	Children []FrameCount `json:"children"`
}

// FrameCount is a number of goroutines at one frame.
type FrameCount struct {
	Frame FrameRef `json:"frame"`
	Count int64    `json:"count"`
}

// Parent is a goroutine that started live goroutines.
type Parent struct {
	ID       int64 `json:"id"`
	Children int64 `json:"children"`
	// Status is "alive" when the parent is in the dump, "exited" when it is
	// known not to be, "unknown" when the dump's ids cannot tell.
	Status string `json:"status"`
	// State and Frame say what an alive parent is doing.
	State string    `json:"state,omitempty"`
	Frame *FrameRef `json:"frame,omitempty"`
	// CreatedBy is the go statement that started more than half of the
	// children, when one did (otherwise one of them).
	CreatedBy *FrameRef `json:"created_by,omitempty"`
}

// creatorIndex counts routines per creator frame and per parent id.
type creatorIndex struct {
	byFrame   map[*stack.Frame]*creatorStats
	parents   map[int64]*parentStats
	maxParent int
	uncounted int64
	places    placeCache // the place of each stack met
}

type creatorStats struct {
	frame    *stack.Frame
	count    int64
	children map[string]int64 // by the function of the child's place
	parents  map[int64]struct{}
}

type parentStats struct {
	count int64
	// creator is the majority go statement of the children (Boyer–Moore
	// vote: the one with more than half of them, when there is one).
	creator *stack.Frame
	votes   int64
}

func (p *parentStats) vote(f *stack.Frame, n int64) {
	switch {
	case f == p.creator:
		p.votes += n
	case p.votes >= n:
		p.votes -= n
	default:
		p.creator, p.votes = f, n-p.votes
	}
}

func newCreatorIndex(maxParents int) creatorIndex {
	return creatorIndex{
		byFrame:   make(map[*stack.Frame]*creatorStats),
		parents:   make(map[int64]*parentStats),
		maxParent: maxParents,
		places:    placeCache{},
	}
}

func (x *creatorIndex) add(r *stack.Routine) {
	if r.CreatedBy == nil {
		return
	}
	n := weight(r)
	c := x.byFrame[r.CreatedBy]
	if c == nil {
		c = &creatorStats{frame: r.CreatedBy, children: make(map[string]int64)}
		x.byFrame[r.CreatedBy] = c
	}
	c.count += n
	fn := "(no frames)"
	if f := x.places.of(r.Stack).Frame; f != nil {
		fn = f.Func
	}
	c.children[fn] += n
	if r.ParentID == 0 {
		return
	}
	p := x.parents[r.ParentID]
	if p == nil {
		if len(x.parents) >= x.maxParent {
			x.uncounted += n
			return
		}
		p = &parentStats{}
		x.parents[r.ParentID] = p
	}
	p.count += n
	p.vote(r.CreatedBy, n)
	if len(c.parents) < maxCreatorParents {
		if c.parents == nil {
			c.parents = make(map[int64]struct{})
		}
		c.parents[r.ParentID] = struct{}{}
	}
}

// topCreators returns the n creators with the most live goroutines.
func (x *creatorIndex) topCreators(n int) []Creator {
	all := make([]*creatorStats, 0, len(x.byFrame))
	for _, c := range x.byFrame {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b *creatorStats) int {
		return cmp.Or(cmp.Compare(b.count, a.count), compareFrames(a.frame, b.frame))
	})
	out := make([]Creator, 0, min(n, len(all)))
	for _, c := range all[:min(n, len(all))] {
		out = append(out, Creator{Frame: *frameRef(c.frame), Count: c.count, Parents: len(c.parents), Children: topChildren(c.children)})
	}
	return out
}

func topChildren(children map[string]int64) []FrameCount {
	out := make([]FrameCount, 0, len(children))
	for fn, n := range children {
		out = append(out, FrameCount{Frame: FrameRef{Func: fn}, Count: n})
	}
	slices.SortFunc(out, func(a, b FrameCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), compareRefs(&a.Frame, &b.Frame))
	})
	return out[:min(len(out), maxChildren)]
}

// topParents returns the n parents with the most live children, with what
// each is doing now when it is in the dump, and how many children were
// not counted by parent.
func (x *creatorIndex) topParents(n int, ids *idIndex) ([]Parent, int64) {
	all := make([]Parent, 0, len(x.parents))
	for id, p := range x.parents {
		all = append(all, Parent{ID: id, Children: p.count, CreatedBy: frameRef(p.creator)})
	}
	slices.SortFunc(all, func(a, b Parent) int {
		return cmp.Or(cmp.Compare(b.Children, a.Children), cmp.Compare(a.ID, b.ID))
	})
	all = all[:min(n, len(all))]
	for i := range all {
		p := &all[i]
		g, where := ids.find(p.ID)
		switch where {
		case present:
			p.Status = "alive"
			p.State = dedupe.MainState(g)
			if g.Sample != nil {
				p.Frame = frameRef(whereFrame(g.Sample.Stack))
			}
		case absent:
			p.Status = "exited"
		default:
			p.Status = "unknown"
		}
	}
	return all, x.uncounted
}

func compareFrames(a, b *stack.Frame) int {
	return cmp.Or(strings.Compare(a.Func, b.Func), strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
}
