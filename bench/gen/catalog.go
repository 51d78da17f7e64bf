package gen

import (
	"fmt"
	"slices"
)

// catalog is every scenario, ready for weighted picks.
type catalog struct {
	singles  []*scenario // in print order, the caller first
	weighted []*scenario
	cum      []float64 // cumulative weights of weighted
	index    map[*scenario]int
}

// theCatalog is built once; its scenarios are read-only afterwards.
var theCatalog = newCatalog()

func newCatalog() *catalog {
	c := &catalog{index: make(map[*scenario]int)}
	c.singles = slices.Clone(singletons)
	var total float64
	for _, list := range [][]*scenario{httpScenarios, workerScenarios, depScenarios, miscScenarios} {
		for _, s := range list {
			if s.weight <= 0 {
				panic(fmt.Sprintf("gen: weighted scenario %q has no weight", s.name))
			}
			total += s.weight
			c.weighted = append(c.weighted, s)
			c.cum = append(c.cum, total)
		}
	}
	for i, s := range append(slices.Clone(c.singles), c.weighted...) {
		if s.waits.share > 0 && (s.state == "running" || s.state == "runnable") {
			panic(fmt.Sprintf("gen: scenario %q: the runtime prints no wait minutes for %s goroutines", s.name, s.state))
		}
		if _, dup := c.index[s]; dup {
			panic(fmt.Sprintf("gen: scenario %q listed twice", s.name))
		}
		c.index[s] = i
	}
	return c
}

// pick returns the weighted scenario at u in [0, 1).
func (c *catalog) pick(u float64) *scenario {
	x := u * c.cum[len(c.cum)-1]
	i, _ := slices.BinarySearch(c.cum, x)
	if i == len(c.cum) {
		i--
	}
	return c.weighted[i]
}

// fixedCount is the number of singleton goroutines.
func (c *catalog) fixedCount() int {
	n := 0
	for _, s := range c.singles {
		n += s.fixed
	}
	return n
}
