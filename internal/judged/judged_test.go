package judged

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// snapshotGap is the time between two snapshots of a case.
const snapshotGap = time.Second

// connLeakGap is go-connleak's: its three snapshots span a minute and
// more (two gaps, and the "next" steps between them), and the connections
// leaked before the first have waited longer still by the third, which
// the runtime prints as "1 minutes" (it counts a wait from the end of the
// garbage collection before the one that found it blocked, never later
// than the block; the program collects about twice a second).
const connLeakGap = 30 * time.Second

// judgedCase is one process of the judged set: how it is started, and
// how many snapshots it needs.
type judgedCase struct {
	name string
	// start starts the process and returns its capture, and next (nil:
	// nothing) what is done before each snapshot after the first.
	start     func(ctx context.Context, t testing.TB) (capture func() *stack.Dump, next func())
	snapshots int
	// gap is the time between two snapshots; 0 means snapshotGap. A case
	// with a gap of its own (its evidence needs the wall clock: waits of a
	// minute) is captured in the background from the start of the test,
	// while the others run, and judged after them.
	gap time.Duration
	// short runs the case under -short too: the sick programs, which
	// score every verdict kind between them.
	short bool
}

// goProgram starts a mode of testdata/gen/judged.
func goProgram(mode string) func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	return func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		p := livechild.StartArgs(ctx, t, "judged", mode)
		return func() *stack.Dump { return captureGo(ctx, t, p.URL) },
			func() { p.Send(t, "next") }
	}
}

// goProgramCounts starts a mode of testdata/gen/judged and captures its
// goroutine profile (debug=0: counts per stack, runtime frames included).
func goProgramCounts(mode string) func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	return func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		p := livechild.StartArgs(ctx, t, "judged", mode)
		return func() *stack.Dump { return captureGoDebug(ctx, t, p.URL, 0) }, nil
	}
}

// files reads a case's snapshots from the files its truth names.
func files(name string) func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	return func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		tr := loadTruth(t, name)
		i := 0
		return func() *stack.Dump {
			data, err := os.ReadFile(filepath.Join("..", "..", tr.Files[i]))
			if err != nil {
				t.Fatal(err)
			}
			i++
			return readDump(t, data, time.Time{}, tr.Files[i-1])
		}, nil
	}
}

// goServer starts a real Go server and captures it through its
// net/http/pprof handlers.
func goServer(start func(ctx context.Context, t testing.TB) string) func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	return func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		base := start(ctx, t)
		return func() *stack.Dump { return captureGo(ctx, t, base) }, nil
	}
}

// jvmServer starts a real JVM server and captures it with jcmd.
func jvmServer(start func(ctx context.Context, t testing.TB) int) func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	return func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		pid := start(ctx, t)
		return func() *stack.Dump { return captureJVM(ctx, t, pid) }, nil
	}
}

var cases = []judgedCase{
	{name: "go-leak", start: goProgram("leak"), snapshots: 3, short: true},
	{name: "go-chan50k", start: goProgram("chan50k"), snapshots: 2, short: true},
	{name: "go-mutex40", start: goProgram("mutex40"), snapshots: 3, short: true},
	{name: "go-abba", start: goProgram("abba"), snapshots: 3, short: true},
	{name: "go-spin", start: goProgram("spin"), snapshots: 3, short: true},
	{name: "go-pool600", start: goProgram("pool600"), snapshots: 3, short: true},
	{name: "go-demo", start: goProgram("demo"), snapshots: 3, short: true},
	{name: "go-rwmutex", start: goProgram("rwmutex"), snapshots: 3, short: true},
	{name: "go-selectleak", start: goProgram("selectleak"), snapshots: 3, short: true},
	{name: "go-wgpile", start: goProgram("wgpile"), snapshots: 3, short: true},
	{name: "go-chan50k-pprof", start: goProgramCounts("chan50k"), snapshots: 1, short: true},
	{name: "file-leakproof-go127", start: files("file-leakproof-go127"), snapshots: 1, short: true},
	{name: "file-jdk11-object-wait", start: files("file-jdk11-object-wait"), snapshots: 1, short: true},
	{name: "jvm-locks", start: func(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
		p := livechild.StartJava(ctx, t, "JudgedLocks")
		pid, err := strconv.Atoi(p.PID)
		if err != nil {
			t.Fatal(err)
		}
		return func() *stack.Dump { return captureJVM(ctx, t, pid) }, nil
	}, snapshots: 3, short: true},
	{name: "etcd-watches", start: goServer(func(ctx context.Context, t testing.TB) string { return startEtcd(ctx, t, 3000) }), snapshots: 3},
	{name: "nats", start: goServer(startNats), snapshots: 3},
	{name: "prometheus", start: goServer(startPrometheus), snapshots: 3},
	{name: "caddy", start: goServer(startCaddy), snapshots: 3},
	{name: "caddy-rampup", start: caddyRampUp, snapshots: 3},
	{name: "go-connleak", start: goProgram("connleak"), snapshots: 3, gap: connLeakGap},
	{name: "zookeeper", start: jvmServer(startZooKeeper), snapshots: 3},
	{name: "tomcat", start: jvmServer(startTomcat), snapshots: 3},
}

