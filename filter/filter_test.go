package filter_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata"}, parts...)...)
}

// block is one goroutine of a traceback's text, read apart from the
// codecs: the oracle the filter's counts are checked against.
type block struct {
	state  string
	frames []string // function lines and file lines, without "created by"
	labels string   // the header's labels:{…}, as printed
	create string   // the "created by" line
}

// tracebackBlocks splits Go traceback text into its goroutines.
func tracebackBlocks(t *testing.T, text string) []block {
	t.Helper()
	header := regexp.MustCompile(`^goroutine \d+ \[([^,\]]*?)( labels:(\{.*\}))?(,[^\]]*)?\]:$`)
	var out []block
	for _, chunk := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(chunk), "\n")
		m := header.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		b := block{state: m[1], labels: m[3]}
		for i := 1; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "created by ") {
				b.create = lines[i]
				break
			}
			b.frames = append(b.frames, strings.TrimSpace(lines[i]))
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		t.Fatal("no goroutine in the text")
	}
	return out
}

// run reads path through f and returns the routines kept, the dumps and
// the source's counts.
func run(t *testing.T, path string, f *filter.Filter) ([]*stack.Routine, []*stack.Dump, int64, int64) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	src := f.Source(formats.NewReader(in, formats.ReadOptions{}))
	var kept []*stack.Routine
	var dumps []*stack.Dump
	p := stack.Pipeline{Source: src, Encoder: encoder{
		begin: func(d *stack.Dump) { dumps = append(dumps, d) },
		write: func(r *stack.Routine) { kept = append(kept, r) },
	}}
	if _, err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	k, r := src.Counts()
	return kept, dumps, k, r
}

type encoder struct {
	begin func(*stack.Dump)
	write func(*stack.Routine)
}

func (e encoder) BeginDump(d *stack.Dump) error       { e.begin(d); return nil }
func (e encoder) WriteRoutine(r *stack.Routine) error { e.write(r); return nil }
func (e encoder) EndDump(*stack.Dump) error           { return nil }

