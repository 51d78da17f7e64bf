package remote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// jcmd and jstack attach by creating .attach_pid<PID> and sending SIGQUIT:
// a JVM answers by opening its attach socket, but most other processes
// (every Go program) die of that signal. So before any tool runs, the
// process is proven to be a HotSpot JVM that this user may attach to:
//
//   - the id is a process's, not one of its threads' (Tgid in
//     /proc/ID/status is the id itself): /proc/TID exists for every thread,
//     and a thread id from top -H would pass every other check while no
//     JVM ever answers an attach to it;
//   - the process exists and runs as the current effective user (or the
//     current user is root): the attach mechanism refuses anyone else;
//   - the process is not a zombie;
//   - libjvm is mapped into the process (/proc/PID/maps). Only when the
//     map cannot be read, HotSpot's perf-data file hsperfdata_<user>/<pid>
//     in the temp directory the JVM sees (HotSpot uses /tmp on Linux
//     whatever java.io.tmpdir says; inside a container, /proc/PID/root/tmp
//     with the pid the container knows) stands for it: a JVM killed or
//     crashed leaves that file behind, and its pid may be reused.
//
// The check only reads files; it sends nothing to the process. It records
// the process's start time, by which the process is known again before
// each signal and attach (jvmcheck_identity.go, jvmcheck_attach.go).

// procRoot is where process information is read; a variable for tests.
var procRoot = "/proc"

// jvmProcess is a process checkJVM proved a JVM the current user can
// attach to, as it was at the check.
type jvmProcess struct {
	pid   int
	nspid int    // its pid in its own pid namespace (a container's)
	uid   int    // its effective uid
	start uint64 // field 22 of /proc/PID/stat; 0 where there is no /proc
	cmd   string // its command line, for messages
	// perfData is the HotSpot perf-data file the JVM has mapped, as a
	// path from here (through /proc/PID/root); empty when it maps none
	// (-XX:-UsePerfData) or the map cannot be read.
	perfData string
}

// label names the JVM in messages: "JVM 4242 (java -jar app.jar)".
func (p *jvmProcess) label() string {
	if p.cmd == "" {
		return fmt.Sprintf("JVM %d", p.pid)
	}
	return fmt.Sprintf("JVM %d (%s)", p.pid, p.cmd)
}

// checkJVM returns nil when pid is a HotSpot JVM the current user can
// attach to, else an error wrapping ErrNotJVM that says what was missing.
func checkJVM(pid int) error {
	_, err := inspectJVM(pid)
	return err
}

