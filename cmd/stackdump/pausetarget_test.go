package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pauseTarget is a running testdata/gen/pausetarget.
type pauseTarget struct {
	addr    string // its net/http/pprof port, host:port
	control string // its control port, host:port
	// stop ends it (its standard input closes) and waits for it; the
	// test's end calls it too.
	stop func()
}

// startPauseTarget builds and starts testdata/gen/pausetarget with
// args until the test ends.
func startPauseTarget(t *testing.T, args ...string) pauseTarget {
	t.Helper()
	return startPauseTargetEnv(t, nil, args...)
}

// startPauseTargetEnv is startPauseTarget with env added to the child's
// environment.
func startPauseTargetEnv(t *testing.T, env []string, args ...string) pauseTarget {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pausetarget")
	build := exec.Command("go", "build", "-o", bin, "./testdata/gen/pausetarget")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/gen/pausetarget: %v\n%s", err, out)
	}
	child := exec.Command(bin, args...)
	child.Env = append(os.Environ(), env...)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() { stdin.Close(); child.Wait() })
	t.Cleanup(stop)
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "listening" || f[2] != "control" {
		t.Fatalf("pausetarget did not start: %q", line)
	}
	return pauseTarget{addr: f[1], control: f[3], stop: stop}
}

// targetRequest is one pprof request the target served, with the pauses
// it saw meanwhile.
type targetRequest struct {
	Path         string `json:"path"`
	Query        string `json:"query"`
	PauseMaxNs   int64  `json:"pause_max_ns"`
	PauseTotalNs int64  `json:"pause_total_ns"`
	Pauses       int    `json:"pauses"`
}

// targetStats is what the target saw of its costs.
type targetStats struct {
	Connections int64           `json:"connections"`
	Requests    []targetRequest `json:"requests"`
	MaxPauseNs  int64           `json:"max_pause_ns"`
}

// stats asks the target's control port what it saw.
func (p pauseTarget) stats(t *testing.T) targetStats {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + p.control + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st targetStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
