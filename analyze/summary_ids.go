package analyze

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// idIndex finds which group a goroutine id belongs to, from the ids the
// groups kept. A group keeps its smallest ids up to the dedupe cap
// (Group.MoreIDs counts the rest), so an id missing from the index is
// known to be absent from the dump only below the smallest "largest kept
// id" of the capped groups.
type idIndex struct {
	ids   []idEntry // sorted by id
	bound int64     // ids >= bound may be in a capped group unseen; 0: no cap
	// cut is set when the dump was truncated: an id not in it may be in
	// the part that was cut off, so it is unknown, not absent.
	cut    bool
	hasIDs bool
}

type idEntry struct {
	id    int64
	group *stack.Group
}

func newIDIndex(groups []*stack.Group) *idIndex {
	x := &idIndex{}
	n := 0
	for _, g := range groups {
		n += len(g.IDs)
	}
	x.ids = make([]idEntry, 0, n)
	for _, g := range groups {
		for _, id := range g.IDs {
			x.ids = append(x.ids, idEntry{id, g})
		}
		if g.MoreIDs > 0 && len(g.IDs) > 0 {
			top := g.IDs[len(g.IDs)-1]
			if x.bound == 0 || top < x.bound {
				x.bound = top
			}
		}
		if g.MoreIDs > 0 && len(g.IDs) == 0 {
			x.bound = 1 // nothing kept: nothing can be ruled out
		}
	}
	x.hasIDs = len(x.ids) > 0
	slices.SortFunc(x.ids, func(a, b idEntry) int { return cmp.Compare(a.id, b.id) })
	return x
}

// presence says whether a goroutine is in the dump.
type presence int

const (
	presenceUnknown presence = iota
	present
	absent
)

// find returns the group of goroutine id and whether it is in the dump.
func (x *idIndex) find(id int64) (*stack.Group, presence) {
	if !x.hasIDs || id <= 0 {
		return nil, presenceUnknown
	}
	i, ok := slices.BinarySearchFunc(x.ids, id, func(e idEntry, id int64) int { return cmp.Compare(e.id, id) })
	if ok {
		return x.ids[i].group, present
	}
	if x.bound != 0 && id > x.bound || x.cut {
		return nil, presenceUnknown
	}
	return nil, absent
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
