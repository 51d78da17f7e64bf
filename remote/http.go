package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/stack"
)

// Mode selects what a capture asks the target for. It is dumper.Mode, the
// module's one capture-mode type: a mode means the same in a process
// (dumper) and from outside it (remote), and remote adds ModeCounts.
type Mode = dumper.Mode

// Capture modes.
const (
	// ModeFull is every goroutine: debug=2 (or the endpoint's full mode);
	// OpenDocument makes it complete past the runtime's 64 MiB cut.
	ModeFull = dumper.ModeFull
	// ModeGrouped is counts and labels: debug=0 protobuf.
	ModeGrouped = dumper.ModeGrouped
	// ModeTrace is an execution-trace snapshot: /debug/pprof/trace?seconds=….
	ModeTrace = dumper.ModeTrace
	// ModeLeak fetches Go 1.27's goroutine leak profile at debug=2
	// (/debug/pprof/goroutineleak, or mode=leak on the endpoint): every
	// goroutine, those proven leaked by a GC cycle marked `(leaked)`. The
	// target runs a GC cycle, so a target with more goroutines than
	// Options.LeakMaxGoroutines is refused first (leak_guard.go). A target
	// without the profile answers 404, reported as ErrNoLeakProfile.
	ModeLeak = dumper.ModeLeak
	// ModeCounts fetches debug=1: per-stack counts of every goroutine, never
	// truncated; OpenDocument fetches it first to predict debug=2's 64 MiB cut.
	ModeCounts Mode = "debug1"
)

// ParseMode parses a mode name as dumper.ParseMode does, in any case,
// and ModeCounts's; "" means ModeFull.
func ParseMode(s string) (Mode, error) {
	if strings.EqualFold(s, string(ModeCounts)) {
		return ModeCounts, nil
	}
	if m, err := dumper.ParseMode(s); err == nil {
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want full, grouped, trace, leak or debug1)", s)
}

// DefaultEndpointPath is where stackdump's endpoint is looked for when a
// target is a bare base URL: where dumper.Register mounts it.
const DefaultEndpointPath = dumper.EndpointPath

