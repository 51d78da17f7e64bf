package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"time"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// Complete by default.
//
// runtime/pprof cuts debug=2 silently at 64 MiB (gotext.TruncationSize,
// about 36k goroutines of typical depth). A full capture of a
// net/http/pprof target through [OpenDocument] still gives one document
// with every goroutine's id, state and stack:
//
//  1. debug=1 first: per-stack counts from the runtime's concurrent
//     goroutine profile (pauses of microseconds, never truncated). From its
//     stacks the size of debug=2 is estimated (predictDebug2Size).
//  2. When the estimate stays under cutPrediction, debug=2 is fetched and
//     held in memory up to 64 MiB before it is read: a body of exactly
//     64 MiB is the runtime's cut and is dropped unread, so a cut dump is
//     never written. (A body past 64 MiB is not the runtime's cut, and
//     streams on.)
//  3. When the estimate predicts a cut, or the body was cut, the
//     execution-trace snapshot (/debug/pprof/trace, as ModeTrace) gives
//     every goroutine with id, state and stack after one short pause, and
//     debug=1's pprof labels are joined to it by stack
//     (dumper.LabelJoiner).
//  4. Only when the target serves no trace endpoint (404) is the document
//     debug=1 itself (Document.NoTrace): complete counts per stack with
//     their labels, no ids or states (Capture.Missing names them).
//
// A caller that captures the target repeatedly can skip step 1: with
// Options.PreviousDebug2Bytes under skipCountsBelow, debug=2 is fetched
// first; when its body is the runtime's cut, debug=1 is fetched then (for
// the trace's labels, or as the document of last resort) and steps 3–4
// follow.
//
// Source.Capture says how the document was made: Methods lists what was
// fetched ("debug1", "debug2", "trace"), Joined what was joined ("labels
// from debug1"). Every other target kind and mode is read as [Open] streams it.

// cutPrediction is the debug=2 size estimate from which the runtime's
// 64 MiB cut is expected: three quarters of it, since the estimate is
// rough (argument values and wait times vary) and the goroutine count may
// grow between the two fetches.
const cutPrediction = gotext.TruncationSize / 4 * 3

// skipCountsBelow is the previous debug=2 size under which the debug=1
// prefetch is skipped: a quarter of the cut, so the target's goroutines
// would have to grow fourfold between two snapshots to be cut (and a cut
// body is still detected).
const skipCountsBelow = gotext.TruncationSize / 4

// Document is a capture opened by [OpenDocument]: one dump, read like a
// formats.Reader with Next and then Routines, then closed.
type Document struct {
	// URL is what the routines are read from: a URL, or the command run.
	URL string
	// Methods lists what was fetched, in order (Capture.Methods of the
	// document's Source for pprof targets).
	Methods []string
	// Cut is set when debug=2 was (or was predicted to be) cut at 64 MiB,
	// so that the document was made another way.
	Cut bool
	// OverBudget is set when the traceback's predicted pause
	// (FullPredicted) was over Options.MaxPause, so that the document was
	// made another way (the trace snapshot, or the counts).
	OverBudget bool
	// CutOff is set for a pid: target whose consistent snapshot ran past
	// Options.MaxPause: the target was resumed then and read without
	// stopping it.
	CutOff bool
	// NoDetail is set when Options.Detail declined per-goroutine detail:
	// the counts are the document.
	NoDetail bool
	// NoTrace is set when the trace snapshot was wanted in place of a
	// traceback (Cut or OverBudget) and the target serves none (404): the
	// counts are the document, complete per stack, without ids, states or
	// wait times (Capture.Missing names them).
	NoTrace bool
	// Goroutines is the count the counts (debug=1) gave, when fetched.
	Goroutines int64
	// TracebackBytes is the size of their traceback predicted from the
	// counted stacks (0: not counted).
	TracebackBytes int64
	// FullPredicted is the pause a traceback of Goroutines was predicted
	// to cost (0: no prediction was made), and FullError the model's error
	// it was widened by before it was compared with Options.MaxPause
	// (PauseModel.Error).
	FullPredicted time.Duration
	FullError     float64
	// Fallback is the Stream's: why what was asked for first did not give
	// the dump (a JVM without Thread.dump_to_file); empty when it did.
	Fallback string

	mode         Mode
	observed     time.Duration    // debug=2's answer wait
	stall        time.Duration    // a pid: target's stall per goroutine at one instant (pid.go)
	rd           stack.DumpSource // a formats.Reader, or a pid: target's dump
	stream       *Stream          // still open when the reader streams from it
	joiner       *dumper.LabelJoiner
	prepare      func(*stack.Dump)
	dump         *stack.Dump
	release      func() // closes the idle connection of the capture's own client
	fromEndpoint bool
}

