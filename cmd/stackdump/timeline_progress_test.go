package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// progressDoc is the part of `timeline --json` the progress tests read.
type progressDoc struct {
	Snapshots []struct {
		CapturedAt time.Time `json:"captured_at"`
	} `json:"snapshots"`
	Stuck             []progressRow `json:"stuck"`
	StuckTotal        int           `json:"stuck_total"`
	Housekeeping      []progressRow `json:"housekeeping"`
	HousekeepingTotal int           `json:"housekeeping_total"`
	Idle              []progressRow `json:"idle"`
	IdleTotal         int           `json:"idle_total"`
	Busiest           []struct {
		Name  string `json:"name"`
		CPUMS int64  `json:"cpu_ms"`
	} `json:"busiest"`
}

type progressRow struct {
	Count     int    `json:"count"`
	State     string `json:"state"`
	Since     int    `json:"since"`
	Snapshots int    `json:"snapshots"`
	Why       string `json:"why"`
	Frame     struct {
		Func string `json:"func"`
	} `json:"frame"`
	Stack []struct {
		Func string `json:"func"`
	} `json:"stack"`
	IDs        []int64  `json:"ids"`
	Names      []string `json:"names"`
	ObservedMS int64    `json:"observed_ms"`
}

// hasFunc reports whether the row's stack holds fn.
func (r progressRow) hasFunc(fn string) bool {
	return slices.ContainsFunc(r.Stack, func(f struct {
		Func string `json:"func"`
	}) bool {
		return f.Func == fn
	})
}

// rowsNaming returns the rows that list the thread name.
func rowsNaming(rows []progressRow, name string) []progressRow {
	var out []progressRow
	for _, r := range rows {
		if slices.Contains(r.Names, name) {
			out = append(out, r)
		}
	}
	return out
}

func runTimelineJSON(t *testing.T, files []string) progressDoc {
	t.Helper()
	out, stderr, err := runCLI(t, append([]string{"timeline", "--json"}, files...)...)
	if err != nil {
		t.Fatalf("timeline: %v\n%s", err, stderr)
	}
	var doc progressDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// readSnapshot reads a captured file back.
func readSnapshot(t *testing.T, path string) *stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%s: %d dumps, %v", path, len(dumps), err)
	}
	return dumps[0]
}

