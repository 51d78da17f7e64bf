package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	runtimepprof "runtime/pprof"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// The truncation child: STACKDUMP_TRUNC_CHILD=N starts N goroutines with
// stacks deep enough that debug=2 passes 64 MiB, each labelled with its
// depth, serves net/http/pprof on 127.0.0.1 as `import _
// "net/http/pprof"` registers it (the index and profiles, and the trace
// unless STACKDUMP_TRUNC_NOTRACE=1) and prints its address. With
// STACKDUMP_TRUNC_GROW=M it starts M more such goroutines once it has
// answered its first debug=1, before that answer ends: a target that
// grows between a capture's two fetches.
func init() {
	n, err := strconv.Atoi(os.Getenv("STACKDUMP_TRUNC_CHILD"))
	if err != nil || n <= 0 {
		return
	}
	startDeepParked(n)
	grow, _ := strconv.Atoi(os.Getenv("STACKDUMP_TRUNC_GROW"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("addr", l.Addr())
	mux := http.NewServeMux()
	var once sync.Once
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		pprof.Index(w, r)
		if grow > 0 && r.URL.Query().Get("debug") == "1" {
			once.Do(func() { startDeepParked(grow) })
		}
	})
	if os.Getenv("STACKDUMP_TRUNC_NOTRACE") != "1" {
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	http.Serve(l, mux)
	os.Exit(0)
}

// startDeepParked starts n goroutines parked at depths 12 to 14 under the
// pprof label depth=D, and returns once all are parked.
func startDeepParked(n int) {
	var ready sync.WaitGroup
	for i := range n {
		ready.Add(1)
		depth := 12 + i%3
		go runtimepprof.Do(context.Background(), runtimepprof.Labels("depth", strconv.Itoa(depth)), func(context.Context) {
			deepPark(depth, &ready)
		})
	}
	ready.Wait()
}

var parkForever = make(chan struct{})

//go:noinline
func deepPark(depth int, ready *sync.WaitGroup) {
	if depth > 0 {
		deepPark(depth-1, ready)
		return
	}
	ready.Done()
	<-parkForever
}

// startAddrChild starts child, which prints "addr HOST:PORT" once it
// serves, kills it when the test ends, and returns the address.
func startAddrChild(t *testing.T, child *exec.Cmd) string {
	t.Helper()
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
	if !ok {
		t.Fatalf("%s did not start: %q", child.Path, line)
	}
	return addr
}

// startTruncChild starts the truncation child with env and returns its
// pprof address.
func startTruncChild(t *testing.T, env ...string) string {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), env...)
	return startAddrChild(t, child)
}

// checkEveryDeepPark checks that d holds parked goroutines in deepPark,
// each once with its own id, a state and the label of its depth.
func checkEveryDeepPark(t *testing.T, d *stack.Dump, want int) {
	t.Helper()
	ids := make(map[int64]bool)
	unlabelled := 0
	for _, r := range d.Routines {
		fs := r.Frames()
		depth := 0
		for _, f := range fs {
			if strings.HasSuffix(f.Func, ".deepPark") {
				depth++
			}
		}
		if depth == 0 {
			continue
		}
		if r.ID == 0 || ids[r.ID] || r.State == "" || r.Count > 1 {
			t.Fatalf("deepPark goroutine id %d (seen: %v), state %q, count %d: want one goroutine with its own id and state", r.ID, ids[r.ID], r.State, r.Count)
		}
		ids[r.ID] = true
		if v, _ := r.Labels.Get("depth"); v != strconv.Itoa(depth-1) {
			unlabelled++
		}
	}
	if len(ids) != want {
		t.Errorf("%d deepPark goroutines with ids, want %d", len(ids), want)
	}
	if unlabelled > 0 {
		t.Errorf("%d deepPark goroutines lack the depth label debug=1 shows for their stack", unlabelled)
	}
}

