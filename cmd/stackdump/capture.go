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
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/zseg"
	"github.com/stackdump/stackdump/remote"

	"github.com/stackdump/stackdump/internal/words"
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
}

func (o *captureOptions) addRemoteFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "full", "what to fetch: full (debug=2, every goroutine), grouped (debug=0 counts and labels), trace (execution-trace snapshot)")
	f.StringVar(&o.endpoint, "endpoint", "", "`PATH` of stackdump's endpoint on the targets (found at "+remote.DefaultEndpointPath+" when not given)")
	f.DurationVar(&o.timeout, "timeout", 2*time.Minute, "time limit for one capture attempt, body included")
	f.DurationVar(&o.connectTimeout, "connect-timeout", 5*time.Second, "time limit for connecting")
	f.IntVar(&o.retries, "retries", 2, "retries on connection errors and 5xx answers (never on 4xx)")
	f.Int64Var(&o.maxBytes, "max-bytes", 2<<30, "largest dump accepted, in bytes")
	f.BoolVar(&o.dedupe, "dedupe", false, "write counted groups of identical stacks")
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.format, "format", "", "output format: text, json, debug1, pprof or folded (default from -o; json in a directory)")
	f.StringVar(&o.compress, "compress", "", "compression: none, gzip or zstd (default from -o; gzip in a directory)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress display and no summary")
	f.BoolVar(&o.jvmJSON, "jvm-json", false, "JVM targets: jcmd Thread.dump_to_file -format=json (JDK 21+, virtual threads), else Thread.print")
}

func (o captureOptions) remoteOptions() (remote.Options, error) {
	mode, err := remote.ParseMode(o.mode)
	if err != nil {
		return remote.Options{}, err
	}
	return remote.Options{
		Mode:           mode,
		Endpoint:       o.endpoint,
		Timeout:        o.timeout,
		ConnectTimeout: o.connectTimeout,
		Retries:        max(o.retries, -1),
		MaxBytes:       o.maxBytes,
		JVMJSON:        o.jvmJSON,
	}, nil
}

