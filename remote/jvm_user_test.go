package remote

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestJVMCaptureOtherUser captures a real JVM of another user: run as root,
// the test re-runs itself as uid 65534 (nobody) against a JVM it started as
// root. The capture is refused before any signal, and the message names
// the users instead of saying the process is no JVM, which would mislead.
func TestJVMCaptureOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a child as another user than the JVM's")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the user check is Linux only")
	}
	jvm := startJVM(t)
	// The child binary must be readable by nobody: copy it to a 0755 dir.
	dir, err := os.MkdirTemp("", "jvmuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "remote.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(bin, "-test.run=^$")
	child.Env = append(os.Environ(), checkJVMChildEnv+"="+strconv.Itoa(jvm))
	child.Dir = dir
	child.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := child.CombinedOutput()
	if errors.Is(err, fs.ErrPermission) {
		t.Skipf("uid 65534 cannot run the test binary here (%v): the temporary directory is not open to other users", err)
	}
	if err != nil {
		t.Fatalf("child as uid 65534: %v\n%s", err, out)
	}
	got := string(out)
	want := "PID " + strconv.Itoa(jvm) + " runs as uid 0, and a JVM admits an attach only from its own user or root (stackdump runs as uid 65534)"
	if !strings.Contains(got, want) || !strings.Contains(got, "ErrNotJVM=true") || strings.Contains(got, "not a Java virtual machine") {
		t.Fatalf("checking a root JVM as uid 65534:\n%s\nwant %q, ErrNotJVM, and no claim that it is no JVM", got, want)
	}
	t.Logf("as shown to users: %s", strings.SplitN(got, "\n", 2)[0])
}

// copyExecutable copies the file src to dst with mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
