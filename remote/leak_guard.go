package remote

import (
	"context"
	"errors"
	"fmt"

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
// because the target's goroutines could not be counted first.
var ErrLeakUncounted = errors.New("leak mode refused: the target's goroutines could not be counted first (its debug=1 goroutine profile), so the cost of the leak-detection GC cycle is unknown; --leak-max-goroutines 0 (LeakMaxGoroutines < 0 in code) takes it without the count")

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
	return dumper.CheckLeakBound(counts.dump.Total, opts.LeakMaxGoroutines, "")
}