// Options configure a capture. The zero value is usable: a zero field
// means its default, as each field says (and so does a negative duration
// or size, which would bound nothing).
type Options struct {
	Mode Mode // "": ModeFull
	// Endpoint is the path of stackdump's endpoint on the target, when known.
	Endpoint string
	// ConnectTimeout bounds dialing (0: 5s). Timeout bounds the whole
	// capture of the target (0: 2m): every request an [Open] or
	// an [OpenDocument] makes (the endpoint probe, debug=1, debug=2, the
	// trace snapshot), every retry and backoff, and reading the bodies. A
	// target that does not answer fails once Timeout has passed, not after
	// Timeout per attempt.
	ConnectTimeout time.Duration
	Timeout        time.Duration
	// Retries is how many times a connection error or a 5xx answer is
	// retried (0: 2; negative: none), within Timeout; the final error
	// gives each attempt's reason. A request that got no answer within
	// Timeout is not retried (Timeout is spent), nor are 4xx answers and
	// redirect loops, nor a failure once the body has started streaming (a
	// reset or stall mid-body): the error then comes from reading the
	// Stream.
	Retries int
	// Backoff is the first retry's delay; it doubles each time (0: 250ms).
	Backoff time.Duration
	// MaxBytes bounds the body (0: 2 GiB): past it reading fails with
	// ErrTooLarge.
	MaxBytes int64
	// ReadAhead is how many bytes the pump buffers ahead of the reader
	// (0: 16 MiB).
	ReadAhead int
	// TraceWindow is the trace mode's window (0: 1ms).
	TraceWindow time.Duration
	// LeakMaxGoroutines bounds the goroutines of a net/http/pprof target
	// that a ModeLeak capture accepts: debug=1 is fetched first, and with
	// more goroutines than this the capture fails with a
	// *dumper.LeakBoundError before goroutineleak is requested (its GC
	// cycle stalls big targets for up to minutes; leak_guard.go). Zero
	// means dumper.DefaultLeakMaxGoroutines; negative means no bound (and
	// no count). Through stackdump's endpoint its own bound applies.
	LeakMaxGoroutines int
	// JVMJSON asks JVM targets for `jcmd PID Thread.dump_to_file -format=json`
	// (JDK 21+: virtual threads and thread containers included), falling
	// back to Thread.print when the JVM does not know the command.
	JVMJSON bool
	// Client, when set, is used instead of one built from the timeouts
	// (see NewClient). Captures that share a client reuse its kept-alive
	// connections: a target watched every few seconds then sees one
	// connection, not one per capture.
	Client *http.Client
	// Resolved, when set, is called with the target a bare base URL turned
	// out to be (the endpoint, or net/http/pprof when the endpoint answered
	// 404) once the probe has settled it. Passing that target to later
	// captures skips the probe.
	Resolved func(Target)
	// Progress, when set, is called as bytes arrive with the running total.
	Progress func(received int64)
	// PreviousDebug2Bytes is the size of the target's last debug=2 body
	// (0: unknown), as a caller capturing it repeatedly (watch) knows. A
	// full capture of a net/http/pprof target whose last debug=2 was far
	// below the 64 MiB cut (under a quarter of it) fetches debug=2 alone,
	// without the debug=1 prefetch that predicts the cut; a body cut
	// anyway is still detected and replaced (see [OpenDocument]).
	PreviousDebug2Bytes int64

	// MaxPause bounds the stop-the-world pause a full capture (ModeFull)
	// of a net/http/pprof target or stackdump's endpoint may cost it (0:
	// no bound). Its goroutines are counted first (debug=1: pauses of
	// microseconds); the traceback's pause is predicted from the counted
	// stacks by Pauses (budget.go), and when it is over MaxPause the
	// execution-trace snapshot is taken instead (one pause of tens of µs),
	// or, from a target that serves no trace, the counts alone.
	MaxPause time.Duration
	// Pauses is the target's pause model, taught by its earlier
	// tracebacks (Document.FullPause); nil predicts from the prior.
	Pauses *PauseModel
	// Detail, when set, is called in a full capture with the counts
	// (debug=1) before any per-goroutine detail is fetched, and says
	// whether detail is wanted: false makes the counts the document
	// (watch's cheap rounds). Setting it also makes the counts come first
	// whatever PreviousDebug2Bytes says.
	Detail func(counts *stack.Dump) bool
	// BeforeFull, when set, is called just before the stop-the-world
	// traceback of a full capture is requested, with its predicted pause
	// and the goroutine count it was predicted from (capture warns of a
	// pause over a second).
	BeforeFull func(predicted time.Duration, goroutines int64)

	// probe is set for the endpoint probe of a bare base URL: its URL is
	// stackdump's own, and errors name the address instead.
	probe bool
	// deadline ends the whole capture (Timeout from its start); set by
	// the first Open or OpenDocument, kept by the fetches within it.
	deadline time.Time

	// wholeBody reads an HTTP body on the reader's goroutine, without the
	// read-ahead pump: for a reader that reads the body whole before it
	// parses (openDebug2 of a small target), the pump would only add a
	// goroutine, a copy and a wake-up per network read.
	wholeBody bool
}

// started returns o with its deadline set, Timeout from now, unless an
// enclosing capture set it already.
func (o Options) started() Options {
	if o.deadline.IsZero() {
		o.deadline = time.Now().Add(o.Timeout)
	}
	return o
}