func mustNew(t *testing.T, focus, ignore []string) *filter.Filter {
	t.Helper()
	f, err := filter.New(focus, ignore)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFilterGoTraceback filters the demo service's real debug=2 dump (315
// goroutines) and checks each count against the text read apart.
func TestFilterGoTraceback(t *testing.T) {
	path := testdata("go", "demo_go126.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := tracebackBlocks(t, string(text))
	count := func(pred func(block) bool) int64 {
		var n int64
		for _, b := range blocks {
			if pred(b) {
				n++
			}
		}
		return n
	}
	anyFrame := func(re string) func(block) bool {
		rx := regexp.MustCompile(re)
		return func(b block) bool {
			for _, l := range b.frames {
				if rx.MatchString(l) {
					return true
				}
			}
			return false
		}
	}
	not := func(p func(block) bool) func(block) bool { return func(b block) bool { return !p(b) } }
	and := func(ps ...func(block) bool) func(block) bool {
		return func(b block) bool {
			for _, p := range ps {
				if !p(b) {
					return false
				}
			}
			return true
		}
	}
	state := func(re string) func(block) bool {
		rx := regexp.MustCompile(re)
		return func(b block) bool { return rx.MatchString(b.state) }
	}
	for _, tc := range []struct {
		name           string
		focus, ignore  []string
		want           func(block) bool
		atLeast, below int64 // the case means something: some kept, some not
	}{
		{"function", []string{`net/http\.\(\*conn\)\.serve`}, nil, anyFrame(`^net/http\.\(\*conn\)\.serve\(`), 1, 315},
		{"file", []string{`/net/fd_posix\.go`}, nil, anyFrame(`/net/fd_posix\.go:`), 1, 315},
		{"file and line", []string{`server\.go:2\d\d\d\b`}, nil, anyFrame(`server\.go:2\d\d\d\b`), 1, 315},
		{"state", []string{"state:^chan send$"}, nil, state(`^chan send$`), 149, 150},
		{"ignore state", nil, []string{"state:chan"}, not(state(`chan`)), 1, 315},
		{"focus and ignore", []string{"internal/demo\\."}, []string{"state:^select$"}, and(anyFrame(`internal/demo\.`), not(state(`^select$`))), 1, 315},
		{"two focus narrow", []string{`net/http\.\(\*conn\)\.serve`, "state:IO wait"}, nil, and(anyFrame(`^net/http\.\(\*conn\)\.serve\(`), state(`IO wait`)), 1, 20}, // 20 serve, 42 in IO wait
		{"two ignore drop more", nil, []string{"state:chan send", "state:IO wait"}, not(state(`chan send|IO wait`)), 1, 315},
		{"created", []string{"created:net/http\\.\\(\\*Server\\)\\.Serve"}, nil, func(b block) bool {
			return strings.HasPrefix(b.create, "created by net/http.(*Server).Serve ")
		}, 1, 315},
		{"frame: prefix", []string{"frame:state"}, nil, anyFrame(`state`), 0, 316},
		{"case", []string{"(?i)INTERNAL/DEMO\\.\\(\\*WORKERPOOL"}, nil, anyFrame(`internal/demo\.\(\*workerPool`), 1, 315},
		{"nothing", []string{"no such function"}, nil, func(block) bool { return false }, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := count(tc.want)
			if want < tc.atLeast || want >= tc.below {
				t.Fatalf("the oracle counts %d, outside [%d, %d): the case tests nothing", want, tc.atLeast, tc.below)
			}
			kept, dumps, k, r := run(t, path, mustNew(t, tc.focus, tc.ignore))
			if int64(len(kept)) != want || k != want || r != int64(len(blocks)) {
				t.Errorf("kept %d routines, counts %d of %d; the text has %d of %d", len(kept), k, r, want, len(blocks))
			}
			if len(dumps) != 1 || dumps[0].Total != want {
				t.Errorf("dumps %d, Total %d, want one dump of %d", len(dumps), dumps[0].Total, want)
			}
		})
	}
}

// TestFilterLabels: label:KEY and label:KEY=REGEXP on a traceback with
// pprof labels in its headers.
func TestFilterLabels(t *testing.T) {
	path := testdata("go", "labels_go126.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := tracebackBlocks(t, string(text))
	var svc, orders int64
	for _, b := range blocks {
		if strings.Contains(b.labels, `"svc": `) {
			svc++
		}
		if strings.Contains(b.labels, `"svc": "orders"`) {
			orders++
		}
	}
	if svc < 2 || orders < 1 || orders == svc {
		t.Fatalf("the fixture changed: %d with svc, %d svc=orders", svc, orders)
	}
	for _, tc := range []struct {
		focus []string
		want  int64
	}{
		{[]string{"label:svc"}, svc},
		{[]string{"label:svc=^orders$"}, orders},
		{[]string{"label:svc=ord"}, orders},
		{[]string{"label:nosuchkey"}, 0},
	} {
		kept, _, _, _ := run(t, path, mustNew(t, tc.focus, nil))
		if int64(len(kept)) != tc.want {
			t.Errorf("--focus %q kept %d, want %d", tc.focus, len(kept), tc.want)
		}
	}
	kept, _, _, _ := run(t, path, mustNew(t, nil, []string{"label:svc"}))
	if int64(len(kept)) != int64(len(blocks))-svc {
		t.Errorf("--ignore label:svc kept %d of %d, want %d", len(kept), len(blocks), int64(len(blocks))-svc)
	}
}

// TestFilterJVM: thread names, states and Java frames of a real jstack
// dump.
func TestFilterJVM(t *testing.T) {
	path := testdata("corpus", "jvm", "local_jdk17.0.15-jstack-l-deadlocks.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	threads := regexp.MustCompile(`(?m)^"([^"]*)" `).FindAllStringSubmatch(string(text), -1)
	var workers int64
	for _, m := range threads {
		if strings.HasPrefix(m[1], "C") { // the compiler threads, "Common-Cleaner"…
			workers++
		}
	}
	blocked := int64(strings.Count(string(text), "java.lang.Thread.State: BLOCKED"))
	sleeps := int64(strings.Count(string(text), "at java.lang.Thread.sleep("))
	if workers == 0 || blocked == 0 || sleeps == 0 {
		t.Fatalf("the fixture changed: %d C… threads, %d blocked, %d sleeping", workers, blocked, sleeps)
	}
	for _, tc := range []struct {
		focus []string
		want  int64
	}{
		{[]string{"name:^C"}, workers},
		{[]string{"state:^BLOCKED"}, blocked},
		{[]string{`java\.lang\.Thread\.sleep`}, sleeps},
	} {
		kept, dumps, _, _ := run(t, path, mustNew(t, tc.focus, nil))
		if int64(len(kept)) != tc.want || dumps[0].Total != tc.want {
			t.Errorf("--focus %q kept %d (Total %d), want %d", tc.focus, len(kept), dumps[0].Total, tc.want)
		}
	}
}

// TestFilterKeepsWhatTheDumpSays: a dump cut short keeps Truncated and its
// warnings, and a grouped dump (debug=1 records of several goroutines)
// counts goroutines, not records.
func TestFilterKeepsWhatTheDumpSays(t *testing.T) {
	text, err := os.ReadFile(testdata("go", "demo_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.txt")
	if err := os.WriteFile(cut, text[:len(text)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	all, plain, _, _ := run(t, cut, keepAll(t))
	kept, dumps, _, _ := run(t, cut, mustNew(t, nil, []string{"state:chan"}))
	if !plain[0].Truncated || !dumps[0].Truncated || len(dumps[0].Warnings) != len(plain[0].Warnings) || len(plain[0].Warnings) == 0 {
		t.Errorf("cut dump: truncated %v, %d warnings; through the filter: %v, %d", plain[0].Truncated, len(plain[0].Warnings), dumps[0].Truncated, len(dumps[0].Warnings))
	}
	if len(kept) == 0 || len(kept) >= len(all) {
		t.Errorf("kept %d of %d", len(kept), len(all))
	}

	// debug=1: records stand for Count goroutines each.
	path := testdata("debug1", "go1.26.8.txt")
	all, plain, _, read := run(t, path, keepAll(t))
	if read != plain[0].Total || len(all) >= int(read) {
		t.Fatalf("debug=1 fixture: %d records, read %d, Total %d", len(all), read, plain[0].Total)
	}
	kept, dumps, k, _ := run(t, path, mustNew(t, []string{`main\.wait`}, nil))
	var sum int64
	for _, r := range kept {
		sum += r.Count
	}
	if k != sum || dumps[0].Total != sum || sum == 0 || sum == read {
		t.Errorf("debug=1: kept %d records of %d goroutines, counts say %d, Total %d (of %d)", len(kept), sum, k, dumps[0].Total, read)
	}
}

// keepAll is a filter with no expressions: every routine kept.
func keepAll(t *testing.T) *filter.Filter {
	f := mustNew(t, nil, nil)
	if !f.Empty() {
		t.Fatal("a filter of nothing is not Empty")
	}
	return f
}

func TestFilterRefusesBadExpressions(t *testing.T) {
	for _, tc := range []struct {
		focus, ignore []string
		want          string
	}{
		{[]string{"state:("}, nil, `focus 'state:(': error parsing regexp`},
		{nil, []string{"label:=x"}, `ignore 'label:=x': want label:KEY=REGEXP or label:KEY`},
		{[]string{"main.go:12"}, nil, ""}, // not a prefix: a frame's file and line
	} {
		_, err := filter.New(tc.focus, tc.ignore)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("New(%q, %q): %v, want %q", tc.focus, tc.ignore, err, tc.want)
		}
	}
	f := mustNew(t, []string{"a", "state:b"}, []string{"label:k='v'"})
	if got := f.String(); got != `focus 'a', focus 'state:b', ignore "label:k='v'"` {
		t.Errorf("String: %s", got)
	}
	if focus, ignore := f.Exprs(); !slices.Equal(focus, []string{"a", "state:b"}) || !slices.Equal(ignore, []string{"label:k='v'"}) {
		t.Errorf("Exprs: %q, %q", focus, ignore)
	}
}
