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
// The check only reads files; it sends nothing to the process.

// procRoot is where process information is read; a variable for tests.
var procRoot = "/proc"

// checkJVM returns nil when pid is a HotSpot JVM the current user can
// attach to, else an error wrapping ErrNotJVM that says what was missing.
func checkJVM(pid int) error {
	notJVM := func(why string) error {
		return fmt.Errorf("PID %d is %w: %s; no signal was sent", pid, ErrNotJVM, why)
	}
	if runtime.GOOS != "linux" {
		if perfDataIn(os.TempDir(), strconv.Itoa(pid), -1) {
			return nil
		}
		return notJVM("no hsperfdata_*/" + strconv.Itoa(pid) + " in " + os.TempDir())
	}
	proc := filepath.Join(procRoot, strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(proc, "status"))
	if errors.Is(err, fs.ErrNotExist) {
		return notJVM("no such process")
	}
	if err != nil {
		return notJVM(fmt.Sprintf("cannot read its status: %v", err))
	}
	uid, nspid := statusUIDAndNSPid(status, pid)
	if me := os.Geteuid(); me != 0 && uid != me {
		return notAttachableError{pid: pid, uid: uid, me: me}
	}
	if statusZombie(status) {
		return notJVM("it is a zombie: the process has exited and its parent has not reaped it")
	}
	dirs := []struct {
		dir string
		pid int
	}{{"/tmp", pid}, {filepath.Join(proc, "root", "tmp"), nspid}}
	perfData := false
	for _, d := range dirs {
		perfData = perfData || perfDataIn(d.dir, strconv.Itoa(d.pid), uid)
	}
	// The memory map decides when it can be read: a JVM killed or crashed
	// leaves its perf-data file behind, and its pid may since belong to
	// another process, which SIGQUIT would kill.
	mapped, err := mapsLibJVM(filepath.Join(proc, "maps"))
	switch {
	case err == nil && mapped:
		return nil
	case err == nil && perfData:
		return notJVM("no libjvm in its memory map; its HotSpot perf-data file (hsperfdata_*/" + strconv.Itoa(pid) +
			") is stale, left by a JVM that was killed or crashed, and the pid now belongs to another process")
	case err == nil:
		return notJVM("no HotSpot perf-data file (hsperfdata_*/" + strconv.Itoa(pid) + ") and no libjvm in its memory map")
	case perfData:
		return nil // the map cannot be read: the perf-data file is the only proof
	}
	return notJVM(fmt.Sprintf("no HotSpot perf-data file in /tmp/hsperfdata_*/ and its memory map cannot be read: %v", err))
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

// mapsLibJVM reports whether a /proc/PID/maps file maps libjvm.
func mapsLibJVM(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// " (deleted)": the JDK was replaced on disk while the JVM runs.
		if l := strings.TrimSuffix(sc.Text(), " (deleted)"); strings.HasSuffix(l, "/libjvm.so") {
			return true, nil
		}
	}
	return false, sc.Err()
}
