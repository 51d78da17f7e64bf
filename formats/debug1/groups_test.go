package debug1

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

func TestGroupRecords(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	gs := dumptest.Groups(tab, d)
	type rec struct {
		count  int64
		labels string
	}
	for i, want := range [][]rec{
		{{1200, "svc=users"}, {34, "odd key=x y,svc=admin"}},
		{{1, "svc=users,weird key=a\"b\nc\tü\x01"}},
		{{3, ""}},
	} {
		var got []rec
		for _, r := range groupRecords(gs[i]) {
			var ls []string
			for _, l := range r.Labels {
				ls = append(ls, l.Key+"="+l.Value)
			}
			got = append(got, rec{r.Count, strings.Join(ls, ",")})
			if r.Stack != gs[i].Sample.Stack {
				t.Errorf("group %d: record does not carry the sample's stack", i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("group %d: records %v, want %v", i, got, want)
		}
	}
	if d.Routines[1].Count != 1 {
		t.Error("groupRecords changed the sample")
	}
}