// inspectJVM is checkJVM, returning what it learned about the JVM.
func inspectJVM(pid int) (*jvmProcess, error) {
	notJVM := func(why string) error {
		return fmt.Errorf("PID %d is %w: %s; no signal was sent", pid, ErrNotJVM, why)
	}
	p := &jvmProcess{pid: pid, nspid: pid, uid: -1}
	if runtime.GOOS != "linux" {
		if perfDataIn(os.TempDir(), strconv.Itoa(pid), -1) {
			return p, nil
		}
		return nil, notJVM("no hsperfdata_*/" + strconv.Itoa(pid) + " in " + os.TempDir())
	}
	proc := filepath.Join(procRoot, strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(proc, "status"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errESRCH) {
		return nil, notJVM("no such process")
	}
	if err != nil {
		return nil, notJVM(fmt.Sprintf("cannot read its status: %v", err))
	}
	if tgid := statusTgid(status); tgid > 0 && tgid != pid {
		return nil, threadIDError{tid: pid, tgid: tgid, cmd: processCommand(tgid)}
	}
	st, err := readProcStat(pid)
	if errors.Is(err, errNoProcess) {
		return nil, notJVM("no such process")
	}
	if err != nil {
		return nil, notJVM(fmt.Sprintf("cannot read its start time: %v", err))
	}
	p.start = st.start
	p.uid, p.nspid = statusUIDAndNSPid(status, pid)
	if me := os.Geteuid(); me != 0 && p.uid != me {
		return nil, notAttachableError{pid: pid, uid: p.uid, me: me}
	}
	if statusZombie(status) || st.exited() {
		return nil, notJVM("it is a zombie: the process has exited and its parent has not reaped it")
	}
	dirs := []struct {
		dir string
		pid int
	}{{"/tmp", pid}, {filepath.Join(proc, "root", "tmp"), p.nspid}}
	perfData := false
	for _, d := range dirs {
		perfData = perfData || perfDataIn(d.dir, strconv.Itoa(d.pid), p.uid)
	}
	// The memory map decides when it can be read: a JVM killed or crashed
	// leaves its perf-data file behind, and its pid may since belong to
	// another process, which SIGQUIT would kill.
	m, err := readJVMMaps(filepath.Join(proc, "maps"), p.nspid)
	if m.perfData != "" {
		p.perfData = filepath.Join(proc, "root", m.perfData)
	}
	switch {
	case err == nil && m.libjvm:
	case err == nil && perfData:
		return nil, notJVM("no libjvm in its memory map; its HotSpot perf-data file (hsperfdata_*/" + strconv.Itoa(pid) +
			") is stale, left by a JVM that was killed or crashed, and the pid now belongs to another process")
	case err == nil:
		return nil, notJVM("no HotSpot perf-data file (hsperfdata_*/" + strconv.Itoa(pid) + ") and no libjvm in its memory map")
	case !perfData:
		return nil, notJVM(fmt.Sprintf("no HotSpot perf-data file in /tmp/hsperfdata_*/ and its memory map cannot be read: %v", err))
	}
	// (The map cannot be read: the perf-data file is the only proof.)
	// Every file read belonged to this process if it still has the start
	// time read before them.
	if again, err := readProcStat(pid); err != nil || again.start != p.start {
		return nil, notJVM("the process exited while it was checked")
	}
	p.cmd = processCommand(pid)
	return p, nil
}

// statusZombie reports whether /proc/PID/status says the process is a
// zombie (State: Z), which has exited and cannot answer an attach.
func statusZombie(status []byte) bool {
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("State:")); ok {
			return bytes.HasPrefix(bytes.TrimSpace(v), []byte("Z"))
		}
	}
	return false
}

// statusUIDAndNSPid reads the effective uid and the innermost namespace's
// pid from /proc/PID/status; nspid is pid when the kernel does not say.
func statusUIDAndNSPid(status []byte, pid int) (uid, nspid int) {
	uid, nspid = -1, pid
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(val)
		switch {
		case key == "Uid" && len(fields) >= 2:
			uid, _ = strconv.Atoi(fields[1]) // real, effective, saved, fs
		case key == "NSpid" && len(fields) > 0:
			if n, err := strconv.Atoi(fields[len(fields)-1]); err == nil {
				nspid = n
			}
		}
	}
	return uid, nspid
}

// perfDataIn reports whether dir holds hsperfdata_<user>/<pid> as a regular
// file owned by uid (any owner when uid is negative).
func perfDataIn(dir, pid string, uid int) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, "hsperfdata_*", pid))
	for _, m := range matches {
		fi, err := os.Lstat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if owner, ok := fileOwner(fi); uid < 0 || !ok || owner == uid {
			return true
		}
	}
	return false
}

// jvmMaps is what a JVM's memory map shows of it.
type jvmMaps struct {
	libjvm bool // libjvm.so is mapped
	// perfData is the path, in the process's own mount namespace, of
	// the HotSpot perf-data file it maps (hsperfdata_<user>/<nspid>).
	perfData string
}

// readJVMMaps reads a /proc/PID/maps file for libjvm and the perf-data
// file of the process whose pid in its own namespace is nspid.
func readJVMMaps(path string, nspid int) (jvmMaps, error) {
	var m jvmMaps
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	perfSuffix := "/" + strconv.Itoa(nspid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// " (deleted)": the JDK was replaced on disk while the JVM runs.
		l := strings.TrimSuffix(sc.Text(), " (deleted)")
		switch i := strings.IndexByte(l, '/'); {
		case strings.HasSuffix(l, "/libjvm.so"):
			m.libjvm = true
		case i >= 0 && strings.HasSuffix(l, perfSuffix) && strings.HasPrefix(filepath.Base(filepath.Dir(l[i:])), "hsperfdata_"):
			m.perfData = l[i:]
		}
	}
	return m, sc.Err()
}
