package ptrace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrRefused is wrapped by Check's errors: the process is not one to
// attach to, and nothing was attached.
var ErrRefused = errors.New("ptrace: refused")

// refusal is a Check error: its message says why and what to do.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refuse(format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}

// capSysPtrace is CAP_SYS_PTRACE's bit in /proc/PID/status's CapEff.
const capSysPtrace = 19

// Process is what procfs says of a process, as Check reads it.
type Process struct {
	PID       int
	Name      string // the command name (comm)
	State     string // "S (sleeping)", …
	Tgid      int    // the process a thread id belongs to
	PPid      int
	TracerPid int
	Uids      [4]int // real, effective, saved, filesystem
	Gids      [4]int
}

// ReadProcess reads /proc/PID/status under procRoot ("" is /proc).
func ReadProcess(procRoot string, pid int) (Process, error) {
	if procRoot == "" {
		procRoot = "/proc"
	}
	st, err := readStatus(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return Process{}, err
	}
	p := Process{PID: pid, Name: st["Name"], State: st["State"]}
	p.Tgid, _ = strconv.Atoi(st["Tgid"])
	p.PPid, _ = strconv.Atoi(st["PPid"])
	p.TracerPid, _ = strconv.Atoi(st["TracerPid"])
	ids := func(s string, into *[4]int) {
		for i, f := range strings.Fields(s) {
			if i < 4 {
				into[i], _ = strconv.Atoi(f)
			}
		}
	}
	ids(st["Uid"], &p.Uids)
	ids(st["Gid"], &p.Gids)
	return p, nil
}

// Check refuses, before anything is attached, a process that must not or
// cannot be stopped by this one, with what to do instead: this process
// itself, a process that does not exist or has exited, a thread id, a
// process another tracer holds, another user's process (or one that made
// itself undumpable) without CAP_SYS_PTRACE, and what the Yama LSM's
// kernel.yama.ptrace_scope forbids. procRoot is where procfs is mounted
// ("" is /proc); this process is procRoot/self. The errors wrap ErrRefused.
func Check(procRoot string, pid int) (Process, error) {
	if procRoot == "" {
		procRoot = "/proc"
	}
	self, err := readStatus(filepath.Join(procRoot, "self", "status"))
	if err != nil {
		return Process{}, fmt.Errorf("reading this process's status: %w", err)
	}
	selfPID, _ := strconv.Atoi(self["Pid"])
	if pid == selfPID {
		return Process{}, refuse("process %d is this process itself: give the id of another process", pid)
	}
	p, err := ReadProcess(procRoot, pid)
	if errors.Is(err, os.ErrNotExist) {
		return p, refuse("no process %d on this machine (a process in a container has another id outside it: give the one ps shows on the host)", pid)
	}
	if err != nil {
		return p, fmt.Errorf("process %d: %w", pid, err)
	}
	if p.Tgid != 0 && p.Tgid != pid {
		return p, refuse("%d is a thread of process %d (%s), not a process: give the process id, pid:%d", pid, p.Tgid, p.Name, p.Tgid)
	}
	if strings.HasPrefix(p.State, "Z") || strings.HasPrefix(p.State, "X") {
		return p, refuse("process %d (%s) has exited (%s; its parent %d has not collected it): there is nothing left to read", pid, p.Name, p.State, p.PPid)
	}
	if p.TracerPid != 0 {
		// TracerPid is the tracing thread; name its process.
		tracer := "process " + strconv.Itoa(p.TracerPid)
		if t, err := ReadProcess(procRoot, p.TracerPid); err == nil && t.Tgid > 0 {
			tracer = "process " + strconv.Itoa(t.Tgid)
			if t.Tgid != t.PID {
				if leader, err := ReadProcess(procRoot, t.Tgid); err == nil {
					t = leader
				}
			}
			if t.Name != "" {
				tracer += " (" + t.Name + ")"
			}
		}
		return p, refuse("process %d (%s) is traced by %s already, and a process has one tracer at a time: detach that debugger or tracer (dlv, gdb, strace) or end it, then try again", pid, p.Name, tracer)
	}
	capable := hasCap(self["CapEff"], capSysPtrace)
	if !capable {
		var uids, gids [4]int
		idsOf := func(s string, into *[4]int) {
			for i, f := range strings.Fields(s) {
				if i < 4 {
					into[i], _ = strconv.Atoi(f)
				}
			}
		}
		idsOf(self["Uid"], &uids)
		idsOf(self["Gid"], &gids)
		// The kernel's rule (ptrace_may_access): the caller's real uid
		// and gid equal the target's real, effective and saved ones.
		if p.Uids[0] != uids[0] || p.Uids[1] != uids[0] || p.Uids[2] != uids[0] ||
			p.Gids[0] != gids[0] || p.Gids[1] != gids[0] || p.Gids[2] != gids[0] {
			return p, refuse("process %d (%s) runs as uid %d and this process as uid %d without CAP_SYS_PTRACE: the kernel lets a process trace only its own user's processes; read it as uid %d or as root", pid, p.Name, p.Uids[1], uids[0], p.Uids[1])
		}
		// A process that made itself undumpable (a set-user-id program,
		// prctl(PR_SET_DUMPABLE, 0)) has the files of its /proc directory
		// owned by root, and needs CAP_SYS_PTRACE too.
		if fi, err := os.Stat(filepath.Join(procRoot, strconv.Itoa(pid), "status")); err == nil && p.Uids[1] != 0 {
			if owner, ok := fileOwner(fi); ok && owner == 0 {
				return p, refuse("process %d (%s) is not dumpable (a set-user-id program, or one that called prctl(PR_SET_DUMPABLE, 0)): only a process with CAP_SYS_PTRACE may trace it; read it as root", pid, p.Name)
			}
		}
	}
	return p, checkYama(procRoot, p, selfPID, capable)
}

// checkYama applies the Yama LSM's kernel.yama.ptrace_scope, when the
// kernel has it.
func checkYama(procRoot string, p Process, selfPID int, capable bool) error {
	b, err := os.ReadFile(filepath.Join(procRoot, "sys", "kernel", "yama", "ptrace_scope"))
	if err != nil {
		return nil // no Yama
	}
	scope, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil
	}
	switch {
	case scope >= 3:
		return refuse("kernel.yama.ptrace_scope is %d: this kernel lets no process trace another until it reboots (the setting cannot be lowered); read process %d (%s) through an endpoint it serves (net/http/pprof, gops) instead", scope, p.PID, p.Name)
	case scope == 2 && !capable:
		return refuse("kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may trace another; read process %d as root", p.PID)
	case scope == 1 && !capable && !descendant(procRoot, p, selfPID):
		return refuse("kernel.yama.ptrace_scope is 1: a process may trace only its own descendants, and process %d (%s) is not one of this process's; read it with CAP_SYS_PTRACE, or lift the restriction machine-wide with sysctl kernel.yama.ptrace_scope=0", p.PID, p.Name)
	}
	return nil
}

// descendant reports whether process p descends from process ancestor.
func descendant(procRoot string, p Process, ancestor int) bool {
	for ppid, hops := p.PPid, 0; ppid > 1 && hops < 4096; hops++ {
		if ppid == ancestor {
			return true
		}
		parent, err := ReadProcess(procRoot, ppid)
		if err != nil {
			return false
		}
		ppid = parent.PPid
	}
	return false
}

// hasCap reports whether the capability bit is set in a CapEff hex mask.
func hasCap(mask string, bit uint) bool {
	v, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
	return err == nil && v&(1<<bit) != 0
}

// readStatus reads a /proc status file into its "Key:\tvalue" fields.
func readStatus(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, sc.Err()
}
