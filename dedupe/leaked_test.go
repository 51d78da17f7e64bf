package dedupe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// Groups count the members the runtime proved leaked: Go 1.27.3's leak
// profile of testdata/gen/leakproof, 200 handlers and 60 fan-out workers
// marked (leaked), 120 subscribers not.
func TestGroupCountsLeaked(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "go", "leakproof_go127.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, groups, err := GroupNext(formats.NewReader(f, formats.ReadOptions{}), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	leaked := map[string]int64{}
	var total int64
	for _, g := range groups {
		leaked[TopFrame(g.Sample.Stack).Func] = g.Leaked
		total += g.Leaked
	}
	if total != 260 || leaked["main.handle"] != 200 || leaked["main.fanOutWorker"] != 60 || leaked["main.subscribe.func1"] != 0 {
		t.Errorf("leaked per group %v, total %d; want 200 handlers, 60 workers, 260 in all", leaked, total)
	}
}