// TestTimelineCommandProgressJVM captures testdata/gen/jvm/Progress.java
// three times with `stackdump capture jvm:PID`, moving one thread into a
// wait after the first capture, and checks `timeline --json`: the thread
// that waits since the second capture is unchanged from there (a run of
// two of three snapshots), the threads parked from the start in all
// three — idle, not stuck: they wait for a signal, not for a lock —, the
// spinning thread and the ticker whose cpu= rises in the same frame are
// not listed, and the JVM's own threads and the idle pool workers are
// housekeeping.
func TestTimelineCommandProgressJVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartJava(ctx, t, "Progress")
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		switch i {
		case 1:
			if got := p.Send(t, "next"); got != "phase 1" {
				t.Fatalf("Progress answered %q", got)
			}
			fallthrough
		case 2:
			time.Sleep(1100 * time.Millisecond) // JVM dumps print their time in seconds
		}
		path := filepath.Join(dir, "t"+strconv.Itoa(i+1)+".txt")
		if _, stderr, err := runCLI(t, "capture", "jvm:"+p.PID, "-o", path); err != nil {
			t.Fatalf("capture: %v\n%s", err, stderr)
		}
		files = append(files, path)
	}
	doc := runTimelineJSON(t, files)
	if len(doc.Snapshots) != 3 {
		t.Fatalf("%d snapshots", len(doc.Snapshots))
	}

	if doc.StuckTotal != 0 {
		t.Errorf("stuck %+v: no thread of Progress waits for a lock", doc.Stuck)
	}
	for _, name := range []string{"parked-1", "parked-2"} {
		if rows := rowsNaming(doc.Idle, name); len(rows) != 1 || rows[0].Since != 0 || rows[0].Snapshots != 3 || rows[0].Frame.Func != "Progress.parkForever" || rows[0].Why != "event" {
			t.Errorf("%s: idle rows %+v; want one, in all 3 snapshots", name, rows)
		}
	}
	late := rowsNaming(doc.Idle, "late-waiter")
	if len(late) != 1 || late[0].Since != 1 || late[0].Snapshots != 2 || late[0].State != "WAITING (on object monitor)" || late[0].Frame.Func != "Progress.waitAfterFirst" {
		t.Errorf("late-waiter: idle rows %+v; want one since snapshot 1, of 2 snapshots", late)
	} else if want := doc.Snapshots[2].CapturedAt.Sub(doc.Snapshots[1].CapturedAt).Milliseconds(); late[0].ObservedMS != want {
		t.Errorf("late-waiter observed %d ms, want the %d ms from its second capture", late[0].ObservedMS, want)
	}

	// The ticker keeps one state and stack, and its cpu= rises: the dumps
	// say so, and the timeline does not call it stuck.
	ticker := func(d *stack.Dump) *stack.Routine {
		for _, r := range d.Routines {
			if r.Name == "ticker" {
				return r
			}
		}
		t.Fatal("no ticker thread")
		return nil
	}
	first, last := ticker(readSnapshot(t, files[0])), ticker(readSnapshot(t, files[2]))
	if last.Thread.CPU <= first.Thread.CPU {
		t.Errorf("ticker's cpu= did not rise: %v → %v", first.Thread.CPU, last.Thread.CPU)
	}
	for _, name := range []string{"spinner", "ticker"} {
		if rows := append(append(rowsNaming(doc.Stuck, name), rowsNaming(doc.Housekeeping, name)...), rowsNaming(doc.Idle, name)...); len(rows) != 0 {
			t.Errorf("%s listed though its cpu= rose: %+v", name, rows)
		}
	}
	if len(doc.Busiest) == 0 || doc.Busiest[0].Name != "spinner" {
		t.Errorf("busiest %+v; want spinner first", doc.Busiest)
	}

	for _, name := range []string{"pool-worker-1", "pool-worker-2", "pool-worker-3"} {
		rows := rowsNaming(doc.Housekeeping, name)
		if len(rows) != 1 || rows[0].Why != "idle-pool" || rows[0].Since != 1 || !rows[0].hasFunc("java.util.concurrent.ThreadPoolExecutor.getTask") {
			t.Errorf("%s: housekeeping rows %+v; want an idle pool worker since snapshot 1 (its task ran before)", name, rows)
		}
	}
	for _, name := range []string{"Reference Handler", "Finalizer", "Common-Cleaner"} {
		if rows := rowsNaming(doc.Housekeeping, name); len(rows) != 1 || rows[0].Why != "platform" {
			t.Errorf("%s: housekeeping rows %+v; want the JDK's own", name, rows)
		}
	}
	noStack := 0
	for _, r := range doc.Housekeeping {
		if r.Why == "no-java-stack" {
			noStack += r.Count
			if len(r.Stack) != 0 {
				t.Errorf("no-java-stack row with frames: %+v", r)
			}
		}
	}
	if noStack == 0 {
		t.Error("no JVM thread without a Java stack in housekeeping")
	}
	sum := 0
	for _, r := range doc.Idle {
		sum += r.Count
		if len(r.Stack) == 0 || r.Why == "" {
			t.Errorf("idle row of the JVM's own, or without its reason: %+v", r)
		}
	}
	if sum != doc.IdleTotal {
		t.Errorf("idle rows hold %d, idle_total %d", sum, doc.IdleTotal)
	}

	// The text folds housekeeping into one line, --housekeeping lists it.
	text, _, err := runCLI(t, append([]string{"timeline", "--color", "never"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	listed, _, err := runCLI(t, append([]string{"timeline", "--color", "never", "--housekeeping"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	folded := lineWith(text, "Housekeeping")
	if !strings.Contains(folded, "3 idle pool workers") || !strings.Contains(folded, "3 in the JDK only") || !strings.HasSuffix(strings.TrimSpace(folded), "; --housekeeping lists them") || lineWith(text, `"pool-worker-1" "pool-worker-2"`) != "" || lineWith(text, `"Reference Handler"`) != "" {
		t.Errorf("folded housekeeping:\n%s", text)
	}
	if row := lineWith(listed, `"pool-worker-1" "pool-worker-2" "pool-worker-3"`); !strings.Contains(row, "since #1") {
		t.Errorf("--housekeeping does not list the pool workers' row:\n%s", listed)
	}
	if t.Failed() {
		t.Logf("timeline:\n%s", listed)
	}
}

// lineWith returns the first line of text holding s, "" when none does.
func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestTimelineCommandProgressGo captures testdata/gen/progress three times
// with `stackdump capture`, moving one goroutine into a wait and using
// the HTTP client's pool of idle connections after the first capture, and
// checks `timeline --json`: the goroutine that waits since the second
// capture is unchanged from there, those blocked from the start in all
// three — idle, not stuck: a few goroutines on a channel are an idle
// pool's shape —, the goroutine spinning in one frame (runnable in every
// capture) is not listed, and net/http's idle connections, the standard
// library's own goroutines, are housekeeping.
func TestTimelineCommandProgressGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.Start(ctx, t, "progress")
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		if i > 0 {
			if got, want := p.Send(t, "next"), "phase "+strconv.Itoa(i); got != want {
				t.Fatalf("progress answered %q, want %q", got, want)
			}
			time.Sleep(200 * time.Millisecond) // distinct capture times
		}
		path := filepath.Join(dir, "g"+strconv.Itoa(i+1)+".json")
		if _, stderr, err := runCLI(t, "capture", p.URL, "-o", path); err != nil {
			t.Fatalf("capture: %v\n%s", err, stderr)
		}
		files = append(files, path)
	}
	doc := runTimelineJSON(t, files)

	if doc.StuckTotal != 0 {
		t.Errorf("stuck %+v: nothing of progress waits for a lock or a deadlock", doc.Stuck)
	}
	var blocked, late []progressRow
	for _, r := range doc.Idle {
		switch r.Frame.Func {
		case "main.blockedFromStart":
			blocked = append(blocked, r)
		case "main.waitAfterFirst":
			late = append(late, r)
		case "main.spin", "main.beforeWait":
			t.Errorf("stuck: %+v", r)
		}
	}
	if len(blocked) != 1 || blocked[0].Count != 3 || blocked[0].Since != 0 || blocked[0].Snapshots != 3 || blocked[0].State != "chan receive" {
		t.Errorf("main.blockedFromStart rows %+v; want 3 goroutines in all 3 snapshots", blocked)
	}
	if len(late) != 1 || late[0].Count != 1 || late[0].Since != 1 || late[0].Snapshots != 2 {
		t.Errorf("main.waitAfterFirst rows %+v; want 1 goroutine since snapshot 1", late)
	}

	// The spinner is runnable (or running) at one line in every capture:
	// the dumps say so, and the timeline does not call it stuck.
	var spinIDs []int64
	for _, path := range files {
		for _, r := range readSnapshot(t, path).Routines {
			if f := r.Frames(); len(f) > 0 && f[0].Func == "main.spin" {
				spinIDs = append(spinIDs, r.ID)
				if r.State != "runnable" && r.State != "running" {
					t.Errorf("%s: the spinner is %q", path, r.State)
				}
			}
		}
	}
	if len(spinIDs) != 3 || spinIDs[0] != spinIDs[2] {
		t.Fatalf("spinner ids in the captures: %v", spinIDs)
	}
	for _, r := range append(append(slices.Clone(doc.Stuck), doc.Housekeeping...), doc.Idle...) {
		if slices.Contains(r.IDs, spinIDs[0]) {
			t.Errorf("the spinner is listed: %+v", r)
		}
	}

	// The client's idle connections: 4 readLoop and 4 writeLoop
	// goroutines, and the server's 4 conn.serve, all housekeeping.
	pool := map[string]int{}
	for _, r := range doc.Housekeeping {
		if r.Why != "platform" {
			t.Errorf("housekeeping row %+v: want the standard library's", r)
		}
		for _, fn := range []string{"net/http.(*persistConn).readLoop", "net/http.(*persistConn).writeLoop", "net/http.(*conn).serve"} {
			if r.hasFunc(fn) {
				pool[fn] += r.Count
			}
		}
	}
	for _, fn := range []string{"net/http.(*persistConn).readLoop", "net/http.(*persistConn).writeLoop", "net/http.(*conn).serve"} {
		if pool[fn] < 4 {
			t.Errorf("%d goroutines of %s in housekeeping, want 4 at least: %+v", pool[fn], fn, doc.Housekeeping)
		}
	}
	for _, r := range doc.Stuck {
		if strings.HasPrefix(r.Frame.Func, "net/http.") {
			t.Errorf("net/http's own goroutines stuck: %+v", r)
		}
	}
}
