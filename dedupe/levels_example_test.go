package dedupe_test

import (
	"fmt"
	"os"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

// A real debug=2 dump of testdata/gen/groups (testdata/gen/README.md)
// grouped at each similarity level: ByExact tells goroutines apart by
// their arguments (main.waitArg(0x1), main.waitArg(0x2), …) and ByStack
// does not; the groups of ByStack are listed.
func ExampleGrouper() {
	for _, by := range dedupe.Levels() {
		f, err := os.Open("../testdata/groups/debug2_go126.txt")
		if err != nil {
			fmt.Println(err)
			return
		}
		rd := formats.NewReader(f, formats.ReadOptions{})
		if _, err := rd.Next(); err != nil {
			fmt.Println(err)
			f.Close()
			return
		}
		g := dedupe.NewGrouper(dedupe.Options{By: by})
		for r, err := range rd.Routines() {
			if err != nil {
				fmt.Println("warning:", err)
				continue
			}
			g.Add(r)
		}
		f.Close()
		groups := g.Groups()
		fmt.Printf("%s: %d goroutines in %d groups\n", by, g.Total(), len(groups))
		if by != dedupe.ByStack {
			continue
		}
		for _, grp := range groups {
			top := dedupe.TopFrame(grp.Sample.Stack)
			fmt.Printf("  %3d [%s] %s line %d\n", grp.Count, dedupe.MainState(grp), top.Func, top.Line)
		}
	}
	// Output:
	// exact: 27 goroutines in 17 groups
	// stack: 27 goroutines in 4 groups
	//    12 [chan receive] main.waitArg line 132
	//    11 [chan receive] main.process[...] line 140
	//     3 [chan receive] main.(*box[...]).wait line 146
	//     1 [running] runtime/pprof.writeGoroutineStacks line 819
	// func: 27 goroutines in 4 groups
}
