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
	"time"
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

// unknownCommand is what jcmd prints when the JVM has no such diagnostic
// command (Thread.dump_to_file before JDK 21): the JVM was reached, and
// another command may work.
const unknownCommand = "Unknown diagnostic command"

// toolError is a failed run of jcmd or jstack.
type toolError struct {
	cmdline string // what was run
	msg     string
	err     error // the cause, if any
	// other is set when another tool or command may still work: this
	// tool is missing or could not start, or the JVM does not know its
	// command. A failure to attach or a timeout is not: jcmd and jstack
	// attach the same way, and would fail the same way.
	other bool
}

func (e *toolError) Error() string { return e.cmdline + ": " + e.msg }
func (e *toolError) Unwrap() error { return e.err }

// jvmAttempt is one command that may give the thread dump.
type jvmAttempt struct {
	cmdline string
	run     func() (*Stream, error)
}

// openJVM proves t a JVM (inspectJVM), makes it listen on its attach
// socket with at most one SIGQUIT (jvmcheck_attach.go), then runs jcmd
// or jstack, which connect to that socket without a signal. opts.Timeout
// bounds the whole capture. A command after the first runs only when the
// one before it failed in a way the next does not share, and only after
// the process is checked again.
func openJVM(ctx context.Context, t Target, opts Options) (*Stream, error) {
	jvm, err := inspectJVM(t.PID)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(opts.Timeout)
	listenCtx, cancel := context.WithDeadline(ctx, deadline)
	err = jvm.startAttachListener(listenCtx)
	cancel()
	if err != nil {
		return nil, err
	}
	var attempts []jvmAttempt
	if opts.JVMJSON {
		attempts = append(attempts, jvmAttempt{
			cmdline: "jcmd " + strconv.Itoa(t.PID) + " Thread.dump_to_file -format=json",
			run:     func() (*Stream, error) { return dumpJVMToFile(ctx, deadline, t, opts) },
		})
	}
	for _, tool := range jvmTools {
		args := toolArgs(tool, t.PID)
		attempts = append(attempts, jvmAttempt{
			cmdline: tool[0] + " " + strings.Join(args, " "),
			run:     func() (*Stream, error) { return runJVMTool(ctx, deadline, t, tool[0], args, opts) },
		})
	}
	var errs []error
	for i, a := range attempts {
		if i > 0 {
			if err := jvm.recheck(a.cmdline); err != nil {
				errs = append(errs, err)
				break
			}
		}
		s, err := a.run()
		if err == nil {
			if len(errs) > 0 {
				s.Fallback = fallbackWhy(errs)
			}
			return s, nil
		}
		errs = append(errs, err)
		if gone := jvm.alive("while " + a.cmdline + " ran"); gone != nil {
			errs = append([]error{gone}, errs...)
			break
		}
		var te *toolError
		if rest := attempts[i+1:]; len(rest) > 0 && (!errors.As(err, &te) || !te.other) {
			names := make([]string, len(rest))
			for j, r := range rest {
				names[j] = r.cmdline
			}
			they := "they attach"
			if len(rest) == 1 {
				they = "it attaches"
			}
			errs = append(errs, fmt.Errorf("not tried: %s; %s to the JVM the same way, and would fail the same way", strings.Join(names, ", "), they))
			break
		}
	}
	return nil, errors.Join(errs...)
}

// fallbackWhy says why the commands that failed, errs, gave no dump, for
// Stream.Fallback: a JVM that does not know Thread.dump_to_file is said in
// words, any other failure as it is.
func fallbackWhy(errs []error) string {
	var why []string
	for _, err := range errs {
		var te *toolError
		if errors.As(err, &te) && strings.Contains(te.cmdline, "Thread.dump_to_file") && strings.Contains(te.msg, unknownCommand) {
			why = append(why, "Options.JVMJSON: this JVM has no Thread.dump_to_file (JDK 21 and newer have it; jcmd: "+unknownCommand+")")
			continue
		}
		why = append(why, err.Error())
	}
	return strings.Join(why, "; ")
}