// OpenDocument starts a capture of t and returns it as one document to
// read. For a net/http/pprof target in ModeFull it is complete by default
// (the steps above), and within Options.MaxPause when set (budget.go); any
// other capture is [Open]'s stream read by formats.NewReader. ro
// configures the reader; its Table, when nil, is a new one shared by
// every fetch of the capture. Options.Timeout bounds the whole capture,
// and without Options.Client every fetch of it shares one client (one
// connection), released by Close.
func OpenDocument(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) (*Document, error) {
	opts = opts.withDefaults().started()
	if ro.Table == nil {
		ro.Table = stack.NewTable()
	}
	var release func()
	if opts.Client == nil && (t.Kind == TargetPprof || t.Kind == TargetEndpoint) {
		c := NewClient(opts)
		opts.Client, release = c, c.CloseIdleConnections
	}
	doc, err := openDocument(ctx, t, opts, ro)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	doc.release = release
	return doc, nil
}

// budgeted reports whether a full capture with opts counts the goroutines
// first for the pause budget or for the caller.
func (o Options) budgeted() bool {
	return o.Mode == ModeFull && (o.MaxPause > 0 || o.Detail != nil || o.BeforeFull != nil)
}

func openDocument(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) (*Document, error) {
	if t.Kind == TargetPID {
		return openPID(ctx, t, opts, ro)
	}
	budgeted := opts.budgeted()
	if opts.Mode != ModeFull || t.Kind != TargetPprof && !(budgeted && t.Kind == TargetEndpoint) {
		return streamDocument(ctx, t, opts, ro)
	}
	if !budgeted && !t.Discover && opts.PreviousDebug2Bytes > 0 && opts.PreviousDebug2Bytes < skipCountsBelow {
		return openDebug2First(ctx, t, opts, ro)
	}
	counts, err := fetchCounts(ctx, t, opts, ro, budgeted)
	var he *HTTPError
	var notThere *notServedError // a bare base URL without the endpoint, and without debug=1
	switch {
	case errors.As(err, &he) && he.Status/100 == 4:
		// No debug=1 (a proxy that passes debug=2 only): no prediction.
		errors.As(err, &notThere)
		t.Discover, counts = false, nil
	case errors.Is(err, errNotCounts):
		// Something else answered debug=1: debug=2 says what (no prediction).
		t, counts = counts.target, nil
	case err != nil:
		return nil, err
	case counts.target.Kind == TargetEndpoint && !budgeted:
		// Discovery found stackdump's endpoint: it has no 64 MiB cut.
		return streamDocument(ctx, counts.target, opts, ro)
	default:
		t = counts.target
	}
	doc := &Document{mode: ModeFull}
	if counts == nil {
		if opts.MaxPause > 0 {
			// The traceback's pause cannot be predicted: the trace
			// snapshot's does not need a count.
			doc.OverBudget = true
			err := doc.openTrace(ctx, t, opts, ro, nil)
			if err != nil {
				return nil, &sentinelError{
					msg: fmt.Sprintf("the goroutines could not be counted first (debug=1), so a traceback's pause cannot be predicted within the pause budget of %v, and the trace snapshot taken instead failed: %v (Options.MaxPause 0: no bound)", opts.MaxPause, err),
					is:  ErrPauseBudget, err: err}
			}
			return doc, nil
		}
		if err := doc.openDebug2(ctx, t, opts, ro); err != nil {
			if errors.As(err, &he) && he.Status == http.StatusNotFound && notThere != nil {
				notThere.pprof = err // neither the endpoint, nor debug=1, nor debug=2
				return nil, notThere
			}
			return nil, err
		}
		if !doc.Cut {
			return doc, nil
		}
		return doc.replaceCut(ctx, t, opts, ro, nil)
	}
	doc.Methods = append(doc.Methods, string(ModeCounts))
	doc.Goroutines = counts.dump.Total
	doc.TracebackBytes = predictDebug2Size(counts.dump)
	doc.FullPredicted, doc.FullError = opts.Pauses.Predict(doc.TracebackBytes), opts.Pauses.Error()
	if opts.Detail != nil && !opts.Detail(counts.dump) {
		doc.NoDetail = true
		doc.openCounts(counts, ro)
		return doc, nil
	}
	endpoint := t.Kind == TargetEndpoint
	doc.Cut = !endpoint && predictDebug2Size(counts.dump) >= cutPrediction
	doc.OverBudget = opts.MaxPause > 0 && !opts.Pauses.Fits(doc.FullPredicted, opts.MaxPause)
	switch {
	case endpoint && doc.OverBudget:
		return doc, doc.openEndpoint(ctx, t, opts, ro, ModeTrace)
	case endpoint:
		if opts.BeforeFull != nil {
			opts.BeforeFull(doc.FullPredicted, doc.Goroutines)
		}
		return doc, doc.openEndpoint(ctx, t, opts, ro, ModeFull)
	case doc.Cut || doc.OverBudget:
		return doc.replaceCut(ctx, t, opts, ro, counts)
	}
	if opts.BeforeFull != nil {
		opts.BeforeFull(doc.FullPredicted, doc.Goroutines)
	}
	if err := doc.openDebug2(ctx, t, opts, ro); err != nil {
		return nil, err
	}
	if !doc.Cut {
		return doc, nil
	}
	return doc.replaceCut(ctx, t, opts, ro, counts)
}

