package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
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
	body := &limitedBody{ReadCloser: &gopsConn{Conn: conn, timeout: opts.Timeout}, left: opts.MaxBytes, progress: opts.Progress}
	p := newPump(body, opts.ReadAhead)
	return &Stream{Reader: p, Target: t, URL: "gops://" + t.Addr, closer: func() error {
		stop()
		return p.Close()
	}}, nil
}

// gopsConn says what a read past the deadline means: a gops agent answers
// at once, so an address that stays silent is most likely no gops agent
// (an HTTP server, say, waits for a request line).
type gopsConn struct {
	net.Conn
	timeout time.Duration
	read    int64
}

func (c *gopsConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read += int64(n)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		if c.read == 0 {
			err = fmt.Errorf("no answer within the %v timeout (is %s a gops agent? it answers at once): %w", c.timeout, c.Conn.RemoteAddr(), err)
		} else {
			err = fmt.Errorf("answer not complete within the %v timeout, after %d bytes: %w", c.timeout, c.read, err)
		}
	}
	return n, err
}
