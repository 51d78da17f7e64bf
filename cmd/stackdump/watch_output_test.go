package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchOutputIsAFile: watch -o FILE, FILE an existing regular file,
// is refused before any request with a message saying that watch's -o is
// a directory and FILE is a file, and FILE is left as it was; -o below a
// file says it wants a directory. Before, the message was "mkdir FILE:
// not a directory".
func TestWatchOutputIsAFile(t *testing.T) {
	srv, requests := countRequests(t, pprofMux())
	file := filepath.Join(t.TempDir(), "snapshots.json")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{file, "watch's -o is a directory that keeps each snapshot as a file, and " + file + " is a file"},
		{file + "/", "and " + file + "/ is a file"},
		{filepath.Join(file, "sub"), "watch keeps its snapshots in a directory"},
	} {
		_, _, err := runCLI(t, "watch", srv.URL, "--count", "1", "-o", tc.out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("watch -o %s: err = %v, want one saying %q", tc.out, err, tc.want)
		}
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != "{}\n" {
		t.Errorf("%s: %q, %v; want it unchanged", file, got, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
}
