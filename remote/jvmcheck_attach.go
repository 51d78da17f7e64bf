package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// How HotSpot's attach is started, and why stackdump starts it itself.
//
// A JVM opens its attach socket (.java_pid<PID> in its /tmp) only when
// asked: a client creates .attach_pid<PID> in the JVM's working directory
// (or its /tmp) and sends SIGQUIT; the JVM's signal dispatcher finds the
// file and starts the attach listener instead of printing a thread dump.
// jcmd and jstack (sun.tools.attach.VirtualMachineImpl, JDK 9 to 25) do
// this on every attach whose socket is missing: one SIGQUIT, then they
// poll for the socket with waits of 100, 200, 300 ms…, and once more than
// half of sun.tools.attach.attachTimeout (10 s) has passed they send
// another SIGQUIT at every poll: six SIGQUITs in 10.5 s (at 0, 5.5, 6.6,
// 7.8, 9.1 and 10.5 s) when the socket never comes, at least two whatever
// the timeout. A JVM that does not start the listener (attach disabled,
// or a thread id given for a pid) answers each with a full thread dump
// into its own standard output, the service's log; a second tool doubles
// that, and a pid reused in those seconds gets the signals.
//
// So stackdump sends the one SIGQUIT itself, on Linux, and runs jcmd or
// jstack only while the socket exists, when they connect without a signal:
//
//   - no signal when the socket already exists (an earlier attach);
//   - none when the JVM shows that its attach is off
//     (jvmcheck_perfdata.go), and none to a JVM whose listener did not
//     start after an earlier SIGQUIT from this stackdump (watch);
//   - the trigger file is created first, and the signal goes through a
//     pidfd opened before the process's start time is checked again, so
//     it cannot reach a process that took the pid since;
//   - the socket is then waited for (at most jvmAttachWait, within the
//     capture's timeout) while the process is watched: an exit ends the
//     wait at once;
//   - before any further attach (the JSON dump's fallback to Thread.print,
//     jstack after jcmd) the process is checked again: the same start time,
//     still a JVM as inspectJVM proves it, its socket still there.
//
// Elsewhere (no /proc), jcmd and jstack signal as they do, once per tool.

// jvmAttachWait is how long the attach socket is waited for after the
// SIGQUIT: as long as jcmd and jstack wait by default.
const jvmAttachWait = 10 * time.Second

// attachPoll is the first and the longest interval between two looks
// for the attach socket.
const attachPollFirst, attachPollMax = 5 * time.Millisecond, 100 * time.Millisecond

// jvmKey identifies a process across pid reuse.
type jvmKey struct {
	pid   int
	start uint64
}

// silentJVMs remembers, for the life of this process, each JVM whose
// attach listener did not start after stackdump's SIGQUIT, and when that
// signal was sent: a watch would otherwise signal it every round.
var silentJVMs sync.Map // jvmKey → time.Time

// socketPaths returns where jcmd and jstack look for the JVM's attach
// socket: in the JVM's /tmp as seen through /proc/PID/root (JDK 17 looks
// there when the JVM is in another pid namespace, JDK 25 whenever it can
// write there) and, when the pid is the same in both namespaces, in /tmp.
func (p *jvmProcess) socketPaths() []string {
	name := ".java_pid" + strconv.Itoa(p.nspid)
	paths := []string{filepath.Join(procRoot, strconv.Itoa(p.pid), "root", "tmp", name)}
	if p.nspid == p.pid {
		paths = append(paths, filepath.Join("/tmp", name))
	}
	return paths
}

// socketReady reports whether the attach socket is where every tool
// looks for it, so that running one sends no signal. A socket nothing
// listens on (connecting is refused) was left by an earlier process with
// this pid (a JVM killed with SIGKILL does not remove its socket): a tool
// would find it, fail to connect, and never start the listener; so it
// does not count, and the listener is started, which replaces it. The
// probe connects and closes without a request, as jcmd's attach does
// before it sends one.
func (p *jvmProcess) socketReady() bool {
	for _, path := range p.socketPaths() {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Type() != fs.ModeSocket {
			return false
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return false
		}
		if err == nil {
			c.Close()
		}
		// Any other error (a full backlog, a timeout) is a listener's.
	}
	return true
}

