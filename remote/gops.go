package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The gops agent's one-byte commands (github.com/google/gops/signal). For
// gopsStackTrace the agent answers with pprof.Lookup("goroutine").WriteTo(conn,
// 2) and closes the connection, so it inherits debug=2's 64 MiB
// truncation; for gopsVersion it answers runtime.Version() and a newline,
// at once and at no cost to the process.
const (
	gopsStackTrace = 0x1
	gopsVersion    = 0x4
)

// gopsProbeWait bounds the wait for the agent's answer to the version
// command, asked before the stack trace: an agent answers it in
// microseconds, so an address that stays silent this long is another
// server (an HTTP server waits for a request line), or an agent busy with
// another client's command (it serves one at a time).
const gopsProbeWait = 2 * time.Second

func openGops(ctx context.Context, t Target, opts Options) (*Stream, error) {
	addr := t.Addr
	if addr == "" {
		var err error
		if addr, err = gopsAddr(t.PID); err != nil {
			return nil, err
		}
	}
	if err := checkGops(ctx, addr, opts); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: opts.ConnectTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, gopsDialError(addr, err)
	}
	deadline := time.Now().Add(opts.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	if _, err := conn.Write([]byte{gopsStackTrace}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sending the stack command to %s: %w", addr, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	body := &limitedBody{ReadCloser: &gopsConn{Conn: conn, timeout: opts.Timeout}, left: opts.MaxBytes, progress: opts.Progress}
	p := newPump(body, opts.ReadAhead)
	return &Stream{Reader: p, Target: t, URL: "gops://" + addr, closer: func() error {
		stop()
		return p.Close()
	}}, nil
}

// checkGops asks addr for the gops agent's version, and says what listens
// there when it is not one: within gopsProbeWait, rather than after the
// capture's whole timeout spent waiting for a goroutine dump that no one
// will send.
func checkGops(ctx context.Context, addr string, opts Options) error {
	wait := gopsProbeWait
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = time.Until(dl)
	}
	wait = min(wait, opts.Timeout)
	d := net.Dialer{Timeout: opts.ConnectTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return gopsDialError(addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write([]byte{gopsVersion}); err != nil {
		return fmt.Errorf("%s: sending gops' version command: %w", addr, err)
	}
	answer, err := io.ReadAll(io.LimitReader(conn, 128))
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case bytes.HasPrefix(answer, []byte("go1")) || bytes.HasPrefix(answer, []byte("devel")):
		return nil // runtime.Version(): a gops agent
	case bytes.HasPrefix(answer, []byte("HTTP/")):
		return fmt.Errorf("%s is an HTTP server, not a gops agent (it answered gops' version command with %q): capture http://%s (net/http/pprof or stackdump's endpoint) instead", addr, answerLine(answer), addr)
	case len(answer) > 0:
		return fmt.Errorf("%s is not a gops agent: it answered gops' version command with %q, not a Go version", addr, answerLine(answer))
	case err == nil || errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("%s is not a gops agent: it closed the connection on gops' version command without an answer", addr)
	case !errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%s: reading the answer to gops' version command: %w", addr, err)
	}
	// Silent: an HTTP server waits for the rest of a request line.
	if speaksPlainHTTP(ctx, addr, wait) {
		return fmt.Errorf("%s is an HTTP server, not a gops agent (it answers HTTP, and did not answer gops' version command within %v): capture http://%s (net/http/pprof or stackdump's endpoint) instead", addr, wait, addr)
	}
	return fmt.Errorf("%s did not answer gops' version command within %v: it is not a gops agent, or an agent busy with another client's command (an agent serves one command at a time)", addr, wait)
}

// answerLine is the start of an answer, up to its first line break.
func answerLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(line))
}

// gopsDialError says what a failed dial of a gops agent's address means.
func gopsDialError(addr string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("connection refused: nothing listens on %s; is the gops agent running (agent.Listen), and is this its port? gops://PID finds the port of a process on this machine", addr)
	}
	return fmt.Errorf("connecting to the gops agent at %s: %w", addr, err)
}

// gopsAddr finds the address of the gops agent of process pid as gops
// does: the agent writes its port to a file named after the pid in its
// configuration directory ($GOPS_CONFIG_DIR, else the user's
// configuration directory's gops/), and listens on 127.0.0.1. A process of
// another user keeps its file under that user's home, which is looked at
// too.
func gopsAddr(pid int) (string, error) {
	var tried []string
	for _, dir := range gopsConfigDirs(pid) {
		path := filepath.Join(dir, strconv.Itoa(pid))
		if slices.Contains(tried, path) {
			continue
		}
		tried = append(tried, path)
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		port := strings.TrimSpace(string(b))
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("gops://%d: the gops port file %s holds %q, not a port", pid, path, port)
		}
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return "", fmt.Errorf("gops://%d: no such process", pid)
	}
	return "", fmt.Errorf("gops://%d: process %d has no gops port file (looked for %s): it runs no gops agent (agent.Listen), or one of another user whose configuration directory is elsewhere; give the agent's address instead, gops://127.0.0.1:PORT", pid, pid, strings.Join(tried, ", "))
}

// gopsConfigDirs are the directories a gops agent of process pid may have
// written its port file into.
func gopsConfigDirs(pid int) []string {
	var dirs []string
	if d := os.Getenv("GOPS_CONFIG_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if d, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "gops"))
	}
	if fi, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			if u, err := user.LookupId(strconv.Itoa(int(st.Uid))); err == nil && u.HomeDir != "" {
				dirs = append(dirs, filepath.Join(u.HomeDir, ".config", "gops"))
			}
		}
	}
	return dirs
}

// gopsConn says what a read past the deadline means. The agent answered
// its version command before the stack command was sent (checkGops), so a
// silence here is the traceback taking long, or an agent busy.
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
			err = fmt.Errorf("the gops agent at %s answered its version command, but no goroutine dump came within the %v timeout (it serves one command at a time: is another client's command running?): %w", c.Conn.RemoteAddr(), c.timeout, err)
		} else {
			err = fmt.Errorf("answer not complete within the %v timeout, after %d bytes: %w", c.timeout, c.read, err)
		}
	}
	return n, err
}