// TestCaptureCompleteBeyond64MiB captures a child with 60,000 goroutines
// behind plain net/http/pprof, whose debug=2 the runtime cuts at 64 MiB:
// the output is one document with every goroutine (id, state, stack) from
// the trace snapshot, debug=1's labels joined, not truncated, and
// source.capture says how it was made.
func TestCaptureCompleteBeyond64MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 64 MiB truncation test")
	}
	const parked = 60000
	addr := startTruncChild(t, "STACKDUMP_TRUNC_CHILD="+strconv.Itoa(parked))
	// The trigger is real: this child's debug=2 is the runtime's cut.
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n != gotext.TruncationSize {
		t.Fatalf("the child's debug=2 is %d bytes, want the runtime's cut at %d", n, gotext.TruncationSize)
	}

	out := filepath.Join(t.TempDir(), "dump.json")
	_, stderr, err := runCLI(t, "capture", "-q", addr, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dumps := readDumpFile(t, out)
	if len(dumps) != 1 {
		t.Fatalf("%d documents in the output, want one", len(dumps))
	}
	d := dumps[0]
	checkEveryDeepPark(t, d, parked)
	if d.Truncated {
		t.Errorf("the document is flagged truncated, though every goroutine is in it; warnings %v", d.Warnings)
	}
	c := d.Source.Capture
	if c == nil || c.Mode != "full" || !slices.Equal(c.Methods, []string{"debug1", "trace"}) ||
		!slices.Equal(c.Joined, []string{"labels from debug1"}) || slices.Contains(c.Missing, "labels") {
		t.Errorf("source.capture = %+v, want mode full, methods [debug1 trace], labels joined from debug1", c)
	}
	if !strings.Contains(stderr, "cut at 64 MiB") {
		t.Errorf("stderr does not say debug=2 would be cut:\n%s", stderr)
	}
}

// TestCaptureCompleteWhenCutAfterPrediction captures a child whose
// goroutines grow from 10,000 to 60,000 between debug=1 (which predicts
// no cut) and debug=2 (which the runtime cuts): the cut body is not
// written; the trace snapshot is.
func TestCaptureCompleteWhenCutAfterPrediction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 64 MiB truncation test")
	}
	addr := startTruncChild(t, "STACKDUMP_TRUNC_CHILD=10000", "STACKDUMP_TRUNC_GROW=50000")
	out := filepath.Join(t.TempDir(), "dump.json")
	if _, stderr, err := runCLI(t, "capture", "-q", addr, "-o", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dumps := readDumpFile(t, out)
	if len(dumps) != 1 {
		t.Fatalf("%d documents in the output, want one", len(dumps))
	}
	checkEveryDeepPark(t, dumps[0], 60000)
	if c := dumps[0].Source.Capture; c == nil || !slices.Equal(c.Methods, []string{"debug1", "debug2", "trace"}) || dumps[0].Truncated {
		t.Errorf("source.capture = %+v, truncated %v; want methods [debug1 debug2 trace], not truncated", c, dumps[0].Truncated)
	}
}

// TestCaptureCountsWithoutTraceEndpoint captures a 60,000-goroutine child
// that serves no /debug/pprof/trace: one grouped document with complete
// counts, not flagged truncated (no count is a lower bound: the issue-35
// files said both), with ids and states named missing, and standard error
// saying why.
func TestCaptureCountsWithoutTraceEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 64 MiB truncation test")
	}
	const parked = 60000
	addr := startTruncChild(t, "STACKDUMP_TRUNC_CHILD="+strconv.Itoa(parked), "STACKDUMP_TRUNC_NOTRACE=1")
	out := filepath.Join(t.TempDir(), "dump.json")
	_, stderr, err := runCLI(t, "capture", "-q", addr, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dumps := readDumpFile(t, out)
	if len(dumps) != 1 {
		t.Fatalf("%d documents in the output, want one", len(dumps))
	}
	d := dumps[0]
	if got := countFunc(d, ".deepPark"); got != parked {
		t.Errorf("counts give %d deepPark goroutines, want %d", got, parked)
	}
	c := d.Source.Capture
	if d.Truncated || len(d.Warnings) > 0 || c == nil || !slices.Equal(c.Methods, []string{"debug1"}) || !slices.Contains(c.Missing, "id") || !slices.Contains(c.Missing, "state") {
		t.Errorf("truncated %v, warnings %v, source.capture %+v: want complete counts, methods [debug1], id and state missing", d.Truncated, d.Warnings, c)
	}
	if !strings.Contains(stderr, "complete counts per stack") || !strings.Contains(stderr, "serves no /debug/pprof/trace") {
		t.Errorf("stderr does not say counts replace the cut dump:\n%s", stderr)
	}
}
