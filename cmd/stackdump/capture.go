package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// captureOptions are the flags of `stackdump capture` (and most of `watch`).
type captureOptions struct {
	targetsFile    string
	concurrency    int
	mode           string
	endpoint       string
	output         string
	format         string
	compress       string
	dedupe         bool
	by             string
	quiet          bool
	timeout        time.Duration
	connectTimeout time.Duration
	retries        int
	maxBytes       int64
	jvmJSON        bool
	leakMax        int
	// maxPause is --max-pause: the longest stop-the-world pause a full
	// capture may cost a Go target (0: no bound).
	maxPause time.Duration
	// filters are watch's --focus and --ignore (capture has none).
	filters filterFlags
}

func (o *captureOptions) addRemoteFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "full", "what to take: full (every goroutine with id, state and stack), trace (the same after one pause of tens of µs: for huge services), grouped (counts per stack, microsecond pauses), leak (Go 1.27+: the goroutines the runtime proves leaked, after a stall of the service, see docs/modes.md), debug1 (counts per stack with their labels, as ?debug=1)")
	f.IntVar(&o.leakMax, "leak-max-goroutines", dumper.DefaultLeakMaxGoroutines, "--mode leak refuses a service with more than `N` goroutines (its stall grows fast with them: about a minute at 100,000); 0: no bound")
	f.StringVar(&o.endpoint, "endpoint", "", "`PATH` of stackdump's endpoint on the targets (found at "+remote.DefaultEndpointPath+" when not given)")
	f.DurationVar(&o.timeout, "timeout", 2*time.Minute, "time limit for the whole capture of a target: every request, retry and body (must be positive)")
	f.DurationVar(&o.connectTimeout, "connect-timeout", 5*time.Second, "time limit for connecting (must be positive)")
	f.IntVar(&o.retries, "retries", 2, "retries on connection errors and 5xx answers (never on 4xx); 0: one attempt only")
	f.Int64Var(&o.maxBytes, "max-bytes", 2<<30, "largest dump accepted, in bytes (must be positive)")
	f.BoolVar(&o.dedupe, "dedupe", false, "write counted groups of identical stacks")
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.format, "format", "", "output format: text, json, debug1, pprof or folded (default from -o; json in a directory)")
	f.StringVar(&o.compress, "compress", "", "compression: none, gzip or zstd (default from -o; gzip in a directory)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress display and no summary")
	f.BoolVar(&o.jvmJSON, "jvm-json", false, "JVM targets: the JSON thread dump of JDK 21+ (virtual threads included); older JDKs give the text dump, said on standard error")
}

// check refuses flag values with no meaning: --concurrency 0 or below
// used to run one target at a time without a word, and a --timeout,
// --connect-timeout or --max-bytes of 0 or below meant its default
// (remote.Options' zero value) without a word.
func (o captureOptions) check() error {
	switch {
	case o.concurrency < 1:
		return errors.New("--concurrency must be at least 1")
	case o.timeout <= 0:
		return fmt.Errorf("--timeout must be positive (got %v)", o.timeout)
	case o.connectTimeout <= 0:
		return fmt.Errorf("--connect-timeout must be positive (got %v)", o.connectTimeout)
	case o.maxBytes <= 0:
		return fmt.Errorf("--max-bytes must be a positive number of bytes (got %d)", o.maxBytes)
	case o.maxPause < 0 || o.maxPause > 0 && o.maxPause < minMaxPause:
		return fmt.Errorf("--max-pause must be 0 (no bound) or at least %v (got %v): the cheapest capture, which counts the goroutines, stops the target's world for up to %v itself", minMaxPause, o.maxPause, remote.CountsPause)
	}
	return nil
}

// minMaxPause is the smallest --max-pause: the counts every budgeted
// capture takes first stop the world for up to remote.CountsPause.
const minMaxPause = time.Millisecond

// fullPauseWarning is the predicted pause above which capture warns before
// a full capture, and names trace mode.
const fullPauseWarning = time.Second

