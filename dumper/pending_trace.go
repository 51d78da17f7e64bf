package dumper

import (
	"context"
	"errors"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// captureTrace takes a low-pause full dump from a runtime/trace window.
// Placeholder: replaced by dumper/trace.go.
func captureTrace(ctx context.Context, window time.Duration, t *formats.Table) (*formats.Dump, error) {
	return nil, errors.New("trace mode not supported yet")
}