func (o Options) withDefaults() Options {
	if o.Mode == "" {
		o.Mode = ModeFull
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 5 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Retries == 0 {
		o.Retries = 2
	}
	if o.Backoff <= 0 {
		o.Backoff = 250 * time.Millisecond
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2 << 30
	}
	if o.ReadAhead <= 0 {
		o.ReadAhead = 16 << 20
	}
	if o.TraceWindow <= 0 {
		o.TraceWindow = time.Millisecond
	}
	return o
}

// HTTPError is a non-2xx answer.
type HTTPError struct {
	URL    string
	Status int
	Body   string // the start of the body, for the message
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Stream is a capture in flight: read the dump from it, then Close it.
type Stream struct {
	io.Reader
	Target Target
	// URL is what was fetched (or the command run, for JVMs), with a
	// password in it replaced by "xxxxx".
	URL string
	// ContentType is the answer's Content-Type, when there was one.
	ContentType string
	// Fallback, when not empty, says why what was asked for first did not
	// give the dump, and URL gave it instead: a JVM without
	// Thread.dump_to_file (before JDK 21) asked for with Options.JVMJSON.
	Fallback string
	closer   func() error
	// fromEndpoint is set when the answer carries endpointHeader, which
	// stackdump's endpoint sets on every dump it sends.
	fromEndpoint bool
	// limited is the HTTP body's size limit, to tell whether reading
	// stopped at Options.MaxBytes (a reader may take the error for a cut
	// body and keep what it read).
	limited *limitedBody
	// answerWait is how long the target took to answer the request that
	// was written (from the request's last byte to the answer's first): an
	// upper bound of the pauses a debug=2 traceback cost it, since the
	// runtime takes the whole traceback before it sends a byte.
	answerWait time.Duration
	// release closes the idle connection of a client the capture made
	// for itself (Options.Client unset).
	release func()
}

// exceeded reports whether reading the stream stopped at Options.MaxBytes.
func (s *Stream) exceeded() bool { return s.limited != nil && s.limited.exceeded.Load() }

// endpointHeader is set by stackdump's endpoint (dumper.Handler) on every
// dump it answers with; endpoint discovery takes an answer without it for
// another handler's.
const endpointHeader = "X-Stackdump-Mode"

// errHTMLAnswer is wrapped by the error for an HTML answer: a login page,
// a proxy's error page, a web application's catch-all.
var errHTMLAnswer = errors.New("not a dump (is this a debug endpoint?)")

// Close releases the connection or process behind the stream.
func (s *Stream) Close() error {
	var err error
	if s.closer != nil {
		err = s.closer()
		s.closer = nil
	}
	if s.release != nil {
		s.release()
		s.release = nil
	}
	return err
}

// Open starts capturing t and returns the dump as a stream. Errors name
// the URL, address or command that failed, not t itself: callers that
// report several targets say which one.
//
// Opts.Timeout bounds the whole capture, retries included. An HTTP
// capture opened without Options.Client makes all its requests on one
// client of its own, whose connection Close releases.
func Open(ctx context.Context, t Target, opts Options) (*Stream, error) {
	opts = opts.withDefaults().started()
	if opts.Client == nil && (t.Kind == TargetPprof || t.Kind == TargetEndpoint) {
		c := NewClient(opts)
		opts.Client = c
		s, err := open(ctx, t, opts)
		if err != nil {
			c.CloseIdleConnections()
			return nil, err
		}
		s.release = c.CloseIdleConnections
		return s, nil
	}
	return open(ctx, t, opts)
}

// open is Open once opts has its defaults, deadline and client.
func open(ctx context.Context, t Target, opts Options) (*Stream, error) {
	switch t.Kind {
	case TargetPprof, TargetEndpoint:
		return openHTTP(ctx, t, opts)
	case TargetGops, TargetJVM:
		if opts.Mode == ModeLeak {
			// Their dump marks no goroutine leaked: written as a leak
			// capture it would read as "no leaks".
			return nil, noLeakProfileError{target: t}
		}
		if t.Kind == TargetGops {
			return openGops(ctx, t, opts)
		}
		return openJVM(ctx, t, opts)
	case TargetPID:
		return nil, fmt.Errorf("target %s: a Go process read from its memory is one dump, not a stream: open it with OpenDocument", t)
	}
	return nil, fmt.Errorf("target %s: unknown kind %q", t, t.Kind)
}

// DumpURL returns the URL a capture of t in mode fetches: t's URL with
// its query parameters, and stackdump's own set over those of the same
// name.
func DumpURL(t Target, mode Mode, window time.Duration) string {
	u := *t.URL
	q := u.Query()
	switch {
	case t.Kind == TargetEndpoint && mode == ModeCounts:
		q.Set("format", "debug1")
		q.Set("mode", string(ModeGrouped))
	case t.Kind == TargetEndpoint:
		q.Set("format", "json")
		q.Set("mode", string(mode))
		if mode == ModeTrace {
			q.Set("window", window.String())
		}
	case mode == ModeGrouped:
		q.Set("debug", "0")
	case mode == ModeCounts:
		q.Set("debug", "1")
	case mode == ModeTrace:
		u.Path = strings.TrimSuffix(u.Path, "goroutine") + "trace"
		q.Set("seconds", fmt.Sprintf("%g", window.Seconds()))
	case mode == ModeLeak:
		u.Path = strings.TrimSuffix(u.Path, "goroutine") + "goroutineleak"
		q.Set("debug", "2")
	default:
		q.Set("debug", "2")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func (o Options) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return NewClient(o)
}

// NewClient returns the HTTP client a capture with opts uses when
// opts.Client is nil: opts' connect and answer timeouts, at most 10
// redirects, no transparent decompression, one idle connection kept per
// host. Give it to several captures of one target (Options.Client) to
// reuse one connection, and call CloseIdleConnections when done.
func NewClient(opts Options) *http.Client {
	o := opts.withDefaults()
	d := &net.Dialer{Timeout: o.ConnectTimeout}
	return &http.Client{CheckRedirect: checkRedirect, Transport: &http.Transport{
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		ResponseHeaderTimeout: o.Timeout,
		DisableCompression:    true, // we ask for gzip/zstd ourselves; formats sniffs them
		MaxIdleConnsPerHost:   1,
	}}
}

// checkRedirect follows at most 10 redirects, as net/http does, then
// fails with ErrRedirectLoop.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("%w: %d requests, the last redirected to %s", ErrRedirectLoop, len(via), redactQuery(req.URL.Redacted()))
	}
	return nil
}

func openHTTP(ctx context.Context, t Target, opts Options) (*Stream, error) {
	if t.Discover {
		ep := t
		ep.Kind, ep.Discover = TargetEndpoint, false
		u := *t.URL
		u.Path = DefaultEndpointPath
		ep.URL = &u
		probe := opts
		probe.probe = true
		s, err := openHTTP(ctx, ep, probe)
		var he *HTTPError
		var notEndpoint error // why the answer is not the endpoint's
		switch {
		case err == nil && s.fromEndpoint:
			if opts.Resolved != nil {
				opts.Resolved(ep)
			}
			return s, nil
		case err == nil:
			// A catch-all handler ("/" on the service's mux) answers
			// every path: without the endpoint's header it is not the
			// endpoint, and net/http/pprof may still be there.
			s.Close()
			notEndpoint = fmt.Errorf("%s answered without stackdump's %s header", DefaultEndpointPath, endpointHeader)
		case errors.As(err, &he) && he.Status == http.StatusNotFound:
			notEndpoint = he
		case errors.Is(err, errHTMLAnswer):
			notEndpoint = err
		default:
			return nil, err
		}
		t.Discover = false
		if opts.Resolved != nil {
			opts.Resolved(t)
		}
		s, err = openHTTP(ctx, t, opts)
		if err != nil {
			err = notServed(t, err, notEndpoint)
		}
		return s, err
	}
	if opts.Mode == ModeLeak && t.Kind == TargetPprof {
		if err := checkLeakTarget(ctx, t, opts); err != nil {
			return nil, err
		}
	}
	client := opts.client()
	dumpURL := DumpURL(t, opts.Mode, opts.TraceWindow)
	var failed []error // each attempt's error
	backoff := opts.Backoff
	start := time.Now()
	gaveUp := ""
	for attempt := 0; ; attempt++ {
		s, retry, err := getOnce(ctx, client, t, dumpURL, opts)
		if err == nil {
			return s, nil
		}
		var he *HTTPError
		if opts.Mode == ModeLeak && errors.As(err, &he) && he.Status == http.StatusNotFound {
			return nil, fmt.Errorf("%w (%w)", ErrNoLeakProfile, err)
		}
		if opts.Mode == ModeTrace && t.Kind == TargetPprof && errors.As(err, &he) && he.Status == http.StatusNotFound {
			return nil, &noTraceError{he}
		}
		failed = append(failed, err)
		if !retry || attempt >= max(opts.Retries, 0) {
			break
		}
		if time.Until(opts.deadline) <= backoff {
			gaveUp = fmt.Sprintf("no time left for retry %d within the %v timeout, which bounds the whole capture", attempt+1, opts.Timeout)
			break
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, &attemptsError{errs: append(failed, ctx.Err()), elapsed: time.Since(start)}
		}
		backoff *= 2
	}
	if len(failed) == 1 && gaveUp == "" {
		return nil, failed[0]
	}
	return nil, &attemptsError{errs: failed, elapsed: time.Since(start), gaveUp: gaveUp}
}

// getOnce makes one request; retry says whether the failure is worth
// another try. The request ends at opts.deadline, body included.
func getOnce(ctx context.Context, client *http.Client, t Target, dumpURL string, opts Options) (s *Stream, retry bool, err error) {
	actx, cancel := context.WithDeadline(ctx, opts.deadline)
	var wrote, answered time.Time
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
		GotFirstResponseByte: func() { answered = time.Now() },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(actx, trace), http.MethodGet, dumpURL, nil)
	if err != nil {
		cancel()
		return nil, false, err
	}
	req.Header.Set("Accept-Encoding", "gzip, zstd")
	req.Header.Set("User-Agent", "stackdump")
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, false, interruptedError{ctx.Err()}
		}
		if errors.Is(err, ErrRedirectLoop) {
			var ue *url.Error
			if errors.As(err, &ue) {
				ue.URL = redactURL(ue.URL)
			}
			return nil, false, err
		}
		ce := newConnError(t, dumpURL, err, opts)
		if ce.closedTLS && speaksPlainHTTP(ctx, ce.addr, opts.ConnectTimeout) {
			ce.plainHTTP()
		}
		return nil, !ce.timeout && !ce.wrongProtocol, ce
	}
	if resp.StatusCode/100 != 2 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		drainBody(resp.Body)
		cancel()
		return nil, resp.StatusCode >= 500, &HTTPError{URL: redactURL(dumpURL), Status: resp.StatusCode, Body: strings.TrimSpace(string(head))}
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/html") {
		drainBody(resp.Body)
		cancel()
		return nil, false, fmt.Errorf("GET %s: answered %s, %w", redactURL(dumpURL), ct, errHTMLAnswer)
	}
	limited := &limitedBody{ReadCloser: resp.Body, left: opts.MaxBytes, progress: opts.Progress, attempt: actx, timeout: opts.Timeout}
	body := io.ReadCloser(limited)
	st := &Stream{
		Target:       t,
		URL:          redactURL(dumpURL),
		ContentType:  resp.Header.Get("Content-Type"),
		fromEndpoint: resp.Header.Get(endpointHeader) != "",
		limited:      limited,
	}
	if !wrote.IsZero() && answered.After(wrote) {
		st.answerWait = answered.Sub(wrote)
	}
	if opts.wholeBody {
		st.Reader = body
		st.closer = func() error {
			abort := time.AfterFunc(drainWait, cancel)
			io.Copy(io.Discard, io.LimitReader(body, drainLimit))
			abort.Stop()
			cancel()
			return body.Close()
		}
		return st, false, nil
	}
	p := newPump(body, opts.ReadAhead)
	st.Reader = p
	st.closer = func() error {
		// Read the rest of a short remainder so that the connection
		// goes back to the client's pool; past drainLimit bytes or
		// drainWait, give the connection up.
		abort := time.AfterFunc(drainWait, cancel)
		p.drain(drainLimit)
		abort.Stop()
		cancel() // aborts a read in flight; the body's Close would wait for it
		return p.Close()
	}
	return st, false, nil
}

