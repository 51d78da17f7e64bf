package dumper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Defaults of [HandlerOptions].
const (
	DefaultMaxWait      = 5 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	// DefaultMaxTraceWindow bounds the window= a request may ask for.
	DefaultMaxTraceWindow = 10 * time.Second
)

// HandlerOptions configure [Handler].
type HandlerOptions struct {
	// Capture configures every capture, as it does for WriteFile; a
	// request's parameters override two of its fields:
	//   - Mode is the capture mode when the request has no mode=; empty
	//     means ModeFull.
	//   - TraceWindow is the trace-mode window when the request has no
	//     window=; zero means DefaultTraceWindow (dumper/trace.go).
	// The rest hold for every request: MaxBytes bounds a full capture,
	// NoLabels leaves pprof labels out (and GODEBUG untouched, see
	// CaptureOptions.NoLabels), Table interns the frames of every dump
	// (requests are served one at a time, so it is never shared by two
	// captures at once, but it grows with every new frame), and
	// LeakMaxGoroutines bounds the goroutines of this process for which
	// mode=leak is served: with more, the request gets 403 before the
	// leak-detection GC cycle runs. No request parameter can raise it: a
	// caller of the endpoint cannot stall the service for longer than its
	// owner allowed.
	Capture CaptureOptions
	// Format is the output format when the request has no format=; empty
	// means text.
	Format output.Format
	// MaxTraceWindow bounds window=; zero (or negative) means
	// DefaultMaxTraceWindow.
	MaxTraceWindow time.Duration
	// MaxWait is how long a request waits for the dump in progress to be
	// delivered before it is answered 429 Too Many Requests; zero means
	// DefaultMaxWait, negative means not at all.
	MaxWait time.Duration
	// MinInterval, when positive, is the least time between the starts of
	// two full or trace captures; requests inside it get 429 with
	// Retry-After. Grouped captures are not limited.
	MinInterval time.Duration
	// WriteTimeout bounds how long one request may hold the capture lock:
	// the capture, encoding and writing to the client must end within it,
	// or the response is cut (a slow or vanished client gets a write
	// deadline). Zero (or negative) means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Authorize, when not nil, decides whether r may take a dump; a refused
	// request gets 403 Forbidden before anything is captured.
	Authorize func(r *http.Request) bool
	// OnError, when not nil, is told about failures after the response
	// has started (a client that went away, a write deadline).
	OnError func(r *http.Request, err error)
}

// Handler returns an http.Handler that captures a goroutine dump of the
// calling process on each GET and writes it in the requested format. Mount
// it where you like, behind your own authentication:
//
//	mux.Handle("GET /debug/stackdump", dumper.Handler(dumper.HandlerOptions{}))
//
// # Parameters
//
//   - mode=full|grouped|trace|leak: how to capture (default full). full is
//     every goroutine from one stop-the-world pass; grouped is counts per
//     stack with microsecond pauses; trace reads a runtime/trace window;
//     leak is full after Go 1.27's leak-detection GC cycle, refused (403)
//     above Capture.LeakMaxGoroutines goroutines.
//   - format=text|json|debug1|pprof|folded (default text).
//   - dedupe=1: group identical stacks (text, json, debug1 only);
//     by=… sets the similarity and implies dedupe=1.
//   - window=250ms: the trace-mode window (a duration or seconds), up to
//     MaxTraceWindow.
//   - compress=gzip|zstd|none: overrides Accept-Encoding, which is
//     otherwise honoured (zstd or gzip, q=0 respected). The body is sent
//     with Content-Encoding, so `curl -o dump.json.gz` keeps it compressed.
//
// Unknown parameters and bad values get 400 with the valid choices. HEAD
// answers with the headers a GET would have, without capturing anything.
//
// # Safety
//
// One dump is captured and delivered at a time: a request that finds one in
// progress waits up to MaxWait, then gets 429 with Retry-After. The lock is
// held while the dump is written to the client, so memory stays bounded by
// one dump; a write deadline of WriteTimeout (set with
// http.ResponseController) makes a client that stops reading release it.
func Handler(opts HandlerOptions) http.Handler {
	if opts.MaxWait == 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.MaxTraceWindow <= 0 {
		opts.MaxTraceWindow = DefaultMaxTraceWindow
	}
	h := &dumpHandler{lock: make(chan struct{}, 1)}
	h.configErr = normalizeHandlerOptions(&opts)
	h.opts = opts
	return h
}