// openEndpoint opens stackdump's endpoint in mode as the document's
// detail, after the counts.
func (doc *Document) openEndpoint(ctx context.Context, t Target, opts Options, ro formats.ReadOptions, mode Mode) error {
	opts.Mode = mode
	s, err := Open(ctx, t, opts)
	if err != nil {
		return err
	}
	doc.URL, doc.stream, doc.fromEndpoint = s.URL, s, true
	doc.Methods = append(doc.Methods, methodName(mode))
	doc.rd = formats.NewReader(s, ro)
	doc.prepare = doc.recordMethods
	return nil
}

// openDebug2First fetches debug=2 without the debug=1 prediction (the
// target's last debug=2 was small); only when its body is cut is debug=1
// fetched, to join its labels to the trace snapshot that replaces it.
func openDebug2First(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) (*Document, error) {
	doc := &Document{mode: ModeFull}
	d2 := opts
	d2.wholeBody = true // small, and read whole before it is parsed
	if err := doc.openDebug2(ctx, t, d2, ro); err != nil {
		return nil, err
	}
	if !doc.Cut {
		return doc, nil
	}
	counts, err := fetchCounts(ctx, t, opts, ro, false)
	if err != nil || counts.dump == nil {
		counts = nil // no labels to join; the trace is still complete
	} else {
		doc.Methods = append(doc.Methods, string(ModeCounts))
		doc.Goroutines = counts.dump.Total
	}
	return doc.replaceCut(ctx, t, opts, ro, counts)
}

// replaceCut makes the document from the trace snapshot (debug=2 is, or
// is predicted to be, cut, or over the pause budget), or from counts when
// the target serves no trace.
func (doc *Document) replaceCut(ctx context.Context, t Target, opts Options, ro formats.ReadOptions, counts *countsFetch) (*Document, error) {
	err := doc.openTrace(ctx, t, opts, ro, counts)
	var he *HTTPError
	switch {
	case err == nil:
		return doc, nil
	case errors.As(err, &he) && he.Status == http.StatusNotFound && counts != nil:
		doc.NoTrace = true
		doc.openCounts(counts, ro)
		return doc, nil
	}
	if !doc.Cut {
		return nil, fmt.Errorf("a traceback of %d goroutines is predicted to stop the target for %v, over the pause budget of %v, and the trace snapshot that replaces it failed: %w", doc.Goroutines, doc.FullPredicted.Round(time.Microsecond), opts.MaxPause, err)
	}
	return nil, fmt.Errorf("debug=2 is cut at %d MiB for this many goroutines, and the trace snapshot that replaces it failed: %w", gotext.TruncationSize>>20, err)
}

// streamDocument is a document read as Open streams it.
func streamDocument(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) (*Document, error) {
	s, err := Open(ctx, t, opts)
	if err != nil {
		return nil, err
	}
	doc := &Document{URL: s.URL, stream: s, rd: formats.NewReader(s, ro), mode: opts.Mode, Fallback: s.Fallback}
	doc.fromEndpoint = s.Target.Kind == TargetEndpoint
	if s.Target.Kind == TargetPprof {
		doc.Methods = []string{methodName(opts.Mode)}
		if opts.Mode == ModeFull {
			doc.observed = s.answerWait
		}
		doc.prepare = doc.recordMethods
	}
	return doc, nil
}

// countsFetch is debug=1, read whole: its body (to read again as the
// document of last resort) and its dump with routines.
type countsFetch struct {
	target Target // who answered (discovery may find the endpoint)
	url    string
	body   []byte
	dump   *stack.Dump
}

// errNotCounts is fetchCounts' error for a debug=1 answer that holds no
// goroutine profile.
var errNotCounts = errors.New("not a debug=1 goroutine profile")

