package livechild

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// StartServer runs cmd, a server the machine has installed (etcd,
// Prometheus, a JVM), until the test ends (killed, then waited for), its
// output in a file of the test's temporary directory, the end of which is
// shown when the test fails.
func StartServer(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	log := filepath.Join(t.TempDir(), filepath.Base(cmd.Path)+".log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log)
			if len(out) > 2000 {
				out = out[len(out)-2000:]
			}
			t.Logf("%s wrote:\n%s", filepath.Base(cmd.Path), out)
		}
	})
}
