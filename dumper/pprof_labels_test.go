package dumper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goToolPprofTags fetches url into a file and returns what `go tool pprof
// -tags` says about it.
func goToolPprofTags(t *testing.T, url string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not installed: this test runs go tool pprof")
	}
	resp, body := get(t, url)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	path := filepath.Join(t.TempDir(), "goroutines.pb")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "tool", "pprof", "-tags", path)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -tags: %v\n%s", err, out)
	}
	return string(out)
}

// TestPprofEndpointLabelsForProfileStores serves the endpoint's pprof form
// as profile stores scrape it and checks with the real `go tool pprof
// -tags` that its samples carry the goroutine state and a wait-time bucket
// (mode=full), the state (mode=trace), or neither (mode=grouped: the
// runtime's goroutine profile has no states).
func TestPprofEndpointLabelsForProfileStores(t *testing.T) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); <-release }()
	}
	t.Cleanup(func() { close(release); wg.Wait() })
	srv := newDumpServer(t, HandlerOptions{})
	base := srv.URL + "/debug/stackdump?format=pprof"

	full := goToolPprofTags(t, base+"&mode=full")
	t.Logf("go tool pprof -tags, mode=full:\n%s", full)
	for _, want := range []string{" state: Total ", "chan receive", " wait: Total ", "<1m"} {
		if !strings.Contains(full, want) {
			t.Errorf("mode=full: -tags lacks %q:\n%s", want, full)
		}
	}
	for _, bad := range []string{"goroutine_state", "goroutine_wait", "minutes"} {
		if strings.Contains(full, bad) {
			t.Errorf("mode=full: -tags has %q:\n%s", bad, full)
		}
	}

	if runtimeGo126 { // trace mode needs Go 1.26 (TestTraceModeBeforeGo126)
		trace := goToolPprofTags(t, base+"&mode=trace&window=50ms")
		if !strings.Contains(trace, " state: Total ") || strings.Contains(trace, " wait: ") {
			t.Errorf("mode=trace: want a state label and no wait label:\n%s", trace)
		}
	}

	grouped := goToolPprofTags(t, base+"&mode=grouped")
	if strings.Contains(grouped, " state: ") || strings.Contains(grouped, " wait: ") {
		t.Errorf("mode=grouped has no states or waits to label:\n%s", grouped)
	}
}
