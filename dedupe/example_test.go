package dedupe_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// Two goroutine profiles (debug=1) of a service, a minute apart.
const (
	before = `goroutine profile: total 5
3 @ 0x43e2ce 0x4703c5 0x4a1b2c 0x471821
#	0x4a1b2b	main.worker+0x2b		/src/app/worker.go:42
#	0x4a1c10	main.main.func1+0x10		/src/app/main.go:17

2 @ 0x43e2ce 0x4a2007 0x471821
#	0x4a2006	main.serve+0x6		/src/app/serve.go:7
`
	after = `goroutine profile: total 43
40 @ 0x43e2ce 0x4703c5 0x4a1b2c 0x471821
#	0x4a1b2b	main.worker+0x2b		/src/app/worker.go:42
#	0x4a1c10	main.main.func1+0x10		/src/app/main.go:17

3 @ 0x43e2ce 0x4a3300 0x471821
#	0x4a32ff	main.flush+0x1f		/src/app/flush.go:12
`
)

func ExampleGroupNext() {
	rd := formats.NewReader(strings.NewReader(after), formats.ReadOptions{})
	_, groups, err := dedupe.GroupNext(rd, dedupe.Options{By: dedupe.ByStack}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range groups {
		top := dedupe.TopFrame(g.Sample.Stack)
		fmt.Printf("%d goroutines in %s at %s:%d\n", g.Count, top.Func, top.File, top.Line)
	}
	// Output:
	// 40 goroutines in main.worker at /src/app/worker.go:42
	// 3 goroutines in main.flush at /src/app/flush.go:12
}

func ExampleDiff() {
	group := func(profile string) []*stack.Group {
		_, groups, _ := dedupe.GroupNext(formats.NewReader(strings.NewReader(profile), formats.ReadOptions{}), dedupe.Options{}, nil)
		return groups
	}
	res := dedupe.Diff(group(before), group(after))
	for _, e := range res.GrownBy(10) {
		fmt.Printf("%s %+d (%.0f%%)\n", e.Change, e.Delta, e.Percent)
	}
	dedupe.WriteDiffText(os.Stdout, dedupe.DiffReport{
		Result: res,
		Old:    dedupe.DumpInfo{Name: "before.txt", Kind: stack.KindGoDebug1},
		New:    dedupe.DumpInfo{Name: "after.txt", Kind: stack.KindGoDebug1},
	})
	// Output:
	// grown +37 (1233%)
	// old  before.txt (go-debug1): 5 goroutines in 2 groups
	// new  after.txt (go-debug1): 43 goroutines in 2 groups
	// by stack: total +38 (+760.0%): 1 new, 1 gone, 1 grown, 0 shrunk, 0 unchanged
	//
	// CHANGE  OLD  NEW  DELTA         %  STATE  WHERE
	// grown     3   40    +37  +1233.3%  -      main.worker (worker.go:42)
	// new       0    3     +3         -  -      main.flush (flush.go:12)
	// gone      2    0     -2   -100.0%  -      main.serve (serve.go:7)
}