// normalizeHandlerOptions spells the default Format and Capture.Mode as
// the request parameters are spelled ("JSON" is json), or says which of
// them names no format or mode.
func normalizeHandlerOptions(opts *HandlerOptions) error {
	var errs []error
	if opts.Format != "" {
		f, err := output.ParseFormat(string(opts.Format))
		if err != nil {
			errs = append(errs, fmt.Errorf("dumper.HandlerOptions.Format: %w", err))
		}
		opts.Format = f
	}
	if opts.Capture.Mode != "" {
		m, err := ParseMode(string(opts.Capture.Mode))
		if err != nil {
			errs = append(errs, fmt.Errorf("dumper.HandlerOptions.Capture.Mode: %w", err))
		}
		opts.Capture.Mode = m
	}
	return errors.Join(errs...)
}

type dumpHandler struct {
	opts HandlerOptions
	// configErr, when not nil, says which of opts names no format or mode:
	// every request gets 500 with it, before anything is captured.
	configErr error
	lock      chan struct{} // holds a token while a dump is captured and written

	mu       sync.Mutex
	lastFull time.Time     // start of the last full or trace capture
	lastHold time.Duration // how long the last request held the lock
}

func (h *dumpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		serveError(w, http.StatusMethodNotAllowed, "use GET or HEAD")
		return
	}
	if h.opts.Authorize != nil && !h.opts.Authorize(r) {
		serveError(w, http.StatusForbidden, "forbidden")
		return
	}
	if h.configErr != nil {
		serveError(w, http.StatusInternalServerError, h.configErr.Error())
		return
	}
	req, err := parseDumpRequest(r, &h.opts)
	if err != nil {
		serveError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.mode == ModeLeak {
		// Refused before the lock and MinInterval: nothing was captured.
		if err := checkLeakBoundHere(h.opts.Capture.LeakMaxGoroutines, handlerLeakOverride); err != nil {
			serveError(w, http.StatusForbidden, err.Error())
			return
		}
	}
	if r.Method == http.MethodHead {
		// Say what a GET would send, without stopping the world for it.
		h.writeHeaders(w, req, &stack.Dump{Source: stack.Source{CapturedAt: time.Now()}})
		return
	}
	if !h.acquire(w, r) {
		return
	}
	start := time.Now()
	defer h.release(start)
	if req.mode != ModeGrouped && !h.admitFull(w, start) {
		return
	}
	// Everything from here — capture, encoding, writing — ends by the
	// deadline, so the lock is released within WriteTimeout.
	deadline := start.Add(h.opts.WriteTimeout)
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	rc := http.NewResponseController(w)
	if err := rc.SetWriteDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
		h.reportError(r, fmt.Errorf("set write deadline: %w", err))
	}
	failed := false
	defer func() {
		if !failed {
			clearWriteDeadline(r, rc)
		}
	}()
	d, raw, err := capture(ctx, h.captureOptions(req), wantsRawText(req.format, req.by))
	if raw != nil {
		defer putStackBuf(raw.buf)
	}
	if err != nil {
		h.serveFailure(ctx, w, r, err)
		return
	}
	h.writeHeaders(w, req, d)
	if sent, err := writeResponse(ctx, w, req, d, raw); err != nil {
		if sent == 0 {
			// Nothing reached the client: it can still get a proper error.
			h.serveFailure(ctx, w, r, err)
			return
		}
		failed = true // net/http closes the connection
		h.reportError(r, err)
	}
}

// captureOptions returns the options of req's capture: the handler's,
// with the request's mode and window.
func (h *dumpHandler) captureOptions(req dumpRequest) CaptureOptions {
	copts := h.opts.Capture
	copts.Mode, copts.leakOverride, copts.traceSettle = req.mode, handlerLeakOverride, handlerTraceSettle
	if req.window > 0 {
		copts.TraceWindow = req.window
	}
	return copts
}

// handlerTraceSettle is how long a trace-mode request waits before
// trace.Start's stop-the-world. net/http has just woken goroutines for the
// request (the connection's background read is started right before the
// handler), and a stop must wait for the running ones: at 1M goroutines
// trace.Start's stop waited 33–115 µs for them in 7 of 16 requests, and
// 1–4 µs in all but one of 16 after a millisecond's wait.
const handlerTraceSettle = time.Millisecond

// handlerLeakOverride is the endpoint's LeakBoundError.Override: the
// bound is the service owner's, not the caller's.
const handlerLeakOverride = "a request cannot raise the bound: the service sets it (dumper.HandlerOptions.Capture.LeakMaxGoroutines); mode=full or mode=trace dump every goroutine without the proof"

