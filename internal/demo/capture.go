package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// Capture takes a full goroutine dump of the service over HTTP, through
// its dump endpoint with package remote, as `stackdump capture` would, and
// reads it whole.
func (s *Service) Capture(ctx context.Context) (*stack.Dump, error) {
	target, err := remote.ParseTarget(s.DumpURL(), EndpointPath)
	if err != nil {
		return nil, err
	}
	stream, err := remote.Open(ctx, target, remote.Options{Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("demo: capture %s: %w", target, err)
	}
	defer stream.Close()
	dumps, err := formats.ReadAll(stream, formats.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("demo: capture %s: %w", stream.URL, err)
	}
	if len(dumps) != 1 {
		return nil, fmt.Errorf("demo: capture %s: %d dumps, want 1", stream.URL, len(dumps))
	}
	d := dumps[0]
	if d.Source.Target == "" {
		d.Source.Target = stream.URL
	}
	if d.Source.CapturedAt.IsZero() {
		d.Source.CapturedAt = time.Now()
	}
	return d, nil
}
