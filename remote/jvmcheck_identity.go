package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A process is known by its pid and its start time: a pid is given to a
// new process once the old one has exited and was reaped, which takes the
// system milliseconds, while the start time (field 22 of /proc/PID/stat,
// in clock ticks since boot) differs for every process the pid is given
// to. A JVM capture records both at its check and checks them again
// before each signal and each attach (jvmcheck_attach.go).

// procStat is what /proc/PID/stat says about a process's life.
type procStat struct {
	state byte   // R, S, D, T, Z (zombie), X (dead), ...
	start uint64 // field 22: when it started, in clock ticks after boot
}

// exited reports whether the process has exited (a zombie, or dead).
func (s procStat) exited() bool { return s.state == 'Z' || s.state == 'X' }

// errNoProcess is readProcStat's error when no process has the pid.
var errNoProcess = errors.New("no such process")

// readProcStat reads /proc/PID/stat. The command name (field 2) is in
// parentheses and may hold spaces and parentheses itself, so the fields
// are counted from its last ')'.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errESRCH) {
		return procStat{}, errNoProcess
	}
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat has no command name: %.80q", pid, b)
	}
	fields := strings.Fields(string(b[i+1:])) // field 3 (state) onwards
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("/proc/%d/stat has %d fields after the command name, want at least 20", pid, len(fields))
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: start time %q: %w", pid, fields[19], err)
	}
	return procStat{state: fields[0][0], start: start}, nil
}

// statusTgid returns the thread-group id in /proc/PID/status (the pid of
// the process a thread belongs to), or -1 when the kernel does not say.
func statusTgid(status []byte) int {
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("Tgid:")); ok {
			if n, err := strconv.Atoi(string(bytes.TrimSpace(v))); err == nil {
				return n
			}
		}
	}
	return -1
}

// commandMax is how much of a command line a message quotes.
const commandMax = 160

// processCommand returns pid's command line for messages, its arguments
// joined by spaces and cut at commandMax bytes; the command name in
// brackets when the command line is empty (a zombie) or cannot be read,
// "unknown command" when neither can.
func processCommand(pid int) string {
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	cmd := strings.Join(strings.Fields(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))), " ")
	if err != nil || cmd == "" {
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || len(bytes.TrimSpace(comm)) == 0 {
			return "unknown command"
		}
		cmd = "[" + string(bytes.TrimSpace(comm)) + "]"
	}
	cmd = strings.ToValidUTF8(cmd, "?")
	if len(cmd) > commandMax {
		cut := commandMax
		for cut > 0 && !utf8.RuneStart(cmd[cut]) {
			cut--
		}
		cmd = cmd[:cut] + "…"
	}
	return cmd
}

// threadIDError is ErrNotJVM for an id that is a thread, not a process:
// /proc/TID exists for every thread, and `top -H`, `ps -L` and a thread
// dump's nid show thread ids. The message names the process the thread
// belongs to.
type threadIDError struct {
	tid, tgid int
	cmd       string // the process's command line
}

func (e threadIDError) Error() string {
	return fmt.Sprintf("jvm:%d is a thread of process %d (%s), not a process: a thread id (as top -H, ps -L or a thread dump's nid shows) cannot be attached to; capture jvm:%d instead; no signal was sent",
		e.tid, e.tgid, e.cmd, e.tgid)
}

func (e threadIDError) Is(target error) bool { return target == ErrNotJVM }
