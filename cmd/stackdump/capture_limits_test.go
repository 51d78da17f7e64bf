package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureRefusesNonPositiveLimits: --timeout, --connect-timeout and
// --max-bytes of 0 or below are refused by capture and watch before any
// request or directory, and --help says they must be positive. Before,
// each meant its default (2m, 5s, 2 GiB) without a word.
func TestCaptureRefusesNonPositiveLimits(t *testing.T) {
	srv, requests := countRequests(t, pprofMux())
	for _, tc := range []struct{ flag, value string }{
		{"--timeout", "0"}, {"--timeout", "-1s"}, {"--connect-timeout", "0s"},
		{"--connect-timeout", "-5s"}, {"--max-bytes", "0"}, {"--max-bytes", "-100"},
	} {
		for _, command := range []string{"capture", "watch"} {
			dir := filepath.Join(t.TempDir(), "out") + "/"
			args := []string{command, "-q", srv.URL, "-o", dir, tc.flag, tc.value}
			if command == "watch" {
				args = []string{command, srv.URL, "--count", "1", "-o", dir, tc.flag, tc.value}
			}
			_, _, err := runCLI(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.flag+" must be positive") && !strings.Contains(err.Error(), tc.flag+" must be a positive") {
				t.Errorf("%s %s %s: err = %v, want an error naming %s", command, tc.flag, tc.value, err, tc.flag)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s %s %s created %s (stat: %v)", command, tc.flag, tc.value, dir, err)
			}
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
	for _, command := range []string{"capture", "watch"} {
		stdout, _, err := runCLI(t, command, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, flag := range []string{"--timeout", "--connect-timeout", "--max-bytes"} {
			found := false
			for l := range strings.Lines(stdout) {
				if strings.Contains(l, flag+" ") && strings.Contains(l, "must be positive") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s --help does not say that %s must be positive:\n%s", command, flag, stdout)
			}
		}
	}
}