func newCaptureCommand() *cobra.Command {
	var o captureOptions
	cmd := &cobra.Command{
		Use:   "capture TARGET... [-o FILE|DIR/]",
		Short: "Dump the goroutines or threads of live processes to files",
		Long: `capture fetches dumps from live processes and writes them to a file, one file
per target in a directory, or standard output. Targets:

  http://host:port          net/http/pprof (/debug/pprof/goroutine is appended),
                            or stackdump's endpoint when the service mounts it
  http://host:port/path     that URL (a pprof goroutine URL or the endpoint)
  host:port                 like http://host:port
  gops://host:port          a gops agent
  jvm:PID                   a JVM on this machine, through jcmd or jstack

Several targets are captured concurrently; a failing target is reported and
the others complete; the exit status is 1 when any failed. Bodies stream
straight through reader and writer. When a debug=2 dump was cut at the
runtime's 64 MiB limit, capture fetches debug=1 as well and writes complete
per-group counts joined with the ids and states the truncated dump gave.`,
		Example: `  stackdump capture localhost:6060 -o dump.json.gz
  stackdump capture http://10.0.0.5:6060 http://10.0.0.6:6060 -o dumps/
  stackdump capture --targets hosts.txt --concurrency 16 --dedupe -o dumps/
  stackdump capture jvm:4242 -o threads.txt
  stackdump capture --mode trace localhost:6060 -o snapshot.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("by") {
				o.dedupe = true
			}
			return runCapture(cmd, args, o)
		},
	}
	o.addRemoteFlags(cmd)
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
	comp   formats.Compression
	path   string    // "" for stdout
	stdout io.Writer // used when path is ""
	stderr io.Writer
	// Progress counters, read by the progress display.
	received atomic.Int64
	routines atomic.Int64
	done     atomic.Bool
}

// captureResult is what one target gave.
type captureResult struct {
	job       *captureJob
	dumps     []dumpResult
	recovered *dumpResult // complete counts after a truncated debug=2
	elapsed   time.Duration
	err       error
}

func runCapture(cmd *cobra.Command, args []string, o captureOptions) error {
	raw := append([]string(nil), args...)
	if o.targetsFile != "" {
		more, err := readTargetsFile(o.targetsFile)
		if err != nil {
			return err
		}
		raw = append(raw, more...)
	}
	if len(raw) == 0 {
		return errors.New("no target: give TARGET arguments or --targets FILE")
	}
	jobs, err := planCaptures(cmd, raw, o)
	if err != nil {
		return err
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
	for _, r := range results {
		if r.err != nil {
			failed++
			fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: %s: %v\n", r.job.target, r.err)
			continue
		}
		if !o.quiet {
			writeCaptureSummary(summaryTo, r)
		}
	}
	if failed > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d of %s failed", failed, words.Count(len(jobs), "target"))}
	}
	return nil
}

// planCaptures parses the targets and settles each one's output.
func planCaptures(cmd *cobra.Command, raw []string, o captureOptions) ([]*captureJob, error) {
	ropts, err := o.remoteOptions()
	if err != nil {
		return nil, err
	}
	by, err := dedupe.ParseBy(o.by)
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
		if err := os.MkdirAll(o.output, 0o755); err != nil {
			return nil, err
		}
	}
	format, comp, err := formats.OutputFor(formatPath, o.format, o.compress)
	if err != nil {
		return nil, err
	}
	if dirMode && o.format == "" {
		format = formats.FormatJSON
	}
	if dirMode && o.compress == "" {
		comp = formats.CompressGzip
	}
	now := time.Now().UTC()
	names := map[string]bool{}
	var jobs []*captureJob
	for _, s := range raw {
		t, err := remote.ParseTarget(s, o.endpoint)
		if err != nil {
			return nil, err
		}
		job := &captureJob{
			target: t,
			ropts:  ropts,
			comp:   comp,
			path:   o.output,
			stdout: cmd.OutOrStdout(),
			stderr: cmd.ErrOrStderr(),
			pipe:   pipeline{format: format, grouped: o.dedupe, by: by, summarize: true},
		}
		if err := job.pipe.check(); err != nil {
			return nil, err
		}
		if o.output == "-" {
			job.path = ""
		}
		if dirMode {
			job.path = filepath.Join(o.output, uniqueName(names, snapshotName(t, now, format, comp), formats.Extension(format, comp)))
		}
		jobs = append(jobs, job)
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

// captureTarget streams one target's dump into its output, then recovers
// complete counts if the dump was truncated.
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
	pipe.source = func(src *formats.Source) {
		src.Target = job.target.String()
		if src.CapturedAt.IsZero() {
			src.CapturedAt = start.UTC()
		}
	}
	pipe.onWarning = func(pe *formats.ParseError) {
		fmt.Fprintf(job.stderr, "stackdump: warning: %s: %v\n", job.target, pe)
	}
	res.err = writeTo(job.path, job.stdout, job.comp, func(w io.Writer) error {
		s, err := remote.Open(ctx, job.target, ropts)
		if err != nil {
			return err
		}
		defer s.Close()
		rd := formats.NewReader(s, formats.ReadOptions{ReuseRoutines: true})
		res.dumps, err = pipe.run(rd, w)
		if err != nil {
			return fmt.Errorf("%s: %w", s.URL, err)
		}
		if err := s.Close(); err != nil {
			return err
		}
		last := res.dumps[len(res.dumps)-1]
		if !last.dump.Truncated || ropts.Mode != remote.ModeFull || job.target.Kind != remote.TargetPprof {
			return nil
		}
		rec, err := recoverCounts(ctx, job.target, ropts, last)
		if err != nil {
			fmt.Fprintf(job.stderr, "stackdump: %s: the dump was truncated and recovering complete counts failed: %v\n", job.target, err)
			return nil
		}
		res.recovered = rec
		fmt.Fprintf(job.stderr, "stackdump: %s: debug=2 was truncated after %s; complete counts (%s in %s) recovered from debug=1 and written after it\n",
			job.target, words.Count(last.dump.Total, "goroutine"), words.Count(rec.dump.Total, "goroutine"), words.Count(len(rec.groups), "group"))
		return formats.WriteGroups(w, groupedFormat(pipe.format), rec.dump, rec.groups)
	})
	return res
}

// groupedFormat is the format recovered groups are written in: the
// output's own when it has a grouped form, else JSON.
func groupedFormat(f formats.Format) formats.Format {
	switch f {
	case formats.FormatText, formats.FormatJSON, formats.FormatDebug1:
		return f
	}
	return formats.FormatJSON
}

// recoverCounts fetches debug=1, which the runtime never truncates, and
// joins its complete per-stack counts with the ids, states and samples
// of the truncated debug=2 dump's groups.
func recoverCounts(ctx context.Context, t remote.Target, ropts remote.Options, cut dumpResult) (*dumpResult, error) {
	ropts.Mode = remote.ModeCounts
	ropts.Progress = nil
	s, err := remote.Open(ctx, t, ropts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	d, groups, err := dedupe.GroupNext(formats.NewReader(s, formats.ReadOptions{ReuseRoutines: true}), dedupe.Options{By: dedupe.ByStack}, nil)
	if err != nil {
		return nil, err
	}
	note := "ids and states are those the truncated dump gave"
	if cut.by == dedupe.ByStack {
		joinCounts(groups, cut.groups)
	} else {
		note = "ids and states are not joined: the truncated dump was grouped --by " + cut.by.String()
	}
	d.Source = cut.dump.Source
	d.Preamble = cut.dump.Preamble
	d.Warnings = append(d.Warnings, &formats.ParseError{Msg: fmt.Sprintf(
		"debug=2 was truncated after %s; counts are complete (from debug=1); %s", words.Count(cut.dump.Total, "goroutine"), note)})
	return &dumpResult{dump: d, groups: groups}, nil
}

// joinCounts copies what only the full dump knows (ids, states, waits,
// creators, the sample with its arguments) into the complete groups with
// the same key, keeping the complete counts.
func joinCounts(complete, cut []*formats.Group) {
	byKey := make(map[string]*formats.Group, len(cut))
	for _, g := range cut {
		byKey[g.Key] = g
	}
	for _, g := range complete {
		c := byKey[g.Key]
		if c == nil {
			continue
		}
		g.IDs, g.MoreIDs = c.IDs, g.Count-int64(len(c.IDs))
		g.States, g.WaitMin, g.WaitMax, g.Locked = c.States, c.WaitMin, c.WaitMax, c.Locked
		g.ParentIDs = c.ParentIDs
		if c.Sample != nil {
			g.Sample = c.Sample
		}
	}
}

// writeTo runs write against an atomically written file, or w when path
// is empty, through one large buffer and compression comp, compressed on
// every CPU (a dump is a file to keep: gzip at its default level).
func writeTo(path string, w io.Writer, comp formats.Compression, write func(io.Writer) error) error {
	if path == "" {
		out, err := newOutput(w, comp)
		if err != nil {
			return err
		}
		if err := write(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	f, err := dumper.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	out, err := newOutput(f, comp)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// newOutput returns the buffered output, compressed with comp, a command
// writes to w.
func newOutput(w io.Writer, comp formats.Compression) (io.WriteCloser, error) {
	return zseg.NewOutput(w, zseg.Options{Compression: comp}, runtime.GOMAXPROCS(0))
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
func snapshotName(t remote.Target, at time.Time, f formats.Format, c formats.Compression) string {
	name := t.Raw
	switch {
	case t.URL != nil:
		name = t.URL.Host
	case t.Kind == remote.TargetGops:
		name = "gops-" + t.Addr
	}
	name = strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
	return name + "-" + at.Format("20060102T150405.000Z") + formats.Extension(f, c)
}

func readTargetsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
