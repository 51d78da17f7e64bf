package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Failures told to a person.
//
// A capture that fails says what was tried, why it failed, and what to do,
// in words, not in net/http's: "nothing listens on 127.0.0.1:1", not
// `Get "http://127.0.0.1:1/debug/stackdump?format=debug1&mode=grouped":
// dial tcp …: connection refused`. The transport's error stays in the
// chain (errors.Is(err, syscall.ECONNREFUSED) holds), but the internal
// URL of the endpoint probe is never shown, and neither is a bare
// "unexpected EOF" or "context canceled". The caller names the target.

// connError is a request that got no HTTP answer.
type connError struct {
	url     string // the URL asked, redacted; "" for the endpoint probe of a bare base URL, which is stackdump's own
	addr    string // host:port of the target
	reason  string // what happened, for a person
	advice  string // what to do, for a person; "" when there is nothing to add
	timeout bool   // no answer before the capture's deadline: not retried
	// wrongProtocol: what listens speaks another protocol than the one
	// asked (plain HTTP to an HTTPS request, not HTTP at all): another
	// attempt would get the same answer, so none is made.
	wrongProtocol bool
	// closedTLS: an https request's connection was closed or reset
	// without an answer, as some plain HTTP servers do on a TLS
	// handshake (etcd's client port); plainHTTP finds out.
	closedTLS bool
	err       error // the transport's error
}

func (e *connError) Error() string {
	if e.advice == "" {
		return e.short()
	}
	return e.short() + "; " + e.advice
}

// short is the error without the advice.
func (e *connError) short() string {
	if e.url == "" {
		return e.reason
	}
	return "GET " + e.url + ": " + e.reason
}

func (e *connError) Unwrap() error { return e.err }

// Is makes a request that got no answer within the capture's timeout
// ErrTimeout.
func (e *connError) Is(target error) bool { return target == ErrTimeout && e.timeout }

// newConnError describes a request to t that failed with err, the
// transport's error (a *url.Error).
func newConnError(t Target, dumpURL string, err error, opts Options) *connError {
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
		ue.URL = redactURL(ue.URL) // net/http hides a password, not a token
	}
	addr := t.URL.Host
	ce := &connError{addr: addr, err: err}
	if !opts.probe {
		ce.url = redactURL(dumpURL)
	}
	var dnsErr *net.DNSError
	var recErr tls.RecordHeaderError
	var netErr net.Error
	msg := inner.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		ce.timeout = true
		ce.reason = fmt.Sprintf("no answer within the %v timeout from %s (the timeout bounds the whole capture, retries included)", opts.Timeout, addr)
		ce.advice = "the process may be stopped, overloaded, or behind a firewall that drops packets; Options.Timeout sets the bound"
	case errors.Is(err, syscall.ECONNREFUSED):
		ce.reason = "connection refused: nothing listens on " + addr
		ce.advice = "is the service running, and is this the port it serves net/http/pprof (or stackdump's endpoint) on?"
	case errors.As(err, &dnsErr):
		ce.reason = fmt.Sprintf("no such host %q", dnsErr.Name)
		ce.advice = "check the target's host name"
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		ce.plainHTTP()
	case errors.As(err, &recErr) || strings.Contains(msg, "first record does not look like a TLS handshake"):
		ce.reason = addr + " does not speak TLS"
		ce.advice = "write the target as http://" + addr + "/…, or give the port that serves HTTPS"
		ce.wrongProtocol = true
	case strings.Contains(msg, "malformed HTTP response"):
		got := ""
		if i := strings.IndexByte(msg, '"'); i >= 0 {
			got = " (" + msg[i:] + ")"
		}
		ce.reason = addr + " answered with something that is not HTTP" + got
		ce.advice = "this is not the service's debug port; give the port it serves net/http/pprof (or stackdump's endpoint) on"
		ce.wrongProtocol = true
	case strings.Contains(msg, "readLoopPeekFailLocked"):
		// net/http's word for bytes that came before the request was
		// written ("Unsolicited response received on idle HTTP channel"):
		// a server that speaks first, as SSH and SMTP do.
		ce.reason = addr + " spoke before it was asked, with something that is not HTTP"
		ce.advice = "this is not the service's debug port; give the port it serves net/http/pprof (or stackdump's endpoint) on"
		ce.wrongProtocol = true
	case errors.Is(err, syscall.ECONNRESET):
		ce.reason = addr + " reset the connection without an HTTP answer"
		ce.advice = "something listens there, but not an HTTP server (or it is overloaded): give the port the service serves net/http/pprof (or stackdump's endpoint) on"
		ce.closedTLS = t.URL.Scheme == "https"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		ce.reason = addr + " closed the connection without an HTTP answer"
		ce.advice = "something listens there, but not an HTTP server: give the port the service serves net/http/pprof (or stackdump's endpoint) on"
		ce.closedTLS = t.URL.Scheme == "https"
	default:
		ce.reason = fmt.Sprintf("request to %s failed: %v", addr, inner)
	}
	return ce
}

// plainHTTP makes e say that its address speaks plain HTTP to an https
// request.
func (e *connError) plainHTTP() {
	e.reason = e.addr + " speaks plain HTTP, not HTTPS"
	e.advice = "write the target as http://" + e.addr + "/…"
	e.wrongProtocol = true
	e.closedTLS = false
}

// speaksPlainHTTP reports whether addr answers a plain HTTP request
// with an HTTP answer within timeout: asked when an https request's
// connection was closed without an answer. The request is "HEAD /",
// which no debug handler acts on.
func speaksPlainHTTP(ctx context.Context, addr string, timeout time.Duration) bool {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := fmt.Fprintf(conn, "HEAD / HTTP/1.1\r\nHost: %s\r\nUser-Agent: stackdump\r\nConnection: close\r\n\r\n", addr); err != nil {
		return false
	}
	var head [5]byte
	_, err = io.ReadFull(conn, head[:])
	return err == nil && string(head[:]) == "HTTP/"
}