// alive returns nil while the process checked is still running under
// its pid, else an error saying it exited (or that the pid now belongs
// to another process), during what.
func (p *jvmProcess) alive(during string) error {
	if p.start == 0 { // no /proc to tell
		return nil
	}
	st, err := readProcStat(p.pid)
	switch {
	case errors.Is(err, errNoProcess) || (err == nil && st.exited()):
		return jvmExitedError{jvm: p, during: during}
	case err != nil:
		return fmt.Errorf("%s: cannot tell whether it still runs (%w); nothing more was sent to PID %d", p.label(), err, p.pid)
	case st.start != p.start:
		return jvmExitedError{jvm: p, during: during, reused: processCommand(p.pid)}
	}
	return nil
}

// recheck is run before every attach after the first: the process must
// still be the one checked (same start time), still pass inspectJVM, and
// its attach socket must still exist, lest the tool signal it.
func (p *jvmProcess) recheck(next string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	if err := p.alive("before " + next); err != nil {
		return err
	}
	again, err := inspectJVM(p.pid)
	if err != nil {
		return fmt.Errorf("%s was checked again before %s and failed: %w", p.label(), next, err)
	}
	if again.start != p.start {
		return jvmExitedError{jvm: p, during: "before " + next, reused: again.cmd}
	}
	if !p.socketReady() {
		return fmt.Errorf("%s: its attach socket %s is gone (the JVM is shutting down, or something removed the file), so %s would signal it again; not run, nothing more was sent to PID %d",
			p.label(), p.socketPaths()[0], next, p.pid)
	}
	return nil
}

// startAttachListener makes the JVM listen on its attach socket with at
// most one SIGQUIT, as the comment above says.
func (p *jvmProcess) startAttachListener(ctx context.Context) error {
	if runtime.GOOS != "linux" || p.socketReady() {
		return nil
	}
	if where := attachDisabledFlag(p.pid); where != "" {
		return attachDisabledError{jvm: p, why: "it runs with -XX:+DisableAttachMechanism (" + where + ")"}
	}
	if p.perfData != "" {
		if ok, err := perfDataAttachable(p.perfData); err == nil && !ok {
			return attachDisabledError{jvm: p, why: "its HotSpot perf data says it does not support attach (-XX:+DisableAttachMechanism, set where stackdump does not look, as an options file)"}
		}
	}
	key := jvmKey{p.pid, p.start}
	if at, ok := silentJVMs.Load(key); ok {
		sent := at.(time.Time)
		return fmt.Errorf("%s did not start its attach listener after the SIGQUIT stackdump sent it at %s (%v ago), so it is not signalled again: its thread dump from then is in its own standard output (look for \"Full thread dump\" in its log); run stackdump again to try once more",
			p.label(), sent.Format("15:04:05"), time.Since(sent).Round(time.Second))
	}
	trigger, err := p.createAttachTrigger()
	if err != nil {
		return err
	}
	defer trigger.remove()
	if err := p.sendQuit(); err != nil {
		return err
	}
	sent := time.Now()
	wait := jvmAttachWait
	// byDeadline: the capture's deadline (Options.Timeout) ends the wait
	// before jvmAttachWait would; reaching it is the wait running out,
	// not a cancellation.
	d, byDeadline := ctx.Deadline()
	if byDeadline = byDeadline && time.Until(d) < wait; byDeadline {
		wait = max(time.Until(d), 0)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	waitedOut := func() error {
		if p.socketReady() {
			return nil
		}
		silentJVMs.Store(key, sent)
		return fmt.Errorf("%s did not start its attach listener within %v of the one SIGQUIT stackdump sent: it may run with -XX:+DisableAttachMechanism set where stackdump cannot see it (an options file, with -XX:-UsePerfData), or be too busy or hung to answer. Such a JVM writes a thread dump into its own standard output instead: look for \"Full thread dump\" in its log. The attach was not retried (jcmd and jstack would signal it again), and this stackdump sends it no further signal",
			p.label(), wait.Round(100*time.Millisecond))
	}
	for poll := attachPollFirst; ; poll = min(2*poll, attachPollMax) {
		if p.socketReady() {
			return nil
		}
		if err := p.alive(fmt.Sprintf("%v after the one SIGQUIT stackdump sent it to start its attach listener", time.Since(sent).Round(time.Millisecond))); err != nil {
			return err
		}
		select {
		case <-timer.C:
			return waitedOut()
		case <-ctx.Done():
			if byDeadline && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return waitedOut()
			}
			return fmt.Errorf("%s: the capture was canceled %v after the one SIGQUIT stackdump sent it, before its attach listener started: %w", p.label(), time.Since(sent).Round(time.Millisecond), context.Cause(ctx))
		case <-time.After(poll):
		}
	}
}

