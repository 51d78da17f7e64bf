package analyze

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// summarizeFile streams the first dump of a corpus file into its summary,
// as the analyze command does.
func summarizeFile(t *testing.T, name string, opts Options) *Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{Options: opts, Name: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// The debug=1 profile of profiler-notes example 2: "total 10" in 9
// records, one of them "2 @" (shortSleepLoop, labelled).
func TestCorpusDebug1Summary(t *testing.T) {
	s := summarizeFile(t, "go/profilernotes_2.net.http.pprof.goroutine.debug1.txt", Options{})
	if s.Total != 10 || s.Groups != 9 || s.Source.Kind != stack.KindGoDebug1 || s.Has("states") {
		t.Errorf("total %d in %d groups of %s, missing %v", s.Total, s.Groups, s.Source.Kind, s.Missing)
	}
	top := s.TopGroups[0]
	if top.Count != 2 || top.Frame.Func != "main.shortSleepLoop" || top.Labels["test_label"] != "test_value" {
		t.Errorf("top group %+v", top)
	}
	if s.ContentionTotal != 0 || len(s.LikelyLeaks) != 0 || len(s.Creators) != 0 {
		t.Errorf("contention %d, leaks %v, creators %v", s.ContentionTotal, s.LikelyLeaks, s.Creators)
	}
}

// jstack -l of a JDK 17 program with a monitor deadlock and a
// ReentrantLock deadlock; the JVM reports both ("Found 2 deadlocks.").
func TestCorpusJVMDeadlocks(t *testing.T) {
	s := summarizeFile(t, "jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", Options{})
	if s.Noun != "threads" || s.JVM == nil {
		t.Fatalf("noun %q, jvm %v", s.Noun, s.JVM)
	}
	var cycles [][]string
	for _, d := range s.JVM.Deadlocks {
		var names []string
		for _, th := range d.Threads {
			names = append(names, th.Name+" → "+th.WaitsFor)
		}
		cycles = append(cycles, names)
	}
	want := [][]string{
		{"dl-monitor-1 → <0x000000069e01ac30> (a java.lang.Object)", "dl-monitor-2 → <0x000000069e01ac20> (a java.lang.Object)"},
		{"dl-juc-1 → <0x000000069e01adc8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)", "dl-juc-2 → <0x000000069e01ad98> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)"},
	}
	if !slices.EqualFunc(cycles, want, slices.Equal) || s.JVM.ReportedDeadlocks != 2 {
		t.Errorf("deadlocks (JVM reported %d)\n got %q\nwant %q", s.JVM.ReportedDeadlocks, cycles, want)
	}
	var owners []string
	for _, b := range s.JVM.Blockers {
		owners = append(owners, b.Owner.Name+" "+b.Owner.Frame.Func)
	}
	wantOwners := []string{"dl-monitor-2 Samp.lambda$main$1", "dl-monitor-1 Samp.lambda$main$0", "dl-juc-2 Samp.lambda$main$3", "dl-juc-1 Samp.lambda$main$2"}
	if !slices.Equal(owners, wantOwners) {
		t.Errorf("blocker owners %q, want %q", owners, wantOwners)
	}
	if len(s.LikelyLeaks) != 0 || s.ContentionTotal != 0 {
		t.Errorf("Go heuristics on a JVM dump: %v, %d", s.LikelyLeaks, s.ContentionTotal)
	}
}

// Summaries of every corpus dump add up and never fail, whatever the
// format; the streaming and in-memory paths agree.
func TestCorpusSummariesAddUp(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "*", "*"))
	for _, path := range files {
		if st, err := os.Stat(path); err != nil || st.IsDir() || filepath.Ext(path) == ".md" {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rd := formats.NewReader(f, formats.ReadOptions{})
			for {
				s, groups, err := SummarizeNext(rd, StreamOptions{})
				if err == io.EOF {
					return
				}
				if err != nil && s == nil {
					t.Fatal(err)
				}
				var sum int64
				for _, g := range groups {
					sum += g.Count
				}
				var states int64
				for _, sc := range s.States {
					states += sc.Count
				}
				if sum != s.Total || states > s.Total {
					t.Errorf("groups sum to %d, states to %d, total %d", sum, states, s.Total)
				}
				if s.LeakedTotal > s.Total || s.ContentionTotal > s.Total {
					t.Errorf("leaked %d, contention %d of %d", s.LeakedTotal, s.ContentionTotal, s.Total)
				}
				if err != nil {
					return // the summary of a dump cut short was checked
				}
			}
		})
	}
}

