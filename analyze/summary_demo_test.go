package analyze

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// demoDump reads testdata/go/demo_go126.txt: the debug=2 dump of the demo
// service (testdata/gen/demo) after 150 requests leaked a goroutine each
// (149 of them already blocked in chan send, the last still asleep in its
// slow backend). The answers below were counted apart from stackdump with
// grep, sort, uniq and comm.
func demoDump(t *testing.T) *Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "go", "demo_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const demoPkg = "github.com/stackdump/stackdump/internal/demo."

func TestDemoDumpTotals(t *testing.T) {
	s := demoDump(t)
	want := []StateCount{{"chan send", 149}, {"chan receive", 70}, {"IO wait", 42}, {"select", 35},
		{"sync.Mutex.Lock", 12}, {"sleep", 3}, {"runnable", 2}, {"running", 1}, {"sync.WaitGroup.Wait", 1}}
	if s.Total != 315 || !reflect.DeepEqual(s.States, want) {
		t.Errorf("total %d, states %v", s.Total, s.States)
	}
}

// The leak is flagged, the idle pool of 64 (one live parent) is not.
func TestDemoDumpLeakNotPool(t *testing.T) {
	s := demoDump(t)
	if len(s.LikelyLeaks) != 1 {
		t.Fatalf("likely leaks %+v", s.LikelyLeaks)
	}
	l := s.LikelyLeaks[0]
	if l.Frame.Func != demoPkg+"(*Service).fetchQuote" || l.Blocked != 149 || l.Parents != 149 || l.ExitedParents != 149 || l.Score != 2 || l.Kind != FindingLikelyLeak {
		t.Errorf("suspect %+v", l)
	}
	if l.Labels["handler"] != "" {
		t.Errorf("debug=2 carries no labels before Go 1.26's tracebacklabels: %v", l.Labels)
	}
	pool := s.TopGroups[1]
	if pool.Frame.Func != demoPkg+"(*workerPool).work" || pool.Count != 64 || pool.State != "chan receive" {
		t.Errorf("second group %+v; want the pool", pool)
	}
}

func TestDemoDumpContention(t *testing.T) {
	s := demoDump(t)
	if s.ContentionTotal != 12 || len(s.Contention) != 1 {
		t.Fatalf("contention %d: %+v", s.ContentionTotal, s.Contention)
	}
	c := s.Contention[0]
	if c.Frame.Func != demoPkg+"(*priceCache).Get" || c.Lock != LockMutex || c.Groups != 1 || len(c.IDs) != 5 {
		t.Errorf("site %+v", c)
	}
}

func TestDemoDumpCreators(t *testing.T) {
	s := demoDump(t)
	var got []string
	for _, c := range s.Creators[:3] {
		got = append(got, strings.TrimPrefix(c.Frame.Func, demoPkg)+":"+itoa(int64(c.Frame.Line))+" "+itoa(c.Count)+" in "+itoa(int64(c.Parents)))
	}
	want := []string{"(*Service).handleQuote:76 150 in 150", "(*Service).startWorkerPool:26 64 in 1", "net/http.(*Server).Serve:3464 20 in 1"}
	if !slices.Equal(got, want) {
		t.Errorf("creators %q, want %q", got, want)
	}
	var parents []string
	for _, p := range s.Parents[:3] {
		parents = append(parents, itoa(p.ID)+":"+itoa(p.Children)+" "+p.Status+" "+p.State)
	}
	if want := []string{"1:85 alive running", "21:20 alive IO wait", "88:6 alive sync.WaitGroup.Wait"}; !slices.Equal(parents, want) {
		t.Errorf("parents %q, want %q", parents, want)
	}
}
