package dumper

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/internal/profilepb"
)

// GoroutineHandler returns a drop-in replacement for net/http/pprof's
// /debug/pprof/goroutine handler, with the same parameters and content
// types:
//
//   - debug=0 (default): gzipped pprof protobuf, application/octet-stream,
//     attachment "goroutine"; with seconds=N, the delta over N seconds.
//   - debug=1: the grouped legacy text, text/plain.
//   - debug=2: every goroutine's traceback, text/plain — but from one
//     presized stop-the-world pass instead of one per doubling of a 1 MiB
//     buffer, and not cut at 64 MiB. It is complete unless it would pass
//     [DefaultMaxBytes] (1 GiB) or the goroutines outgrow four passes; then
//     the cut is visible, never silent: the text ends with a line starting
//     [gotext.CutMarker] (stackdump's reader marks the dump Truncated and
//     warns), and the [TruncatedTrailer] trailer is "true" ("false" when
//     complete).
//
// Unlike net/http/pprof it registers nothing on import. Mount it with the
// method in the pattern, which lives beside net/http/pprof's "GET
// /debug/pprof/" (a plain "/debug/pprof/goroutine" makes the mux panic), or
// with [Register]:
//
//	mux.Handle("GET /debug/pprof/goroutine", dumper.GoroutineHandler())
func GoroutineHandler() http.Handler { return goroutineHandler{} }

type goroutineHandler struct{}

func (goroutineHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	p := pprof.Lookup("goroutine")
	if p == nil {
		serveError(w, http.StatusNotFound, "Unknown profile")
		return
	}
	debug, _ := strconv.Atoi(r.FormValue("debug"))
	if sec := r.FormValue("seconds"); sec != "" {
		serveGoroutineDelta(w, r, p, sec, debug)
		return
	}
	// Write errors mean the client went away mid-response; like
	// net/http/pprof there is no one to tell, and net/http closes the
	// connection.
	if debug == 0 {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="goroutine"`)
		p.WriteTo(w, 0)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if debug == 1 {
		p.WriteTo(w, 1)
		return
	}
	w.Header().Set("Trailer", TruncatedTrailer)
	st := printAllStacks(goroutineHandlerMaxBytes)
	defer putStackBuf(st.buf)
	w.Write(st.buf[:st.n])
	if st.truncated {
		w.Write(cutLine(st))
	}
	w.Header().Set(TruncatedTrailer, strconv.FormatBool(st.truncated))
}

// TruncatedTrailer is the HTTP trailer of a debug=2 answer of
// [GoroutineHandler]: "true" when the traceback was cut (and ends with a
// [gotext.CutMarker] line), "false" when it is complete. A client that
// reads the body to its end and finds no trailer was cut off in transit.
const TruncatedTrailer = "Stackdump-Truncated"

// goroutineHandlerMaxBytes is the traceback size past which
// GoroutineHandler cuts debug=2; a variable so that a test can reach it.
var goroutineHandlerMaxBytes = DefaultMaxBytes

// cutLine is the line that ends a cut traceback: after a blank line, so
// that it is no part of the last goroutine, a gotext.CutMarker line
// saying where and why.
func cutLine(st stackText) []byte {
	b := []byte("\n\n")
	if st.n > 0 && st.buf[st.n-1] == '\n' {
		b = b[1:]
	}
	why := fmt.Sprintf("%d bytes printed, the limit; later goroutines are missing", st.n)
	if st.n < goroutineHandlerMaxBytes {
		why = fmt.Sprintf("%d bytes printed; the goroutines outgrew %d passes; later goroutines are missing", st.n, st.tries)
	}
	return fmt.Appendf(b, "%s%s\n", gotext.CutMarker, why)
}

// serveGoroutineDelta serves the change of the goroutine profile over
// seconds, as net/http/pprof does.
func serveGoroutineDelta(w http.ResponseWriter, r *http.Request, p *pprof.Profile, secStr string, debug int) {
	sec, err := strconv.ParseInt(secStr, 10, 64)
	if err != nil || sec <= 0 {
		serveError(w, http.StatusBadRequest, `invalid value for "seconds" - must be a positive integer`)
		return
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(srv.WriteTimeout + time.Duration(sec)*time.Second))
	}
	if debug != 0 {
		serveError(w, http.StatusBadRequest, "seconds and debug params are incompatible")
		return
	}
	p0, err := collectProfile(p)
	if err != nil {
		serveError(w, http.StatusInternalServerError, "failed to collect profile: "+err.Error())
		return
	}
	t := time.NewTimer(time.Duration(sec) * time.Second)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		status := http.StatusInternalServerError
		if r.Context().Err() == context.DeadlineExceeded {
			status = http.StatusRequestTimeout
		}
		serveError(w, status, r.Context().Err().Error())
		return
	case <-t.C:
	}
	p1, err := collectProfile(p)
	if err != nil {
		serveError(w, http.StatusInternalServerError, "failed to collect profile: "+err.Error())
		return
	}
	ts, dur := p1.TimeNanos, p1.TimeNanos-p0.TimeNanos
	delta, err := goroutineDelta(p0, p1)
	if err != nil {
		serveError(w, http.StatusInternalServerError, "failed to compute delta: "+err.Error())
		return
	}
	delta.TimeNanos, delta.DurationNanos = ts, dur
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="goroutine-delta"`)
	zw := gzip.NewWriter(w)
	zw.Write(delta.Marshal())
	zw.Close()
}

// collectProfile returns the goroutine profile, decoded, stamped with the
// time now.
func collectProfile(p *pprof.Profile) (*profilepb.Profile, error) {
	var buf bytes.Buffer
	if err := p.WriteTo(&buf, 0); err != nil {
		return nil, err
	}
	pb, err := gunzipProfile(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("parse goroutine profile: %w", err)
	}
	pr, err := profilepb.Decode(pb)
	if err != nil {
		return nil, fmt.Errorf("parse goroutine profile: %w", err)
	}
	pr.TimeNanos = time.Now().UnixNano()
	return pr, nil
}

// gunzipProfile returns a profile as runtime/pprof writes it,
// decompressed.
func gunzipProfile(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
