package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// jvmTools are the commands tried in turn for a JVM thread dump: jcmd's
// Thread.print with lock details, then jstack -l for JDKs without jcmd.
var jvmTools = [][]string{
	{"jcmd", "{pid}", "Thread.print", "-l"},
	{"jstack", "-l", "{pid}"},
}

// attachFailures are texts jcmd and jstack print on standard output when
// they could not attach; output that starts with one is an error, not a dump.
var attachFailures = []string{
	"AttachNotSupportedException",
	"Unable to open socket file",
	"java.io.IOException",
	"Exception in thread",
	"is not a valid process id",
}

func openJVM(ctx context.Context, t Target, opts Options) (*Stream, error) {
	// jcmd and jstack signal the process: prove it is a JVM first (jvmcheck.go).
	if err := checkJVM(t.PID); err != nil {
		return nil, err
	}
	var errs []error
	if opts.JVMJSON {
		s, err := dumpJVMToFile(ctx, t, opts)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	for _, tool := range jvmTools {
		s, err := runJVMTool(ctx, t, tool, opts)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// runJVMTool starts one tool and streams its standard output. It waits
// for the first 64 KiB (or the end) before returning, so that a failure
// to attach is reported as an error and the next tool can be tried.
func runJVMTool(ctx context.Context, t Target, tool []string, opts Options) (*Stream, error) {
	args := make([]string, len(tool)-1)
	for i, a := range tool[1:] {
		args[i] = strings.ReplaceAll(a, "{pid}", strconv.Itoa(t.PID))
	}
	path, err := exec.LookPath(tool[0])
	if err != nil {
		path, err = lookJavaHome(tool[0])
		if err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	cmd := exec.CommandContext(cctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	cmdline := tool[0] + " " + strings.Join(args, " ")
	fail := func(msg string) error {
		cmd.Wait()
		cancel()
		return fmt.Errorf("%s: %s", cmdline, msg)
	}
	br := bufio.NewReaderSize(&limitedBody{ReadCloser: out, left: opts.MaxBytes, progress: opts.Progress}, 64<<10)
	head, _ := br.Peek(64 << 10)
	for _, f := range attachFailures {
		if i := bytes.Index(head, []byte(f)); i >= 0 && i < 512 {
			line, _, _ := bytes.Cut(head[i:], []byte("\n"))
			return nil, fail(strings.TrimSpace(string(line)))
		}
	}
	if len(bytes.TrimSpace(head)) == 0 || bytes.Equal(bytes.TrimSpace(head), []byte(strconv.Itoa(t.PID)+":")) {
		cmd.Wait() // stderr is complete once the tool exited
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = "no output"
		}
		return nil, fail(msg)
	}
	p := newPump(readCloser{br, out}, opts.ReadAhead)
	return &Stream{Reader: p, Target: t, URL: cmdline, closer: func() error {
		p.Close()
		err := cmd.Wait()
		cancel()
		if err != nil && stderr.Len() > 0 {
			err = fmt.Errorf("%s: %w: %s", cmdline, err, strings.TrimSpace(stderr.String()))
		}
		return err
	}}, nil
}

// lookJavaHome finds a JDK tool under $JAVA_HOME/bin when it is not on PATH.
func lookJavaHome(name string) (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := home + "/bin/" + name
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH or under $JAVA_HOME/bin", name)
}

// readCloser reads from one side and closes another: a buffered reader
// over a pipe, closing the pipe.
type readCloser struct {
	io.Reader
	io.Closer
}

// dumpJVMToFile runs `jcmd PID Thread.dump_to_file -format=json FILE` into
// a temporary file (the JVM writes the file itself; JDK 21+) and streams
// it; the file is removed on Close.
func dumpJVMToFile(ctx context.Context, t Target, opts Options) (*Stream, error) {
	path, err := exec.LookPath("jcmd")
	if err != nil {
		if path, err = lookJavaHome("jcmd"); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "stackdump-jvm-")
	if err != nil {
		return nil, err
	}
	file := dir + "/threads.json"
	cleanup := func() { os.RemoveAll(dir) }
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	args := []string{strconv.Itoa(t.PID), "Thread.dump_to_file", "-format=json", file}
	cmdline := "jcmd " + strings.Join(args, " ")
	out, err := exec.CommandContext(cctx, path, args...).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("Exception")) || bytes.Contains(out, []byte("Unknown diagnostic command")) {
		cleanup()
		msg := firstLine(out, []byte(strconv.Itoa(t.PID)+":"))
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", cmdline, msg)
	}
	f, err := os.Open(file)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("%s: the JVM wrote no file: %w", cmdline, err)
	}
	body := &limitedBody{ReadCloser: f, left: opts.MaxBytes, progress: opts.Progress}
	return &Stream{Reader: body, Target: t, URL: cmdline, closer: func() error {
		err := f.Close()
		cleanup()
		return err
	}}, nil
}

// firstLine returns the first non-empty line of out that is not skip.
func firstLine(out, skip []byte) string {
	for _, line := range bytes.Split(out, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && !bytes.Equal(line, skip) {
			return string(line)
		}
	}
	return ""
}