// attemptsError is a request that failed on each of its attempts: every
// attempt's reason, in order, the same reasons in a row said once.
type attemptsError struct {
	errs    []error
	elapsed time.Duration
	gaveUp  string // why no further attempt was made, when not because the retries ran out
}

func (e *attemptsError) Error() string {
	var b strings.Builder
	type run struct {
		reason     string
		first, end int // attempts first..end (1-based)
	}
	var runs []run
	var advice string
	for i, err := range e.errs {
		reason := err.Error()
		var ce *connError
		if errors.As(err, &ce) {
			reason, advice = ce.short(), ce.advice
		} else if errors.Is(err, context.Canceled) {
			reason = "interrupted"
		}
		if n := len(runs); n > 0 && runs[n-1].reason == reason {
			runs[n-1].end = i + 1
			continue
		}
		runs = append(runs, run{reason, i + 1, i + 1})
	}
	if len(runs) == 1 {
		fmt.Fprintf(&b, "%s (%d attempts over %v)", runs[0].reason, len(e.errs), e.elapsed.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "%d attempts over %v failed: ", len(e.errs), e.elapsed.Round(time.Millisecond))
		for i, r := range runs {
			if i > 0 {
				b.WriteString("; ")
			}
			if r.first == r.end {
				fmt.Fprintf(&b, "attempt %d: %s", r.first, r.reason)
			} else {
				fmt.Fprintf(&b, "attempts %d–%d: %s", r.first, r.end, r.reason)
			}
		}
	}
	if e.gaveUp != "" {
		b.WriteString("; " + e.gaveUp)
	}
	if advice != "" {
		b.WriteString("; " + advice)
	}
	return b.String()
}

func (e *attemptsError) Unwrap() []error { return e.errs }

// interruptedError is a capture whose context ended (an interrupt, a
// caller that gave up): "interrupted", and nothing of the transport's
// words. It wraps the context's error.
type interruptedError struct{ err error }

func (e interruptedError) Error() string {
	if errors.Is(e.err, context.DeadlineExceeded) {
		return "interrupted: the capture's deadline passed"
	}
	return "interrupted"
}

func (e interruptedError) Unwrap() error { return e.err }

// noTraceError is a trace capture (ModeTrace) of a net/http/pprof target
// that serves no /debug/pprof/trace: net/http/pprof mounted piecemeal
// (pprof.Index alone serves every profile but the trace). It names the
// URL that answered 404, which is not the goroutine profile. It is
// ErrNoTrace.
type noTraceError struct{ *HTTPError }

func (e *noTraceError) Error() string {
	return e.HTTPError.Error() + "; the target serves no execution trace (net/http/pprof's pprof.Trace: import _ \"net/http/pprof\" mounts it on the default mux, pprof.Index alone does not); capture in a mode other than ModeTrace, or mount pprof.Trace at " + urlPath(e.URL)
}

func (e *noTraceError) Unwrap() error { return e.HTTPError }

func (e *noTraceError) Is(target error) bool { return target == ErrNoTrace }

// urlPath is the path of a URL as written, or the URL when it does not
// parse.
func urlPath(s string) string {
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		return u.Path
	}
	return s
}

// notServedError is a bare base URL whose HTTP server serves neither
// stackdump's endpoint nor net/http/pprof's goroutine profile.
type notServedError struct {
	addr     string
	endpoint error // why DefaultEndpointPath is not the endpoint
	pprof    error // net/http/pprof's failure
}

func (e *notServedError) Error() string {
	return fmt.Sprintf("%s serves HTTP, but no goroutine dump: tried stackdump's endpoint (%s) and net/http/pprof (%s); mount net/http/pprof in the service (import _ \"net/http/pprof\" on the default mux, or pprof.Index on its own mux) or stackdump's endpoint, or give the full URL of its goroutine profile",
		e.addr, describeHTTP(DefaultEndpointPath, e.endpoint), describeHTTP(DefaultPprofPath, e.pprof))
}

func (e *notServedError) Unwrap() []error { return []error{e.pprof, e.endpoint} }

// describeHTTP says in a few words how path answered: "… 404 Not Found";
// an HTTP answer names the path it came from.
func describeHTTP(path string, err error) string {
	var he *HTTPError
	if errors.As(err, &he) {
		return fmt.Sprintf("%s: %d %s", urlPath(he.URL), he.Status, http.StatusText(he.Status))
	}
	if errors.Is(err, errHTMLAnswer) {
		return path + ": an HTML page"
	}
	return err.Error()
}

// notServed is the error of a bare base URL's capture whose endpoint
// probe found no endpoint (notEndpoint says why) and whose pprof request
// failed with err: when net/http/pprof is missing too, a notServedError;
// otherwise err, naming the probe that came first.
func notServed(t Target, err, notEndpoint error) error {
	var nt *noTraceError
	var ie interruptedError
	if errors.Is(err, ErrNoLeakProfile) || errors.As(err, &nt) || errors.As(err, &ie) {
		return err // net/http/pprof is there, without the leak profile or the trace; or no answer is coming
	}
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusNotFound || errors.Is(err, errHTMLAnswer) {
		return &notServedError{addr: t.URL.Host, endpoint: notEndpoint, pprof: err}
	}
	return fmt.Errorf("%w (stackdump's endpoint is not there: %s)", err, describeHTTP(DefaultEndpointPath, notEndpoint))
}
