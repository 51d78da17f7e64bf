package report

import (
	"slices"

	"github.com/stackdump/stackdump/stack"
)

// maxCreatorLinks caps the creator groups linked from one group.
const maxCreatorLinks = 8

// creatorLinks are the groups a group's members were started from.
type creatorLinks struct {
	parents  []int // groups holding a creating goroutine, by id
	creators []int // when no parent was found: groups running the creator function
}

// findCreatorGroups links every group to the groups of its creators. The
// creating goroutines are looked up by id among the groups' member ids;
// when none of them is in the dump any more (or the input has no ids), the
// groups whose stacks run the creator function stand in for them.
func findCreatorGroups(groups []*stack.Group) []creatorLinks {
	links := make([]creatorLinks, len(groups))
	var byID map[int64]int
	var byFunc map[string][]int
	for gi, g := range groups {
		if len(g.ParentIDs) > 0 && !(len(g.ParentIDs) == 1 && g.ParentIDs[0] == 0) {
			if byID == nil {
				byID = indexIDs(groups)
			}
			for _, p := range g.ParentIDs {
				if pg, ok := byID[p]; ok && !slices.Contains(links[gi].parents, pg) {
					links[gi].parents = append(links[gi].parents, pg)
					if len(links[gi].parents) == maxCreatorLinks {
						break
					}
				}
			}
		}
		if len(links[gi].parents) > 0 || g.Sample == nil || g.Sample.CreatedBy == nil {
			continue
		}
		if byFunc == nil {
			byFunc = indexFuncs(groups)
		}
		for _, cg := range byFunc[g.Sample.CreatedBy.Func] {
			if cg != gi {
				links[gi].creators = append(links[gi].creators, cg)
				if len(links[gi].creators) == maxCreatorLinks {
					break
				}
			}
		}
	}
	for i := range links {
		slices.Sort(links[i].parents)
	}
	return links
}

// indexIDs maps every listed member id to its group.
func indexIDs(groups []*stack.Group) map[int64]int {
	m := make(map[int64]int)
	for gi, g := range groups {
		for _, id := range g.IDs {
			if id != 0 {
				m[id] = gi
			}
		}
	}
	return m
}

// indexFuncs maps every function to the groups whose sample stack runs
// it, largest group first (groups come largest first).
func indexFuncs(groups []*stack.Group) map[string][]int {
	m := make(map[string][]int)
	for gi, g := range groups {
		if g.Sample == nil || g.Sample.Stack == nil {
			continue
		}
		for _, f := range g.Sample.Stack.Frames {
			if l := m[f.Func]; len(l) == 0 || l[len(l)-1] != gi {
				m[f.Func] = append(l, gi)
			}
		}
	}
	return m
}