// toolArgs returns tool's arguments for pid.
func toolArgs(tool []string, pid int) []string {
	args := make([]string, len(tool)-1)
	for i, a := range tool[1:] {
		args[i] = strings.ReplaceAll(a, "{pid}", strconv.Itoa(pid))
	}
	return args
}

// lookTool finds a JDK tool on PATH or under $JAVA_HOME/bin.
func lookTool(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		path, err = lookJavaHome(name)
	}
	return path, err
}

// runJVMTool starts one tool and streams its standard output. It waits
// for the first 64 KiB (or the end) before returning, so that a failure
// to attach is reported as an error. The tool is killed at deadline.
func runJVMTool(ctx context.Context, deadline time.Time, t Target, name string, args []string, opts Options) (*Stream, error) {
	cmdline := name + " " + strings.Join(args, " ")
	path, err := lookTool(name)
	if err != nil {
		return nil, &toolError{cmdline: cmdline, msg: err.Error(), err: err, other: true}
	}
	cctx, cancel := context.WithDeadline(ctx, deadline)
	cmd := exec.CommandContext(cctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, &toolError{cmdline: cmdline, msg: err.Error(), err: err, other: true}
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, &toolError{cmdline: cmdline, msg: err.Error(), err: err, other: true}
	}
	fail := func(msg string, other bool) error {
		cmd.Wait()
		cancel()
		return &toolError{cmdline: cmdline, msg: msg, other: other}
	}
	br := bufio.NewReaderSize(&limitedBody{ReadCloser: out, left: opts.MaxBytes, progress: opts.Progress}, 64<<10)
	head, _ := br.Peek(64 << 10)
	if i := bytes.Index(head, []byte(unknownCommand)); i >= 0 && i < 512 {
		line, _, _ := bytes.Cut(head[i:], []byte("\n"))
		return nil, fail(strings.TrimSpace(string(line)), true)
	}
	for _, f := range attachFailures {
		if i := bytes.Index(head, []byte(f)); i >= 0 && i < 512 {
			line, _, _ := bytes.Cut(head[i:], []byte("\n"))
			return nil, fail(strings.TrimSpace(string(line)), false)
		}
	}
	if len(bytes.TrimSpace(head)) == 0 || bytes.Equal(bytes.TrimSpace(head), []byte(strconv.Itoa(t.PID)+":")) {
		cmd.Wait() // stderr is complete once the tool exited
		if cctx.Err() != nil && ctx.Err() == nil {
			return nil, fail(noAnswer(t.PID, opts.Timeout), false)
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = "no output"
		}
		return nil, fail(msg, false)
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

// noAnswer says a tool connected to the JVM's attach socket got no answer
// within the capture's timeout.
func noAnswer(pid int, timeout time.Duration) string {
	return fmt.Sprintf("no answer within the %v timeout, though the JVM's attach socket is open: it may be stopped, hung or too busy to run the command; check its state (ps -o stat= -p %d), or capture again with a longer timeout", timeout, pid)
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
func dumpJVMToFile(ctx context.Context, deadline time.Time, t Target, opts Options) (*Stream, error) {
	args := []string{strconv.Itoa(t.PID), "Thread.dump_to_file", "-format=json"}
	cmdline := "jcmd " + strings.Join(args, " ")
	path, err := lookTool("jcmd")
	if err != nil {
		return nil, &toolError{cmdline: cmdline, msg: err.Error(), err: err, other: true}
	}
	dir, err := os.MkdirTemp("", "stackdump-jvm-")
	if err != nil {
		return nil, err
	}
	file := dir + "/threads.json"
	args = append(args, file)
	cmdline += " " + file
	cleanup := func() { os.RemoveAll(dir) }
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	out, err := exec.CommandContext(cctx, path, args...).CombinedOutput()
	if unknown := bytes.Contains(out, []byte(unknownCommand)); err != nil || unknown || bytes.Contains(out, []byte("Exception")) {
		cleanup()
		msg := firstLine(out, []byte(strconv.Itoa(t.PID)+":"))
		switch {
		case cctx.Err() != nil && ctx.Err() == nil:
			msg = noAnswer(t.PID, opts.Timeout)
		case msg == "" && err != nil:
			msg = err.Error()
		}
		return nil, &toolError{cmdline: cmdline, msg: msg, err: err, other: unknown}
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