// summarizeCorpus summarises the first dump of a corpus file.
func summarizeCorpus(t *testing.T, name string) *Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{Name: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Eight goroutines waited 1 minute (headers "[…, 1 minutes]"), one runs.
func TestCorpusLongestWaits(t *testing.T) {
	s := summarizeCorpus(t, "go/gostackparse_waitsince.txt")
	var waits []string
	var members int64
	s2 := summarizeCorpusTop(t, "go/gostackparse_waitsince.txt", 100)
	for _, g := range s2.LongestWaits {
		waits = append(waits, minutes(g.WaitMax))
		members += g.Count
	}
	if members != 8 || len(s.LongestWaits) != DefaultTop || slices.ContainsFunc(waits, func(w string) bool { return w != "1m" }) {
		t.Errorf("longest waits %v over %d goroutines; want 8 goroutines at 1m", waits, members)
	}
	if s.Total != 9 || s.States[0] != (StateCount{"IO wait", 3}) {
		t.Errorf("total %d, states %v", s.Total, s.States)
	}
}

func summarizeCorpusTop(t *testing.T, name string, top int) *Summary {
	f, err := os.Open(filepath.Join("..", "testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{Options: Options{Top: top}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCorpusFatalErrorPreamble(t *testing.T) {
	s := summarizeCorpus(t, "go/gotfmt_deadlock.txt")
	if len(s.Preamble) == 0 || s.Preamble[0] != "fatal error: all goroutines are asleep - deadlock!" {
		t.Errorf("preamble %q", s.Preamble)
	}
	// Three goroutines of 1-2 each: far below the leak threshold.
	if s.Total != 3 || len(s.LikelyLeaks) != 0 {
		t.Errorf("total %d, likely leaks %v", s.Total, s.LikelyLeaks)
	}
}

// Go 1.21's "created by main.main in goroutine 1": goroutine 1 is alive,
// waiting on a WaitGroup, which is no lock contention.
func TestCorpusParentIDs(t *testing.T) {
	s := summarizeCorpus(t, "go/gostackparse_go121_createdby.txt")
	want := Parent{ID: 1, Children: 1, Status: "alive", State: "semacquire",
		Frame:     &FrameRef{Func: "main.main", File: "/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go", Line: 18},
		CreatedBy: &FrameRef{Func: "main.main", File: "/Users/nick.ripley/repos/gostackparse/test-fixtures/go121_createdby.go", Line: 14}}
	if len(s.Parents) != 1 || !reflect.DeepEqual(s.Parents[0], want) {
		t.Errorf("parents %+v", s.Parents)
	}
	if s.ContentionTotal != 0 {
		t.Errorf("a WaitGroup waiter counted as contention: %+v", s.Contention)
	}
}

// panicweb: 71 goroutines in 11 call sites (dedupe's corpus test counted
// them apart), one locked to its thread.
func TestCorpusPanicweb(t *testing.T) {
	s := summarizeCorpus(t, panicwebCorpus)
	var counts []int64
	for _, g := range s.TopGroups {
		counts = append(counts, g.Count)
	}
	want := []StateCount{{"IO wait", 28}, {"select", 26}, {"chan receive", 15}, {"running", 1}, {"syscall", 1}}
	if s.Total != 71 || s.Groups != 11 || !slices.Equal(counts, []int64{14, 13, 13, 13, 10}) || !reflect.DeepEqual(s.States, want) || s.Locked != 1 {
		t.Errorf("total %d in %d groups, top %v, states %v, locked %d", s.Total, s.Groups, counts, s.States, s.Locked)
	}
}

const panicwebCorpus = "go/panicparse_panicweb_debug2.txt"

// A Go 1.26 goroutineleak dump: three goroutines the runtime marked
// "(leaked)" in chan send at main.modeLeak.func1, started by
// main.modeLeak in goroutine 1; a fourth, in chan receive, is not marked.
func TestLeakedOfRealDump(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "go", "leak_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, err := SummarizeNext(formats.NewReader(f, formats.ReadOptions{}), StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.LeakedTotal != 3 || len(s.Leaked) != 1 {
		t.Fatalf("leaked %d: %+v", s.LeakedTotal, s.Leaked)
	}
	l := s.Leaked[0]
	if l.State != "chan send" || l.Frame.Func != "main.modeLeak.func1" || l.CreatedBy.Func != "main.modeLeak" || !slices.Equal(l.IDs, []int64{21, 22, 23}) {
		t.Errorf("leaked row %+v", l)
	}
}
