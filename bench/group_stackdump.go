package bench

import (
	"fmt"
	"io"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

// GroupStackdump streams the dump through a dedupe.Grouper at ByStack,
// the grouping `stackdump` prints by default.
func GroupStackdump(r io.Reader) (GroupResult, error) {
	var res GroupResult
	rd := formats.NewReader(r, formats.ReadOptions{ReuseRoutines: true})
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("stackdump: %w", err)
		}
		g := dedupe.NewGrouper(dedupe.Options{By: dedupe.ByStack})
		for rt, err := range rd.Routines() {
			if err == nil {
				g.Add(rt)
				res.Goroutines++
			}
		}
		res.Groups += len(g.Groups())
	}
}