// TestJudged captures every case of the judged set, analyses the
// snapshots as `stackdump analyze` and `stackdump timeline` would, scores
// the verdicts against each case's truth, prints the table and fails
// below the floors.
func TestJudged(t *testing.T) {
	var mu sync.Mutex
	var judged []judgement
	var skipped []string
	// record scores one case's verdicts, logs them and keeps the score.
	record := func(t *testing.T, tr truth, given []verdict) {
		j := judge(tr, given)
		for _, v := range given {
			t.Logf("%s: %s", v.Kind, v.Text)
		}
		for _, m := range j.misses {
			t.Logf("MISSED %s", m)
		}
		for _, w := range j.wrong {
			t.Logf("WRONG %s", w)
		}
		mu.Lock()
		judged = append(judged, j)
		mu.Unlock()
	}
	skip := func(name string) {
		mu.Lock()
		skipped = append(skipped, name)
		mu.Unlock()
	}
	run := func(c judgedCase) bool { return !testing.Short() || c.short }

	// The slow cases are captured in the background while the others
	// run: their subtest starts the capture, and they are judged once the
	// others are.
	var slow []*backgroundCase
	top := t // a background capture outlives its subtest: its process, logs and temporary files are the test's
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer func() {
		cancel()
		for _, b := range slow {
			<-b.done
		}
	}()
	t.Run("case", func(t *testing.T) {
		for _, c := range cases {
			if !run(c) {
				continue
			}
			if c.gap != 0 {
				t.Run(c.name, func(t *testing.T) {
					b := &backgroundCase{c: c, tb: &backgroundTB{TB: top}, tr: loadTruth(t, c.name), done: make(chan struct{})}
					slow = append(slow, b)
					go func() {
						defer close(b.done)
						b.given = captureCase(ctx, b.tb, c, b.tr)
					}()
					t.Logf("captured in the background, %v between snapshots: judged after the other cases", c.gap)
				})
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				tr := loadTruth(t, c.name)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				defer func() {
					if t.Skipped() {
						skip(c.name)
					}
				}()
				record(t, tr, captureCase(ctx, t, c, tr))
			})
		}
	})
	for _, b := range slow {
		<-b.done
		switch {
		case b.tb.err() != "":
			t.Errorf("%s: %s", b.c.name, b.tb.err())
		case b.tb.skipReason() != "":
			t.Logf("%s: %s", b.c.name, b.tb.skipReason())
			skip(b.c.name)
		default:
			t.Logf("%s, judged:", b.c.name)
			record(t, b.tr, b.given)
		}
	}
	if len(judged) == 0 {
		t.Skip("no case could run")
	}
	sum, table := scoreTable(judged)
	var wrong strings.Builder
	for _, j := range judged {
		for _, m := range j.misses {
			fmt.Fprintf(&wrong, "  %s: missed %s\n", j.name, m)
		}
		for _, w := range j.wrong {
			fmt.Fprintf(&wrong, "  %s: wrong %s\n", j.name, w)
		}
	}
	t.Logf("judged set: %d cases scored, skipped: %v\n%s%s", len(judged), skipped, table, wrong.String())
	fmt.Fprintf(os.Stderr, "judged set: %d cases scored (skipped: %s)\n%s%s", len(judged), strings.Join(skipped, ", "), table, wrong.String())
	checkFloors(t, sum)
}

// floors are the least precision and recall of each kind; a kind with no
// verdict expected or given has no ratio and is not held to them. Main's
// analysis scored (before the findings): stuck precision 0.07 (107 false
// alarms on the healthy servers), blocked 0.00, contention recall 0.33,
// deadlock recall 0.67, growth recall 0.00. Raise them as the verdicts
// improve; lower one only with the reason written here.
var floors = map[string][2]float64{
	"proven-leak":  {0.9, 0.9},
	"likely-leak":  {0.9, 0.9},
	"leak-suspect": {0.9, 0.9},
	"growth":       {0.9, 0.9},
	"blocked":      {0.9, 0.9},
	"contention":   {0.9, 0.9},
	"deadlock":     {0.9, 0.9},
	"stuck":        {0.9, 0.9},
}

