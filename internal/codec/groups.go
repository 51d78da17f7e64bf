package codec

import (
	"sort"

	"github.com/stackdump/stackdump/stack"
)

// GroupsTotal returns the sum of the groups' counts.
func GroupsTotal(groups []*stack.Group) int64 {
	var n int64
	for _, g := range groups {
		n += g.Count
	}
	return n
}

// StateCount is one entry of a group's state histogram.
type StateCount struct {
	State string
	N     int64
}

// GroupStates returns a group's states, most common first, then by name.
func GroupStates(g *stack.Group) []StateCount {
	sc := make([]StateCount, 0, len(g.States))
	for s, n := range g.States {
		sc = append(sc, StateCount{s, n})
	}
	sort.Slice(sc, func(i, j int) bool {
		if sc[i].N != sc[j].N {
			return sc[i].N > sc[j].N
		}
		return sc[i].State < sc[j].State
	})
	return sc
}