// serveFailure answers a capture or encoding that failed before anything
// was sent: nothing when the client went away, 503 when WriteTimeout
// passed or the execution tracer is busy with another trace (with
// Retry-After), 404 for mode=leak on a runtime without the leak profile,
// 501 for mode=trace on a runtime older than Go 1.26,
// 403 for mode=leak above Capture.LeakMaxGoroutines, 500 otherwise.
func (h *dumpHandler) serveFailure(ctx context.Context, w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case r.Context().Err() != nil:
		return // the client went away
	case ctx.Err() != nil:
		serveError(w, http.StatusServiceUnavailable, fmt.Sprintf("the dump took longer than the handler's WriteTimeout (%v); try mode=grouped", h.opts.WriteTimeout))
	case errors.Is(err, ErrTracerBusy):
		w.Header().Set("Retry-After", "1")
		serveError(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, ErrNoLeakProfile):
		serveError(w, http.StatusNotFound, err.Error()) // as net/http/pprof answers an unknown profile
	case errors.Is(err, ErrTraceUnsupported):
		serveError(w, http.StatusNotImplemented, err.Error())
	case errors.Is(err, ErrLeakBound):
		serveError(w, http.StatusForbidden, err.Error())
	default:
		serveError(w, http.StatusInternalServerError, err.Error())
	}
}

// acquire takes the capture lock, waiting up to MaxWait. It answers 429
// and returns false when the wait ends first.
func (h *dumpHandler) acquire(w http.ResponseWriter, r *http.Request) bool {
	select {
	case h.lock <- struct{}{}:
		return true
	default:
	}
	if h.opts.MaxWait > 0 {
		timer := time.NewTimer(h.opts.MaxWait)
		defer timer.Stop()
		select {
		case h.lock <- struct{}{}:
			return true
		case <-r.Context().Done():
			return false
		case <-timer.C:
		}
	}
	h.mu.Lock()
	retry := h.lastHold
	h.mu.Unlock()
	w.Header().Set("Retry-After", retryAfter(retry))
	serveError(w, http.StatusTooManyRequests, "another goroutine dump is in progress; retry later")
	return false
}

func (h *dumpHandler) release(start time.Time) {
	h.mu.Lock()
	h.lastHold = time.Since(start)
	h.mu.Unlock()
	<-h.lock
}

// admitFull enforces MinInterval between full (and trace) captures.
func (h *dumpHandler) admitFull(w http.ResponseWriter, now time.Time) bool {
	if h.opts.MinInterval <= 0 {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if wait := h.lastFull.Add(h.opts.MinInterval).Sub(now); !h.lastFull.IsZero() && wait > 0 {
		w.Header().Set("Retry-After", retryAfter(wait))
		serveError(w, http.StatusTooManyRequests, fmt.Sprintf("full captures are limited to one per %v; retry in %v (mode=grouped is not limited)", h.opts.MinInterval, wait.Round(time.Millisecond)))
		return false
	}
	h.lastFull = now
	return true
}

// clearWriteDeadline lifts the handler's write deadline when the server
// sets none of its own, so that it does not outlive the request on a
// kept-alive connection. (A server with a WriteTimeout resets the deadline
// for each request.)
func clearWriteDeadline(r *http.Request, rc *http.ResponseController) {
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		return
	}
	rc.SetWriteDeadline(time.Time{})
}

// retryAfter renders a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// writeHeaders sets the response headers of a dump.
func (h *dumpHandler) writeHeaders(w http.ResponseWriter, req dumpRequest, d *stack.Dump) {
	hd := w.Header()
	hd.Set("Content-Type", contentType(req.format))
	hd.Add("Vary", "Accept-Encoding")
	if ce := contentEncoding(req.comp); ce != "" {
		hd.Set("Content-Encoding", ce)
	}
	disposition := "inline"
	if req.format == output.Pprof {
		disposition = "attachment"
	}
	name := "goroutines-" + d.Source.CapturedAt.UTC().Format("20060102T150405Z") + output.Extension(req.format, output.None)
	hd.Set("Content-Disposition", fmt.Sprintf("%s; filename=%q", disposition, name))
	if c := d.Source.Capture; c != nil {
		hd.Set("X-Stackdump-Mode", c.Mode)
		hd.Set("X-Stackdump-Goroutines", strconv.Itoa(c.Goroutines))
		hd.Set("X-Stackdump-Pause", c.Pause.String())
		if len(c.Missing) > 0 {
			hd.Set("X-Stackdump-Missing", strings.Join(c.Missing, ","))
		}
	}
	if d.Truncated {
		hd.Set("X-Stackdump-Truncated", "1")
	}
}

// writeResponse streams d, compressed, to w. It returns how many bytes
// went to w: when encoding fails before the first buffer reached w,
// nothing has been sent and the caller can still answer with an error
// status.
func writeResponse(ctx context.Context, w http.ResponseWriter, req dumpRequest, d *stack.Dump, raw *stackText) (sent int64, err error) {
	return writeCapture(ctx, w, req.comp, req.format, d, raw, req.by)
}

func (h *dumpHandler) reportError(r *http.Request, err error) {
	if h.opts.OnError != nil {
		h.opts.OnError(r, err)
	}
}

// serveError writes a plain-text error response.
func serveError(w http.ResponseWriter, status int, msg string) {
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Del("Content-Disposition")
	hd.Del("Content-Encoding")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}