// A closed stream's or refused answer's unread rest is read and dropped,
// up to drainLimit bytes and for at most drainWait, so that its kept-alive
// connection can serve the next request: an HTTP/1 connection whose body
// was not read to its end is closed.
const (
	drainLimit = 256 << 10
	drainWait  = time.Second
)

// drainBody reads and drops up to drainLimit bytes of body, then closes it.
func drainBody(body io.ReadCloser) {
	io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	body.Close()
}

// limitedBody fails with ErrTooLarge past its limit and reports progress.
// When attempt is set, a read cut by its deadline says so.
type limitedBody struct {
	io.ReadCloser
	left     int64
	total    int64
	progress func(int64)
	attempt  context.Context
	timeout  time.Duration
	exceeded atomic.Bool // ErrTooLarge was returned
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// At the limit: fine if the body ends here, an error if it goes on.
		var one [1]byte
		if n, err := l.ReadCloser.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		l.exceeded.Store(true)
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.ReadCloser.Read(p)
	if err != nil && err != io.EOF && l.attempt != nil && errors.Is(l.attempt.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("body not complete within the %v timeout, after %d bytes: %w", l.timeout, l.total+int64(n), err)
	}
	l.left -= int64(n)
	l.total += int64(n)
	if l.progress != nil && n > 0 {
		l.progress(l.total)
	}
	return n, err
}