// fetchCounts fetches and reads debug=1. Its size is that of the distinct
// stacks, not of the goroutines. When the answer holds no profile, the
// error wraps errNotCounts and the countsFetch says who answered.
//
// An answer from stackdump's endpoint is read only when readEndpoint is
// set (the pause budget needs its count); otherwise the endpoint's full
// capture, which has no 64 MiB cut, needs no prediction.
func fetchCounts(ctx context.Context, t Target, opts Options, ro formats.ReadOptions, readEndpoint bool) (*countsFetch, error) {
	opts.Mode, opts.Progress = ModeCounts, nil
	s, err := Open(ctx, t, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	c := &countsFetch{target: s.Target, url: s.URL}
	if c.target.Kind == TargetEndpoint && !readEndpoint {
		return c, nil
	}
	if c.body, err = io.ReadAll(s); err != nil {
		return nil, fmt.Errorf("%s: %w", s.URL, err)
	}
	ds, err := formats.ReadAll(bytes.NewReader(c.body), formats.ReadOptions{Table: ro.Table, Kind: stack.KindGoDebug1})
	if err != nil || len(ds) == 0 {
		return c, fmt.Errorf("%s: %w: %v", s.URL, errNotCounts, err)
	}
	c.dump = ds[0]
	return c, nil
}

// openDebug2 fetches debug=2, held in memory up to 64 MiB, and sets Cut
// when the body is the runtime's cut; otherwise the document reads it.
func (doc *Document) openDebug2(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) error {
	s, err := Open(ctx, t, opts)
	if err != nil {
		return err
	}
	doc.URL = s.URL
	doc.Methods = append(doc.Methods, "debug2")
	doc.observed = s.answerWait
	doc.prepare = doc.recordMethods
	head, err := readHead(s, opts.PreviousDebug2Bytes)
	if err != nil {
		s.Close()
		return fmt.Errorf("%s: %w", s.URL, err)
	}
	switch {
	case len(head) == gotext.TruncationSize:
		s.Close()
		doc.Cut = true
	case len(head) > gotext.TruncationSize: // not the runtime's cut: stream the rest
		doc.stream = s
		doc.rd = formats.NewReader(io.MultiReader(bytes.NewReader(head), s), ro)
	default:
		s.Close()
		doc.rd = formats.NewReaderBytes(head, ro)
	}
	return nil
}

// readHead reads a debug=2 body up to one byte past the runtime's cut
// into memory. previous, the size of the target's last debug=2 (0:
// unknown), sizes the buffer so that a body like the last one is read
// without growing it several times.
func readHead(r io.Reader, previous int64) ([]byte, error) {
	if previous <= 0 {
		return io.ReadAll(io.LimitReader(r, gotext.TruncationSize+1))
	}
	var buf bytes.Buffer
	buf.Grow(int(min(previous+previous/8+bytes.MinRead, gotext.TruncationSize+1)))
	_, err := buf.ReadFrom(io.LimitReader(r, gotext.TruncationSize+1))
	return buf.Bytes(), err
}

// openTrace opens the execution-trace snapshot, with debug=1's labels to
// join when there are counts.
func (doc *Document) openTrace(ctx context.Context, t Target, opts Options, ro formats.ReadOptions, counts *countsFetch) error {
	opts.Mode = ModeTrace
	s, err := Open(ctx, t, opts)
	if err != nil {
		return err
	}
	doc.URL, doc.stream = s.URL, s
	doc.Methods = append(doc.Methods, string(ModeTrace))
	doc.rd = formats.NewReader(s, ro)
	var joined []string
	if counts != nil {
		doc.joiner = dumper.NewLabelJoiner(counts.dump, ro.Table)
		joined = []string{"labels from " + string(ModeCounts)}
	}
	doc.prepare = func(d *stack.Dump) {
		doc.recordMethods(d)
		c := d.Source.Capture
		c.Joined = joined
		if counts != nil {
			c.Missing = slices.DeleteFunc(c.Missing, func(m string) bool { return m == "labels" })
		}
	}
	return nil
}

// openCounts makes debug=1 the document: complete counts per stack, as
// ModeCounts, whether detail was declined (Options.Detail) or could
// not be had (NoTrace). It is not marked truncated: no count is a lower
// bound; Capture.Missing names the per-goroutine fields it lacks.
func (doc *Document) openCounts(counts *countsFetch, ro formats.ReadOptions) {
	doc.URL = counts.url
	doc.rd = formats.NewReaderBytes(counts.body, ro)
	doc.prepare = func(d *stack.Dump) {
		doc.recordMethods(d)
		d.Source.Capture.Missing = []string{"id", "state", "wait_minutes", "locked", "created_by", "parent_id", "args"}
	}
}

// recordMethods records in d's Source how the document was made.
func (doc *Document) recordMethods(d *stack.Dump) {
	c := d.Source.Capture
	if c == nil {
		c = &stack.Capture{}
		d.Source.Capture = c
	}
	c.Mode = string(doc.mode)
	c.Methods = doc.Methods
	// Capture.Goroutines is left as the source set it (none for debug=1
	// or debug=2): debug=1's total, counted before the dump, would stand
	// beside the dump's own total and differ from it.
	c.PausePredicted = 0
	for _, m := range doc.Methods {
		c.PausePredicted = max(c.PausePredicted, methodPause(m, doc.FullPredicted))
	}
	c.PauseObserved = doc.observed
}

// FullPause is what this capture's traceback cost its target, as far as it
// could be seen, for the target's [PauseModel] (PauseModel.Learn): through
// stackdump's endpoint, the pause it measured itself; from net/http/pprof,
// debug=2's answer wait (an upper bound: it includes the round trip and
// the smaller tracebacks net/http/pprof takes while it grows its buffer);
// of a pid: target read at one instant, its stall per goroutine. ok is
// false when the capture took no traceback from counted goroutines, or
// before the dump was read.
func (doc *Document) FullPause() (p FullPause, ok bool) {
	if doc.stall > 0 {
		return FullPause{PerGoroutine: doc.stall, Predicted: doc.FullPredicted, Measured: true}, true
	}
	d := doc.dump
	if d == nil || doc.TracebackBytes <= 0 || !slices.Contains(doc.Methods, "debug2") {
		return FullPause{}, false
	}
	p = FullPause{Bytes: doc.TracebackBytes, Predicted: doc.FullPredicted}
	switch c := d.Source.Capture; {
	case doc.fromEndpoint && c != nil && c.Pause > 0 && c.Mode == string(ModeFull):
		p.Pause, p.Measured = c.Pause, true
	case doc.fromEndpoint, slices.Contains(doc.Methods, "trace"):
		return FullPause{}, false // no measure, or the traceback was cut and its body dropped
	default:
		p.Pause = doc.observed
	}
	return p, p.Pause > 0
}

// methodName names a pprof fetch of mode as Capture.Methods does.
func methodName(m Mode) string {
	switch m {
	case ModeFull:
		return "debug2"
	case ModeGrouped:
		return "debug0"
	case ModeLeak:
		return "goroutineleak"
	}
	return string(m)
}

// Next returns the document's metadata, then io.EOF, as formats.Reader does.
func (doc *Document) Next() (*stack.Dump, error) {
	d, err := doc.rd.Next()
	if err != nil {
		return d, err
	}
	if doc.prepare != nil {
		doc.prepare(d)
	}
	doc.dump = d
	return d, nil
}

// Routines yields the routines of the dump Next returned, with debug=1's
// labels joined when the document is a trace snapshot; a warning naming
// goroutines whose labels stayed unknown comes last.
func (doc *Document) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		for r, err := range doc.rd.Routines() {
			if r != nil && doc.joiner != nil {
				doc.joiner.Apply(r)
			}
			if !yield(r, err) {
				return
			}
		}
		if doc.joiner != nil && doc.dump != nil {
			if w := doc.joiner.Warning(); w != nil {
				doc.dump.Warnings = append(doc.dump.Warnings, w)
				yield(nil, w)
			}
			doc.joiner = nil
		}
	}
}

// Close releases the connection behind the document, if one is still open.
// It fails with ErrTooLarge when reading stopped at Options.MaxBytes, even
// where the reader kept what came before as a cut dump (an execution trace
// cut there reads as one with few or no goroutines).
func (doc *Document) Close() error {
	if doc.release != nil {
		defer doc.release()
		doc.release = nil
	}
	if doc.stream == nil {
		return nil
	}
	s := doc.stream
	doc.stream = nil
	err := s.Close()
	if s.exceeded() {
		return fmt.Errorf("%s: %w (Options.MaxBytes)", s.URL, ErrTooLarge)
	}
	return err
}

// predictDebug2Size estimates the bytes debug=2 takes for the goroutines
// of a debug=1 dump: per goroutine a header line, per frame the function
// with its arguments and the file line with its pc offset, and the creator.
func predictDebug2Size(d *stack.Dump) int64 {
	const header, frameExtra, creator = 48, 40, 120
	var total int64
	for _, r := range d.Routines {
		per := int64(header + creator)
		for _, f := range r.Frames() {
			per += int64(len(f.Func) + len(f.File) + frameExtra)
		}
		total += max(r.Count, 1) * per
	}
	return total
}
