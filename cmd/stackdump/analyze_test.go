package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/analyze"
)

// corpusPath is a file of the repository's dump corpus.
func corpusPath(name string) string {
	return filepath.Join("..", "..", "testdata", "corpus", name)
}

// runCLIInput runs the root command with args and stdin.
func runCLIInput(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetIn(bytes.NewReader(stdin))
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

const debug1Corpus = "go/profilernotes_2.net.http.pprof.goroutine.debug1.txt"

func TestAnalyzeCommandText(t *testing.T) {
	path := corpusPath(debug1Corpus)
	out, _, err := runCLI(t, "analyze", "--color", "never", path)
	if err != nil {
		t.Fatal(err)
	}
	want := path + ` · go-debug1
10 goroutines in 9 groups
this input carries no states, wait minutes, creators, ids

Largest groups
  2  test_label=test_value  main.shortSleepLoop main.go:165
  1  -                      main.main.func1 main.go:123
  1  test_label=test_value  main.chanReceiveForever main.go:177
  1  -                      pprof.runtime_goroutineProfileWithLabels mprof.go:716
  1  test_label=test_value  http.(*persistConn).Read transport.go:1887

✓ no lock contention
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// --top and colors.
	out, _, err = runCLI(t, "analyze", "--top", "1", "--color", "always", path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "main.main.func1") != 0 || !strings.Contains(out, "\x1b[1m10 goroutines in 9 groups\x1b[0m") {
		t.Errorf("--top 1 --color always:\n%q", out)
	}
}

// Two files, one of them from standard input, in one JSON document.
func TestAnalyzeCommandJSON(t *testing.T) {
	debug1, err := os.ReadFile(corpusPath(debug1Corpus))
	if err != nil {
		t.Fatal(err)
	}
	jvm := corpusPath("jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")
	out, _, err := runCLIInput(t, debug1, "analyze", "--json", "-", jvm)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string
		Dumps  []analyze.Summary
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if doc.Schema != "stackdump-analysis/v1" || len(doc.Dumps) != 2 {
		t.Fatalf("schema %q, %d dumps", doc.Schema, len(doc.Dumps))
	}
	d1, d2 := doc.Dumps[0], doc.Dumps[1]
	if d1.Source.Name != "standard input" || d1.Total != 10 || d1.TopGroups[0].Frame.Func != "main.shortSleepLoop" {
		t.Errorf("first dump %+v", d1)
	}
	if d2.Source.Name != jvm || d2.Noun != "threads" || d2.Total != 31 || len(d2.JVM.Deadlocks) != 2 || d2.JVM.Deadlocks[0].Threads[0].Name != "dl-monitor-1" {
		t.Errorf("second dump %+v", d2)
	}
}

func TestAnalyzeCommandJVMText(t *testing.T) {
	out, _, err := runCLI(t, "analyze", "--color", "never", corpusPath("jvm/local_jdk17.0.15-jstack-l-deadlocks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := `
  DEADLOCK (certain) 2 threads deadlocked: "dl-monitor-1", "dl-monitor-2" each wait for a lock the next one holds
    "dl-monitor-1" (BLOCKED (on object monitor), in Samp.lambda$main$0) waits for <0x000000069e01ac30> (a java.lang.Object); held by the next: its lock lines
    "dl-monitor-2" (BLOCKED (on object monitor), in Samp.lambda$main$1) waits for <0x000000069e01ac20> (a java.lang.Object); held by the next: its lock lines
    · the JVM reported this deadlock
    · a cycle of the lock graph: each thread waits for a lock the next one holds
  DEADLOCK (certain) 2 threads deadlocked: "dl-juc-1", "dl-juc-2" each wait for a lock the next one holds
    "dl-juc-1" (WAITING (parking), in Samp.lambda$main$2) waits for <0x000000069e01adc8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync); held by the next: its lock lines
    "dl-juc-2" (WAITING (parking), in Samp.lambda$main$3) waits for <0x000000069e01ad98> (a java.util.concurrent.locks.ReentrantLock$NonfairSync); held by the next: its lock lines
`
	if !strings.Contains(out, want) || strings.Contains(out, "no deadlock") || strings.Contains(out, "Found one Java-level deadlock") {
		t.Errorf("got\n%s\nwant it to contain\n%s", out, want)
	}
}

func TestAnalyzeCommandErrors(t *testing.T) {
	notDump := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notDump, []byte("hello\nworld\n"), 0o644)
	debug1 := corpusPath(debug1Corpus)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze"}, "requires at least 1 arg"},
		{[]string{"analyze", "missing.txt"}, "open missing.txt: no such file or directory"},
		{[]string{"analyze", notDump}, notDump + ": no dump found"},
		{[]string{"analyze", "--by", "nope", debug1}, `unknown similarity "nope"`},
		{[]string{"analyze", "--top", "0", debug1}, "--top 0: want 1 or more"},
		{[]string{"analyze", "--color", "pink", debug1}, `--color "pink": want auto, always or never`},
		// The library reads 0 as "the default": from the command line,
		// 0 and below used to be taken silently as 50, 5 and 10.
		{[]string{"analyze", "--leak-min-count", "0", debug1}, "--leak-min-count 0: want 1 or more"},
		{[]string{"analyze", "--leak-min-parents", "-2", debug1}, "--leak-min-parents -2: want 1 or more"},
		{[]string{"analyze", "--leak-min-wait", "0", debug1}, "--leak-min-wait 0: want 1 or more"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A file that fails halfway still shows the dumps read before the error.
func TestAnalyzeCommandShowsDumpsBeforeAnError(t *testing.T) {
	out, _, err := runCLI(t, "analyze", "--color", "never", corpusPath(debug1Corpus), "missing.txt")
	if err == nil || !strings.Contains(out, "10 goroutines in 9 groups") {
		t.Errorf("error %v, output\n%s", err, out)
	}
}

func TestUseColor(t *testing.T) {
	var b bytes.Buffer
	for _, tc := range []struct {
		mode    string
		noColor string
		want    bool
	}{
		{"always", "1", true},
		{"never", "", false},
		{"auto", "", false}, // a buffer is no terminal
		{"", "", false},
	} {
		t.Setenv("NO_COLOR", tc.noColor)
		if got, err := useColor(tc.mode, &b); got != tc.want || err != nil {
			t.Errorf("useColor(%q) with NO_COLOR=%q = %v, %v", tc.mode, tc.noColor, got, err)
		}
	}
}

// analyze reads several dumps in the order given as snapshots of one
// process: a group parked on a channel that grew in each of them is a
// likely leak for that alone, listed first with its counts and the
// reason, though one live goroutine started it (a pool's shape).
func TestAnalyzeCommandGrowthAcrossDumps(t *testing.T) {
	var files []string
	for i := range 3 {
		leak(t, 60)
		files = append(files, writeProfile(t, "g"+string(rune('1'+i))+".txt", 2))
	}
	out, _, err := runCLI(t, append([]string{"analyze", "--json"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dumps []struct {
			LikelyLeaks []struct {
				Frame   struct{ Func string } `json:"frame"`
				Growth  []int64               `json:"growth"`
				Reasons []string              `json:"reasons"`
			} `json:"likely_leaks"`
		} `json:"dumps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Dumps) != 3 {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := len(doc.Dumps[0].LikelyLeaks); n != 0 {
		t.Errorf("the first dump alone flags %d suspects: a pool's shape", n)
	}
	leaks := doc.Dumps[2].LikelyLeaks
	if len(leaks) == 0 || !strings.HasSuffix(leaks[0].Frame.Func, ".leakyWorker") {
		t.Fatalf("third dump's suspects %+v; want leakyWorker first", leaks)
	}
	g := leaks[0].Growth
	if len(g) != 3 || g[1]-g[0] != 60 || g[2]-g[1] != 60 || !strings.HasPrefix(leaks[0].Reasons[0], "grew across 3 dumps (") {
		t.Errorf("growth %v, reasons %q", g, leaks[0].Reasons)
	}
}