// attachTrigger is the .attach_pid file that makes the JVM's SIGQUIT
// handler start the attach listener. It is held by its directory's file
// descriptor, so that it can be removed after the JVM exited, when
// /proc/PID/cwd no longer leads to the directory.
type attachTrigger struct {
	dir     *os.Root
	name    string
	created bool // by this capture: removed after it
}

func (t attachTrigger) remove() {
	if t.created {
		t.dir.Remove(t.name)
	}
	t.dir.Close()
}

// createAttachTrigger creates .attach_pid<nspid> where the JVM looks for
// it, as jcmd does: in its working directory, else in its /tmp. HotSpot
// takes a file owned by its own user or by root; this one is owned by the
// current user, who is one of those (inspectJVM).
func (p *jvmProcess) createAttachTrigger() (attachTrigger, error) {
	name := ".attach_pid" + strconv.Itoa(p.nspid)
	proc := filepath.Join(procRoot, strconv.Itoa(p.pid))
	var errs []error
	for _, dir := range []string{filepath.Join(proc, "cwd"), filepath.Join(proc, "root", "tmp")} {
		root, err := os.OpenRoot(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return attachTrigger{dir: root, name: name, created: true}, nil
		}
		if errors.Is(err, fs.ErrExist) { // another client's, for the same attach
			return attachTrigger{dir: root, name: name}, nil
		}
		root.Close()
		errs = append(errs, fmt.Errorf("%s: %w", dir, err))
	}
	return attachTrigger{}, fmt.Errorf("%s: cannot create the attach trigger file %s in its working directory or its /tmp (%w); no signal was sent, since without that file a SIGQUIT only makes a JVM write a thread dump into its log",
		p.label(), name, errors.Join(errs...))
}

// sendQuit sends the JVM one SIGQUIT through a pidfd opened before its
// start time is checked again: the signal reaches this process or none.
func (p *jvmProcess) sendQuit() error {
	proc, err := os.FindProcess(p.pid)
	if err != nil {
		return fmt.Errorf("%s: %w; no signal was sent", p.label(), err)
	}
	defer proc.Release()
	if err := p.alive("before stackdump could signal it to start its attach listener"); err != nil {
		return err
	}
	if err := proc.Signal(syscall.SIGQUIT); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return jvmExitedError{jvm: p, during: "before stackdump could signal it to start its attach listener"}
		}
		return fmt.Errorf("%s: sending SIGQUIT to start its attach listener: %w", p.label(), err)
	}
	return nil
}

// jvmExitedError says the JVM exited during a capture, and that nothing
// more was sent to its pid.
type jvmExitedError struct {
	jvm    *jvmProcess
	during string // "while jcmd ran", "before jstack", …
	reused string // the command of the process that has the pid now, if one does
}

func (e jvmExitedError) Error() string {
	if e.reused != "" {
		return fmt.Sprintf("%s exited during the capture, %s, and PID %d now belongs to another process (%s); nothing more was sent to PID %d: if the JVM was restarted, capture its new PID",
			e.jvm.label(), e.during, e.jvm.pid, e.reused, e.jvm.pid)
	}
	return fmt.Sprintf("%s exited during the capture, %s; nothing more was sent to PID %d: capture it again once it runs (if it exits whenever it is captured, its log says why)",
		e.jvm.label(), e.during, e.jvm.pid)
}

// attachDisabledError is a JVM that shows its attach mechanism is off.
type attachDisabledError struct {
	jvm *jvmProcess
	why string
}

func (e attachDisabledError) Error() string {
	return fmt.Sprintf("%s does not accept an attach: %s, so neither jcmd nor jstack can take its thread dump; no signal was sent. Restart it without -XX:+DisableAttachMechanism, or send it SIGQUIT yourself (kill -3 %d): it then writes a thread dump into its own standard output (its log)",
		e.jvm.label(), e.why, e.jvm.pid)
}