// addMaxPauseFlag adds --max-pause with its command's default.
func (o *captureOptions) addMaxPauseFlag(cmd *cobra.Command, def time.Duration, what string) {
	cmd.Flags().DurationVar(&o.maxPause, "max-pause", def, "longest a capture may stop a Go service: a full traceback only when its pause, learned from this target's earlier captures (counted first), fits; else the cheaper snapshot of --mode trace, or the counts from a target without it; "+what)
}

func (o captureOptions) remoteOptions() (remote.Options, error) {
	mode, err := remote.ParseMode(o.mode)
	if err != nil {
		return remote.Options{}, err
	}
	retries := o.retries
	if retries <= 0 {
		retries = -1 // remote.Options.Retries: zero is the default, negative none
	}
	leakMax := o.leakMax
	if leakMax <= 0 {
		leakMax = -1 // remote.Options.LeakMaxGoroutines: zero is the default, negative no bound
	}
	return remote.Options{
		Mode:              mode,
		LeakMaxGoroutines: leakMax,
		Endpoint:          o.endpoint,
		Timeout:           o.timeout,
		ConnectTimeout:    o.connectTimeout,
		Retries:           retries,
		MaxBytes:          o.maxBytes,
		JVMJSON:           o.jvmJSON,
		MaxPause:          o.maxPause,
	}, nil
}

