package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
)

// The leak-mode guard of a net/http/pprof target.
//
// /debug/pprof/goroutineleak runs a GC cycle in the target that stalls it
// for a time growing much faster than its goroutines (about a minute at
// 100k; docs/modes.md). Before asking for it, a ModeLeak capture fetches
// debug=1 (the concurrent goroutine profile: pauses of microseconds) and
// reads its total; above Options.LeakMaxGoroutines it is refused with a
// *dumper.LeakBoundError and goroutineleak is never requested. A target
// whose goroutines cannot be counted is refused as well, since the
// capture could not know what it would cost. Through stackdump's endpoint
// (mode=leak) the endpoint applies its own bound
// (dumper.HandlerOptions.Capture.LeakMaxGoroutines).

// ErrLeakUncounted is wrapped by the error of a ModeLeak capture refused
// because the target's goroutines could not be counted first; a negative
// Options.LeakMaxGoroutines takes it without the count.
var ErrLeakUncounted = errors.New("leak mode refused: the target's goroutines could not be counted first (its debug=1 goroutine profile), so the cost of the leak-detection GC cycle is unknown")

// checkLeakTarget counts the goroutines of pprof target t through debug=1
// and returns an error when a leak capture must not run: above the bound,
// or when they could not be counted. A negative bound skips the count.
func checkLeakTarget(ctx context.Context, t Target, opts Options) error {
	if dumper.LeakBound(opts.LeakMaxGoroutines) == 0 {
		return nil
	}
	counts, err := fetchCounts(ctx, t, opts, formats.ReadOptions{}, false)
	var he *HTTPError
	switch {
	case errors.As(err, &he) && he.Status/100 == 4, errors.Is(err, errNotCounts):
		return fmt.Errorf("%w: %w", ErrLeakUncounted, err)
	case err != nil:
		return fmt.Errorf("counting the goroutines before the leak profile: %w", err)
	}
	bound := dumper.CheckLeakBound(counts.dump.Total, opts.LeakMaxGoroutines, "")
	if bound == nil {
		return nil
	}
	// Raising the bound is no advice for a target that has no leak
	// profile at all (Go older than 1.27): its index says.
	has, err := listsLeakProfile(ctx, t, opts)
	switch {
	case err != nil:
		return fmt.Errorf("%w (whether the target has the leak profile at all, which needs Go 1.27 or newer, could not be checked: %v)", bound, err)
	case !has:
		return fmt.Errorf("%w: its net/http/pprof index (%s) lists no goroutineleak profile; raising the bound would not help (it has %d goroutines)", ErrNoLeakProfile, pprofIndexPath(t), counts.dump.Total)
	}
	return bound
}

// pprofIndexPath is the path of net/http/pprof's index page beside t's
// goroutine profile.
func pprofIndexPath(t Target) string {
	return strings.TrimSuffix(t.URL.Path, "goroutine")
}

// listsLeakProfile reports whether net/http/pprof's index page of t
// lists the goroutineleak profile. The page lists the profiles the
// target's runtime has (with their counts, cheap to take: the leak
// profile's count is the last cycle's, no GC runs).
func listsLeakProfile(ctx context.Context, t Target, opts Options) (bool, error) {
	u := *t.URL
	u.Path = pprofIndexPath(t)
	u.RawQuery = t.URL.RawQuery
	actx, cancel := context.WithDeadline(ctx, opts.deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("User-Agent", "stackdump")
	resp, err := opts.client().Do(req)
	if err != nil {
		return false, newConnError(t, u.String(), err, opts)
	}
	defer drainBody(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return false, &HTTPError{URL: redactURL(u.String()), Status: resp.StatusCode}
	}
	page, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return false, fmt.Errorf("%s: %w", redactURL(u.String()), err)
	}
	if !bytes.Contains(page, []byte("goroutine")) {
		return false, fmt.Errorf("%s is not net/http/pprof's index", redactURL(u.String()))
	}
	return bytes.Contains(page, []byte("goroutineleak")), nil
}
