package dumper

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/words"
)

// dumpRequest is a parsed /debug/stackdump query.
type dumpRequest struct {
	mode   Mode
	format output.Format
	by     dedupe.By // dedupe.ByNone unless dedupe= or by= asked for groups
	comp   output.Compression
	window time.Duration // trace window; 0 for the default
}

// queryParams are the parameters Handler accepts, for error messages.
var queryParams = []string{"mode", "format", "dedupe", "by", "compress", "window"}

// parseDumpRequest reads the query and Accept-Encoding of r. Errors name
// the parameter and list the valid choices.
func parseDumpRequest(r *http.Request, opts *HandlerOptions) (dumpRequest, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return dumpRequest{}, fmt.Errorf("bad query: %w", err)
	}
	for k, vs := range q {
		if !slices.Contains(queryParams, k) {
			return dumpRequest{}, fmt.Errorf("unknown parameter %q (want %s)", k, words.Or(queryParams))
		}
		if len(vs) > 1 {
			return dumpRequest{}, fmt.Errorf("parameter %q given %d times", k, len(vs))
		}
	}
	req := dumpRequest{mode: opts.Capture.Mode, format: opts.Format}
	if v := q.Get("mode"); v != "" {
		if req.mode, err = ParseMode(v); err != nil {
			return req, fmt.Errorf("mode: %w", err)
		}
	}
	if req.mode == "" {
		req.mode = ModeFull
	}
	if v := q.Get("format"); v != "" {
		if req.format, err = output.ParseFormat(v); err != nil {
			return req, fmt.Errorf("format: %w", err)
		}
	}
	if req.format == "" {
		req.format = output.Text
	}
	grouped := false
	if v := q.Get("dedupe"); v != "" {
		if grouped, err = strconv.ParseBool(v); err != nil {
			return req, fmt.Errorf("dedupe: %q is not a boolean (want 1 or 0)", v)
		}
		if grouped {
			req.by = dedupe.ByStack
		}
	}
	if v := q.Get("by"); v != "" {
		if req.by, err = dedupe.ParseBy(v); err != nil {
			return req, fmt.Errorf("by: %w", err)
		}
	}
	if req.by != dedupe.ByNone && !output.CanGroup(req.format) {
		return req, fmt.Errorf("dedupe applies to format text, json or debug1; %s output is always one record per stack", req.format)
	}
	if v := q.Get("window"); v != "" {
		if req.mode != ModeTrace {
			return req, fmt.Errorf("window applies to mode=trace only")
		}
		if req.window, err = parseWindow(v, opts.MaxTraceWindow); err != nil {
			return req, fmt.Errorf("window: %w", err)
		}
	}
	if v, ok := q["compress"]; ok {
		if req.comp, err = output.ParseCompression(v[0]); err != nil {
			return req, fmt.Errorf("compress: %w", err)
		}
	} else {
		req.comp = negotiateEncoding(r.Header.Values("Accept-Encoding"))
	}
	return req, nil
}

// parseWindow parses a trace window: a Go duration ("250ms") or seconds
// ("0.25"), positive and at most limit.
func parseWindow(v string, limit time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil {
			return 0, fmt.Errorf("%q is neither a duration (250ms) nor seconds (0.25)", v)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 || d > limit {
		return 0, fmt.Errorf("%v is out of range (want more than 0 and at most %v)", d, limit)
	}
	return d, nil
}

// encodingPreference orders the encodings Handler offers when the client
// rates them equally: zstd compresses our JSON and text faster and smaller
// than gzip (docs/capture.md).
var encodingPreference = []output.Compression{output.Zstd, output.Gzip}

// negotiateEncoding picks the content coding from Accept-Encoding headers:
// the highest-rated of zstd and gzip, "*" standing for both, q=0 refusing
// one; none when the client accepts neither.
func negotiateEncoding(headers []string) output.Compression {
	q := map[output.Compression]float64{}
	star := -1.0
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			weight := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
						weight = f
					} else {
						weight = 0
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				q[output.Gzip] = weight
			case "zstd":
				q[output.Zstd] = weight
			case "*":
				star = weight
			}
		}
	}
	best, bestQ := output.None, 0.0
	for _, c := range encodingPreference {
		w, ok := q[c]
		if !ok {
			w = star
		}
		if w > bestQ {
			best, bestQ = c, w
		}
	}
	return best
}

// contentType returns the Content-Type of format f.
func contentType(f output.Format) string {
	switch f {
	case output.JSON:
		return "application/json"
	case output.Pprof:
		return "application/octet-stream"
	}
	return "text/plain; charset=utf-8"
}

// contentEncoding returns the Content-Encoding token of c, "" for none.
func contentEncoding(c output.Compression) string {
	switch c {
	case output.Gzip:
		return "gzip"
	case output.Zstd:
		return "zstd"
	}
	return ""
}