func newCaptureCommand() *cobra.Command {
	var o captureOptions
	cmd := &cobra.Command{
		Use: "capture TARGET... [-o FILE|DIR/]",
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("by") {
				o.dedupe = true
			}
			return runCapture(cmd, args, o)
		},
	}
	setHelp(cmd, captureHelp)
	o.addRemoteFlags(cmd)
	o.addMaxPauseFlag(cmd, 0, "0: no bound (one expected over 1s is warned about)")
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE`, or one file per target into DIR/ (default standard output)")
	f.StringVar(&o.targetsFile, "targets", "", "read targets from `FILE`, one per line (# comments allowed)")
	f.IntVar(&o.concurrency, "concurrency", 8, "targets captured at once")
	return cmd
}

// captureJob is one target's capture and where it goes.
type captureJob struct {
	target remote.Target
	ropts  remote.Options
	pipe   pipeline
	comp   output.Compression
	path   string    // "" for stdout
	stdout io.Writer // used when path is ""
	stderr io.Writer
	// announce says on stderr, before a full capture predicted over
	// fullPauseWarning, what it will cost, and after one replaced by the
	// pause budget what replaced it (capture; watch says it in its table).
	announce bool
	// Progress counters, read by the progress display; written counts
	// the bytes of the output (compressed), for the summary.
	received atomic.Int64
	written  atomic.Int64
	routines atomic.Int64
	done     atomic.Bool
}

// captureResult is what one target gave.
type captureResult struct {
	job   *captureJob
	dumps []dumpResult
	// recovered is always nil: captures are one complete document now
	// (remote.OpenDocument). Kept until watch and the summary drop it.
	recovered *dumpResult
	elapsed   time.Duration
	err       error
	// fullPause is what the capture's traceback cost, for the target's
	// pause model (remote.Document.FullPause); hasFullPause is false when
	// no traceback of counted goroutines was taken.
	fullPause    remote.FullPause
	hasFullPause bool
	// overBudget: the traceback was predicted over --max-pause and
	// replaced; noDetail: the counts were the snapshot (watch's Detail);
	// noTrace: the counts replaced the traceback, the target serving no
	// trace snapshot.
	overBudget, noDetail, noTrace bool
	// fullPredicted is the traceback's predicted pause (0: none made),
	// for goroutines counted first (0: not counted), and fullError the
	// model's error it was widened by (remote.PauseModel.Error).
	fullPredicted time.Duration
	fullError     float64
	goroutines    int64
}

func runCapture(cmd *cobra.Command, args []string, o captureOptions) error {
	raw, err := targetList(args, o)
	if err != nil {
		return err
	}
	jobs, err := planCaptures(cmd, raw, o)
	if err != nil {
		return err
	}
	if !o.quiet {
		// The summary says what analyze finds in each capture.
		for _, job := range jobs {
			job.pipe.analysis = &analyze.Options{}
		}
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()
	prog := newProgress(cmd.ErrOrStderr(), jobs, o.quiet)
	results := captureAll(ctx, jobs, o.concurrency)
	prog.stop()

	failed := 0
	summaryTo := cmd.OutOrStdout()
	if jobs[0].path == "" {
		summaryTo = cmd.ErrOrStderr() // the dump itself is on stdout
	}
	interrupted := ctx.Err() != nil
	for _, r := range results {
		if r.err != nil {
			failed++
			if !interrupted { // the interrupt ended them: said once below
				fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: %s: %s\n", r.job.target, cliMessage(r.err))
			}
			continue
		}
		if !o.quiet {
			writeCaptureSummary(summaryTo, r)
		}
	}
	if interrupted {
		// main exits 130 or 143; no partial file was published.
		msg := "interrupted"
		if len(jobs) > 1 {
			msg = fmt.Sprintf("interrupted: %d of %s captured", len(jobs)-failed, words.Count(len(jobs), "target"))
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "stackdump:", msg)
		return exitError{code: 1}
	}
	if failed > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d of %s failed", failed, words.Count(len(jobs), "target"))}
	}
	return nil
}

// planCaptures parses the targets and settles each one's output.
func planCaptures(cmd *cobra.Command, raw []string, o captureOptions) ([]*captureJob, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	ropts, err := o.remoteOptions()
	if err != nil {
		return nil, err
	}
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return nil, err
	}
	flt, err := o.filters.filter()
	if err != nil {
		return nil, err
	}
	dirMode := strings.HasSuffix(o.output, "/") || isDir(o.output)
	if len(raw) > 1 && !dirMode {
		return nil, fmt.Errorf("%d targets need a directory: -o DIR/", len(raw))
	}
	formatPath := o.output
	if dirMode {
		formatPath = ""
	}
	format, comp, err := output.For(formatPath, output.Options{Format: output.Format(o.format), Compression: output.Compression(o.compress)})
	if err != nil {
		return nil, err
	}
	if dirMode && o.format == "" {
		format = output.JSON
	}
	if dirMode && o.compress == "" {
		comp = output.Gzip
	}
	now := time.Now().UTC()
	names := map[string]bool{}
	var jobs []*captureJob
	for _, s := range raw {
		t, err := parseTarget(s, o.endpoint)
		if err != nil {
			return nil, err
		}
		job := &captureJob{
			target:   t,
			ropts:    ropts,
			comp:     comp,
			path:     o.output,
			stdout:   cmd.OutOrStdout(),
			stderr:   cmd.ErrOrStderr(),
			pipe:     pipeline{format: format, grouped: o.dedupe, by: by, summarize: true, filter: flt},
			announce: true,
		}
		if err := job.pipe.check(); err != nil {
			return nil, err
		}
		if o.output == "-" {
			job.path = ""
		}
		if dirMode {
			job.path = filepath.Join(o.output, uniqueName(names, snapshotName(t, now, format, comp), output.Extension(format, comp)))
		}
		jobs = append(jobs, job)
	}
	// The directory is made once every target is known good: a bad
	// line in --targets leaves nothing behind.
	if dirMode {
		if err := os.MkdirAll(o.output, 0o755); err != nil {
			return nil, err
		}
	}
	for _, job := range jobs {
		// An output that cannot be written is reported before any
		// capture pauses a target for a dump that cannot be saved.
		if err := checkOutput(job.path); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// captureAll runs jobs with at most n at once and returns their results in
// the jobs' order.
func captureAll(ctx context.Context, jobs []*captureJob, n int) []captureResult {
	results := make([]captureResult, len(jobs))
	sem := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = captureTarget(ctx, job)
		}()
	}
	wg.Wait()
	return results
}

// captureTarget streams one target's capture into its output: one
// document, complete by default (remote.OpenDocument: a net/http/pprof
// dump the runtime would cut at 64 MiB is taken from an execution-trace
// snapshot instead).
func captureTarget(ctx context.Context, job *captureJob) (res captureResult) {
	start := time.Now()
	res.job = job
	defer func() {
		res.elapsed = time.Since(start)
		job.done.Store(true)
	}()
	ropts := job.ropts
	ropts.Progress = job.received.Store
	pipe := job.pipe
	pipe.routines = &job.routines
	pipe.source = func(src *stack.Source) {
		src.Target = job.target.String()
		if src.CapturedAt.IsZero() {
			src.CapturedAt = start.UTC()
		}
	}
	pipe.onWarning = func(pe *stack.ParseError) {
		fmt.Fprintf(job.stderr, "stackdump: warning: %s: %v\n", job.target, pe)
	}
	if job.announce && ropts.Mode == remote.ModeFull {
		ropts.BeforeFull = func(predicted time.Duration, goroutines int64) {
			if predicted <= fullPauseWarning {
				return
			}
			cost := fmt.Sprintf("at %v per KiB of traceback, the cost before any was measured", remote.PriorFullCostPerKiB)
			if n := ropts.Pauses.Measured(); n > 0 {
				cost = fmt.Sprintf("at %v per KiB of traceback, as measured", ropts.Pauses.CostPerKiB())
			}
			if job.target.Kind == remote.TargetPID {
				fmt.Fprintf(job.stderr, "stackdump: %s: warning: a consistent snapshot of %s is predicted to stop the process for about %v; taking it. --max-pause D reads it without stopping it whenever the snapshot is predicted over D\n",
					job.target, words.Count(goroutines, "goroutine"), predicted.Round(10*time.Millisecond))
				return
			}
			fmt.Fprintf(job.stderr, "stackdump: %s: warning: a full capture of %s is predicted to stop the target for about %v (%s); taking it. --mode trace takes every goroutine's id, state and stack after one pause of tens of µs instead; --max-pause D takes the trace snapshot whenever the traceback is predicted over D\n",
				job.target, words.Count(goroutines, "goroutine"), predicted.Round(10*time.Millisecond), cost)
		}
	}
	res.err = writeToCounting(job.path, job.stdout, job.comp, &job.written, func(w io.Writer) error {
		doc, err := remote.OpenDocument(ctx, job.target, ropts, formats.ReadOptions{ReuseRoutines: true})
		if err != nil {
			return err
		}
		defer doc.Close()
		res.overBudget, res.noDetail, res.noTrace = doc.OverBudget, doc.NoDetail, doc.NoTrace
		res.fullPredicted, res.fullError, res.goroutines = doc.FullPredicted, doc.FullError, doc.Goroutines
		if doc.Fallback != "" && job.announce {
			fmt.Fprintf(job.stderr, "stackdump: %s: %s; wrote `%s` instead\n", job.target, cliFallback(doc.Fallback), doc.URL)
		}
		if doc.OverBudget && job.announce {
			how := "every goroutine from the execution-trace snapshot " + doc.URL
			switch {
			case job.target.Kind == remote.TargetPID:
				how = "every goroutine read from its memory without stopping it (each consistent in itself, not all at one instant)"
			case !slices.Contains(doc.Methods, string(remote.ModeTrace)):
				how = "complete counts per stack from " + doc.URL + " (the target serves no /debug/pprof/trace)"
			}
			fmt.Fprintf(job.stderr, "stackdump: %s: %s; writing %s instead\n", job.target, overBudgetWhy(doc.Goroutines, doc.FullPredicted, doc.FullError, "", ropts.MaxPause, false), how)
		}
		if doc.CutOff && job.announce {
			fmt.Fprintf(job.stderr, "stackdump: %s: the consistent snapshot ran past --max-pause %v and was cut off there (the process was stopped at most that long); writing every goroutine read from its memory without stopping it (each consistent in itself, not all at one instant) instead\n", job.target, ropts.MaxPause)
		}
		if doc.Cut {
			how := "every goroutine from the execution-trace snapshot " + doc.URL
			if !slices.Contains(doc.Methods, string(remote.ModeTrace)) {
				how = "complete counts per stack from " + doc.URL + " (the target serves no /debug/pprof/trace)"
			}
			fmt.Fprintf(job.stderr, "stackdump: %s: debug=2 is cut at %d MiB for this many goroutines; writing %s instead\n",
				job.target, gotext.TruncationSize>>20, how)
		}
		res.dumps, err = pipe.run(doc, w)
		if err != nil {
			return fmt.Errorf("%s: %w", doc.URL, err)
		}
		res.fullPause, res.hasFullPause = doc.FullPause()
		return doc.Close()
	})
	return res
}

// overBudgetWhy says why a traceback was not taken under the pause budget
// maxPause: its pause, predicted for n goroutines at cost (what the
// prediction was made from; "" says nothing of it) and widened by the
// pause model's error (1: none), or no count at all (n == 0). short
// rounds the prediction as watch's table does.
func overBudgetWhy(n int64, predicted time.Duration, modelError float64, cost string, maxPause time.Duration, short bool) string {
	if n == 0 {
		return fmt.Sprintf("the goroutines could not be counted first (debug=1), so a traceback's pause cannot be predicted within --max-pause %v", maxPause)
	}
	var b strings.Builder
	if short {
		fmt.Fprintf(&b, "a full capture of %s is predicted to pause ≈%v", words.Count(n, "goroutine"), roundPause(predicted))
	} else {
		fmt.Fprintf(&b, "a full capture of %s is predicted to stop the target for about %v", words.Count(n, "goroutine"), predicted.Round(time.Millisecond))
	}
	if cost != "" {
		fmt.Fprintf(&b, " (at %s)", cost)
	}
	if modelError > 1 {
		fmt.Fprintf(&b, ", ×%.1f for the model's error on this target's last tracebacks", modelError)
	}
	fmt.Fprintf(&b, ", over --max-pause %v", maxPause)
	return b.String()
}

// uniqueName returns name, or name with "-2", "-3"… before its extension
// ext when used already holds it: targets on one host (two paths, or one
// target given twice) would otherwise write the same file, the last
// overwriting the others.
func uniqueName(used map[string]bool, name, ext string) string {
	unique := name
	for n := 2; used[unique]; n++ {
		unique = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), n, ext)
	}
	used[unique] = true
	return unique
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// snapshotName names a target's file in a directory: target, UTC time and
// the format's extension, e.g. 10.0.0.5_6060-20261130T101500Z.json.gz.
func snapshotName(t remote.Target, at time.Time, f output.Format, c output.Compression) string {
	name := t.Raw
	switch {
	case t.URL != nil:
		name = t.URL.Host
	case t.Kind == remote.TargetGops && t.Addr != "":
		name = "gops-" + t.Addr
	case t.Kind == remote.TargetGops:
		name = "gops-pid" + strconv.Itoa(t.PID)
	}
	name = strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
	return name + "-" + at.Format("20060102T150405.000Z") + output.Extension(f, c)
}

// targetList is the targets given as arguments followed by those of
// --targets FILE; none is an error.
func targetList(args []string, o captureOptions) ([]string, error) {
	raw := append([]string(nil), args...)
	if o.targetsFile != "" {
		more, err := readTargetsFile(o.targetsFile, o.endpoint)
		if err != nil {
			return nil, err
		}
		raw = append(raw, more...)
	}
	if len(raw) == 0 {
		return nil, errors.New("no target: give TARGET arguments or --targets FILE")
	}
	return raw, nil
}

// readTargetsFile reads --targets FILE: one target a line, # comments
// and blank lines skipped. Each target is parsed (with --endpoint's
// path) as it is read, so that a bad one is reported with its line
// number, before anything is captured or created.
func readTargetsFile(path, endpoint string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if _, err := parseTarget(line, endpoint); err != nil {
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
