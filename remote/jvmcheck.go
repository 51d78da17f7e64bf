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
//   - HotSpot's perf-data file hsperfdata_<user>/<pid> exists in the temp
//     directory the JVM sees (HotSpot uses /tmp on Linux whatever
//     java.io.tmpdir says; inside a container, /proc/PID/root/tmp with the
//     pid the container knows), or, for JVMs run with -XX:-UsePerfData,
//     libjvm is mapped into the process (/proc/PID/maps).
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
		return notJVM(fmt.Sprintf("it runs as uid %d and attaching needs that user or root (stackdump runs as uid %d)", uid, me))
	}
	dirs := []struct {
		dir string
		pid int
	}{{"/tmp", pid}, {filepath.Join(proc, "root", "tmp"), nspid}}
	for _, d := range dirs {
		if perfDataIn(d.dir, strconv.Itoa(d.pid), uid) {
			return nil
		}
	}
	mapped, err := mapsLibJVM(filepath.Join(proc, "maps"))
	if err != nil {
		return notJVM(fmt.Sprintf("no HotSpot perf-data file in /tmp/hsperfdata_*/ and its memory map cannot be read: %v", err))
	}
	if mapped {
		return nil
	}
	return notJVM("no HotSpot perf-data file (hsperfdata_*/" + strconv.Itoa(pid) + ") and no libjvm in its memory map")
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
		if strings.HasSuffix(sc.Text(), "/libjvm.so") {
			return true, nil
		}
	}
	return false, sc.Err()
}
