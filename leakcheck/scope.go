package leakcheck

// A scope limits a check to the goroutines one goroutine started, for
// OnlyOwnGoroutines: `defer leakcheck.VerifyNone(t, OnlyOwnGoroutines())`
// inside t.Run does not report what the parent test or a parallel sibling
// keeps running. It is not the default, because it misses leaks the
// whole-process check (goleak's) reports; see OnlyOwnGoroutines.
//
// Go keeps no ancestry beyond one level, so membership is read from the
// snapshot itself: a goroutine belongs to the scope when its chain of
// creators ("created by F in goroutine N"), followed through goroutines
// that are still alive, reaches the root (the goroutine that runs the
// check). A chain that reaches any other live goroutine with no creator
// (the test binary's main goroutine, through the parent test) is outside.
// A chain that breaks, because a creator has exited, ends at an orphan,
// which is left out: goroutine ids are not handed out in start order (each
// P takes a batch of 16, so a goroutine started after the subtest began
// can have a smaller id than its goroutine), so nothing tells whether the
// orphan is the subtest's or its parent's. A goroutine started on the
// root's behalf by one outside it (a worker of the parent test) is outside
// too. VerifyTestMain and the default check see both.
type scope struct {
	root int64 // the subtest's goroutine
}

// membership answers, for the goroutines of one snapshot, whether each
// belongs to the scope.
type membership struct {
	root    int64
	parents map[int64]int64 // every live goroutine's creator (0: none)
	memo    map[int64]bool
}

func (sc *scope) membership(s *snapshot) *membership {
	m := &membership{root: sc.root, parents: make(map[int64]int64, len(s.gs)), memo: map[int64]bool{}}
	for _, g := range s.gs {
		m.parents[g.id] = parentID(s.block(g))
	}
	return m
}

// has reports whether goroutine id belongs to the scope.
func (m *membership) has(id int64) bool {
	var path []int64
	cur := id
	result := false
	for steps := 0; steps <= len(m.parents); steps++ {
		if cur == m.root {
			result = true
			break
		}
		if v, ok := m.memo[cur]; ok {
			result = v
			break
		}
		path = append(path, cur)
		p, alive := m.parents[cur]
		if !alive {
			break // not in the snapshot: cannot say, so not ours
		}
		if p == 0 {
			break // no creator: main or the runtime's
		}
		if _, parentAlive := m.parents[p]; !parentAlive && p != m.root {
			result = false // an orphan: whose, nothing tells
			break
		}
		cur = p
	}
	for _, g := range path {
		m.memo[g] = result
	}
	return result
}