func checkFloors(t *testing.T, sum map[string]*tally) {
	for _, k := range kinds {
		f, ok := floors[k]
		if !ok {
			continue
		}
		if p, ok := sum[k].precision(); ok && p < f[0] {
			t.Errorf("%s: precision %.2f, below its floor %.2f", k, p, f[0])
		}
		if r, ok := sum[k].recall(); ok && r < f[1] {
			t.Errorf("%s: recall %.2f, below its floor %.2f", k, r, f[1])
		}
	}
}

// captureGo takes a debug=2 traceback of a Go process through its
// net/http/pprof handlers, as `curl …/debug/pprof/goroutine?debug=2`.
func captureGo(ctx context.Context, t testing.TB, base string) *stack.Dump {
	t.Helper()
	return captureGoDebug(ctx, t, base, 2)
}

// captureGoDebug fetches /debug/pprof/goroutine?debug=N.
func captureGoDebug(ctx context.Context, t testing.TB, base string, debug int) *stack.Dump {
	t.Helper()
	url := base + "/debug/pprof/goroutine?debug=" + strconv.Itoa(debug)
	at := time.Now().UTC()
	body := livechild.Fetch(ctx, t, url)
	return readDump(t, body, at, base)
}

// captureJVM takes a JVM's threads with jcmd.
func captureJVM(ctx context.Context, t testing.TB, pid int) *stack.Dump {
	t.Helper()
	at := time.Now().UTC()
	d := readDump(t, jcmdThreads(ctx, t, pid), at, "")
	return d
}

func readDump(t testing.TB, text []byte, at time.Time, target string) *stack.Dump {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("reading the capture: %d dumps, %v", len(dumps), err)
	}
	d := dumps[0]
	if d.Source.CapturedAt.IsZero() {
		d.Source.CapturedAt = at
	}
	if target != "" {
		d.Source.Target = target
	}
	return d
}

// captureCase starts a case's process and takes its snapshots, its gap
// apart, with its next step before each but the first, and returns the
// verdicts given on them.
func captureCase(ctx context.Context, t testing.TB, c judgedCase, tr truth) []verdict {
	capture, next := c.start(ctx, t)
	gap := cmp.Or(c.gap, snapshotGap)
	var snaps []*stack.Dump
	for i := range c.snapshots {
		if i > 0 && len(tr.Files) == 0 {
			select {
			case <-ctx.Done():
				t.Fatalf("before snapshot %d: %v", i+1, ctx.Err())
			case <-time.After(gap):
			}
			if next != nil {
				next()
			}
		}
		snaps = append(snaps, capture())
	}
	return verdictsOf(snaps)
}

// backgroundCase is a slow case captured in a goroutine of its own.
type backgroundCase struct {
	c     judgedCase
	tb    *backgroundTB
	tr    truth
	given []verdict
	done  chan struct{}
}

// backgroundTB is the testing.TB of a case captured in a goroutine of its
// own: its failures and its skip are recorded, and end the goroutine as
// FailNow and SkipNow end a test's; the case's subtest reports them.
// Everything else (Cleanup, TempDir, Logf) is the test's.
type backgroundTB struct {
	testing.TB
	mu      sync.Mutex
	errs    []string
	skipped string
}

func (b *backgroundTB) fail(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = append(b.errs, msg)
}

func (b *backgroundTB) skip(msg string) {
	b.mu.Lock()
	b.skipped = cmp.Or(msg, "skipped")
	b.mu.Unlock()
	runtime.Goexit()
}

func (b *backgroundTB) Fail()                             { b.fail("failed") }
func (b *backgroundTB) Error(args ...any)                 { b.fail(fmt.Sprint(args...)) }
func (b *backgroundTB) Errorf(format string, args ...any) { b.fail(fmt.Sprintf(format, args...)) }
func (b *backgroundTB) FailNow()                          { b.fail("failed"); runtime.Goexit() }
func (b *backgroundTB) Fatal(args ...any)                 { b.Error(args...); runtime.Goexit() }
func (b *backgroundTB) Fatalf(format string, args ...any) {
	b.Errorf(format, args...)
	runtime.Goexit()
}
func (b *backgroundTB) Skip(args ...any)                 { b.skip(fmt.Sprint(args...)) }
func (b *backgroundTB) Skipf(format string, args ...any) { b.skip(fmt.Sprintf(format, args...)) }
func (b *backgroundTB) SkipNow()                         { b.skip("") }
func (b *backgroundTB) Failed() bool                     { return b.err() != "" }
func (b *backgroundTB) Skipped() bool                    { return b.skipReason() != "" }

func (b *backgroundTB) err() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.errs, "\n")
}

func (b *backgroundTB) skipReason() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.skipped
}
