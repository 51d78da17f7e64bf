package dedupe

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// readGenerated reads a dump that testdata/gen/groups wrote (see
// testdata/gen/README.md).
func readGenerated(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "groups", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// waitArgGroups returns the counts of the groups whose top frame is
// main.waitArg, largest first, and their arguments there.
func waitArgGroups(groups []*stack.Group) (counts []int64, args []string) {
	for _, g := range groups {
		if top := TopFrame(g.Sample.Stack); top != nil && top.Func == "main.waitArg" {
			counts = append(counts, g.Count)
			args = append(args, g.Sample.Arg(0))
		}
	}
	slices.Sort(args)
	return counts, args
}

// The generator's main.waitArg(n) holds 3 goroutines for each of n = 1..4,
// started by one go statement and parked at one line: only the argument
// tells them apart. ByExact splits them by it, ByStack and ByFunc do not,
// whether or not the reader reuses its routines (as the CLI's does).
func TestGroupByExactSplitsRealDumpByArguments(t *testing.T) {
	data := readGenerated(t, "debug2_go126.txt")
	for _, reuse := range []bool{false, true} {
		read := func(by By) []*stack.Group {
			rd := formats.NewReaderBytes(data, formats.ReadOptions{ReuseRoutines: reuse})
			_, groups, err := GroupNext(rd, Options{By: by}, func(pe *stack.ParseError) { t.Errorf("parse error: %v", pe) })
			if err != nil {
				t.Fatal(err)
			}
			return groups
		}
		counts, args := waitArgGroups(read(ByExact))
		if !slices.Equal(counts, []int64{3, 3, 3, 3}) || !slices.Equal(args, []string{"0x1", "0x2", "0x3", "0x4"}) {
			t.Errorf("reuse %v: exact: waitArg groups %v with arguments %q; want 4 groups of 3, 0x1 to 0x4", reuse, counts, args)
		}
		for _, by := range []By{ByStack, ByFunc} {
			if counts, _ := waitArgGroups(read(by)); !slices.Equal(counts, []int64{12}) {
				t.Errorf("reuse %v: %s: waitArg groups %v; want one of 12", reuse, by, counts)
			}
		}
		// The whole dump: 27 goroutines; at exact more groups than at stack.
		if n, m := len(read(ByExact)), len(read(ByStack)); n <= m {
			t.Errorf("reuse %v: %d groups at exact, %d at stack", reuse, n, m)
		}
	}
}
