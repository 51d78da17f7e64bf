package livechild

import (
	"context"
	"io"
	"net/http"
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

// Fetch returns the body of a GET of url (a child's dump endpoint, a
// server's /debug/pprof/goroutine), failing the test unless it answers
// 200 OK in whole.
func Fetch(ctx context.Context, t testing.TB, url string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return body
}
