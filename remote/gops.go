package remote

import (
	"context"
	"fmt"
	"net"
	"time"
)

// gopsStackTrace is the gops agent's one-byte command for a stack dump
// (github.com/google/gops/signal.StackTrace). The agent answers with
// pprof.Lookup("goroutine").WriteTo(conn, 2) and closes the connection, so
// it inherits debug=2's 64 MiB truncation.
const gopsStackTrace = 0x1

func openGops(ctx context.Context, t Target, opts Options) (*Stream, error) {
	d := net.Dialer{Timeout: opts.ConnectTimeout}
	conn, err := d.DialContext(ctx, "tcp", t.Addr)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(opts.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	if _, err := conn.Write([]byte{gopsStackTrace}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sending the stack command to %s: %w", t.Addr, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	body := &limitedBody{ReadCloser: conn, left: opts.MaxBytes, progress: opts.Progress}
	p := newPump(body, opts.ReadAhead)
	return &Stream{Reader: p, Target: t, URL: "gops://" + t.Addr, closer: func() error {
		stop()
		return p.Close()
	}}, nil
}
