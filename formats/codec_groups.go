package formats

import "sort"

func groupsTotal(groups []*Group) int64 {
	var n int64
	for _, g := range groups {
		n += g.Count
	}
	return n
}

// groupStateCount is one entry of a group's state histogram.
type groupStateCount struct {
	state string
	n     int64
}

// groupStates returns a group's states, most common first, then by name.
func groupStates(g *Group) []groupStateCount {
	sc := make([]groupStateCount, 0, len(g.States))
	for s, n := range g.States {
		sc = append(sc, groupStateCount{s, n})
	}
	sort.Slice(sc, func(i, j int) bool {
		if sc[i].n != sc[j].n {
			return sc[i].n > sc[j].n
		}
		return sc[i].state < sc[j].state
	})
	return sc
}
