package report

import (
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestCreatorGroups(t *testing.T) {
	b := newDump(stack.KindGoTraceback, "")
	main := b.stack("sync.(*WaitGroup).Wait@/go/src/sync/waitgroup.go:118", "main.main@/app/main.go:30")
	b.add(1, 1, stack.Routine{State: "semacquire", Stack: main})
	// Workers started by goroutine 1, which is still there.
	b.add(10, 5, stack.Routine{State: "chan receive", Stack: b.stack("main.worker@/app/worker.go:12"),
		CreatedBy: b.frame("main.main@/app/main.go:21"), ParentID: 1})
	// The spawner that started the children has exited (goroutine 99), but
	// another goroutine runs the spawner's function.
	b.add(20, 2, stack.Routine{State: "select", Stack: b.stack("main.spawn@/app/spawn.go:7", "main.loop@/app/spawn.go:3")})
	b.add(30, 3, stack.Routine{State: "sleep", Stack: b.stack("main.child@/app/child.go:5"),
		CreatedBy: b.frame("main.spawn@/app/spawn.go:9"), ParentID: 99})
	// Started by workers 10 and 11: both in one group, linked once.
	b.add(40, 2, stack.Routine{State: "IO wait", Stack: b.stack("main.fetch@/app/fetch.go:40"),
		CreatedBy: b.frame("main.worker@/app/worker.go:15"), ParentID: 10})
	b.dump.Routines[len(b.dump.Routines)-1].ParentID = 11

	groups := groupsOf(b.dump)
	doc := pageData(t, writeReport(t, []Input{{Dump: b.dump, Groups: groups}}, Options{}))
	in := doc.Inputs[0]
	index := func(fn string) int {
		for i, g := range in.Groups {
			for _, f := range g.Stack {
				if doc.Strings[doc.Frames[f][0]] == fn {
					return i
				}
			}
		}
		t.Fatalf("no group runs %s", fn)
		return -1
	}
	mainG, workers, spawner, children, fetchers := index("main.main"), index("main.worker"), index("main.spawn"), index("main.child"), index("main.fetch")
	for _, c := range []struct {
		name              string
		group             int
		parents, creators []int
	}{
		{"main", mainG, nil, nil},
		{"workers", workers, []int{mainG}, nil},
		{"spawner", spawner, nil, nil},
		{"children", children, nil, []int{spawner}},
		{"fetchers", fetchers, []int{workers}, nil},
	} {
		g := in.Groups[c.group]
		if !slices.Equal(g.ParentGroups, c.parents) || !slices.Equal(g.CreatorGroups, c.creators) {
			t.Errorf("%s: parent groups %v, creator groups %v; want %v, %v", c.name, g.ParentGroups, g.CreatorGroups, c.parents, c.creators)
		}
	}
	if p := in.Groups[fetchers].Parents; !slices.Equal(p, []int64{10, 11}) {
		t.Errorf("fetchers' parents %v", p)
	}
}
