package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureBadTargetCreatesNothing: a bad target, in --targets FILE
// (named by its line) or among the arguments, is refused by capture and
// watch before the -o directory is made and before any request. Before,
// the directory was made first and left behind empty.
func TestCaptureBadTargetCreatesNothing(t *testing.T) {
	srv, requests := countRequests(t, pprofMux())
	list := filepath.Join(t.TempDir(), "hosts.txt")
	content := "# fleet\n" + srv.URL + "\n\n" + srv.URL + "/debug/pprof/heap  # not a goroutine dump\n"
	if err := os.WriteFile(list, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"capture --targets", []string{"capture", "-q", "--targets", list}, list + ":4: target"},
		{"watch --targets", []string{"watch", "--count", "1", "--targets", list}, list + ":4: target"},
		{"capture arguments", []string{"capture", "-q", srv.URL, "gops://no-port"}, `target "gops://no-port"`},
		{"watch arguments", []string{"watch", "--count", "1", srv.URL, "jvm:-4"}, `target "jvm:-4"`},
	} {
		dir := filepath.Join(t.TempDir(), "dumps")
		_, _, err := runCLI(t, append(tc.args, "-o", dir+"/")...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one naming %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s: %s was created (stat: %v)", tc.name, dir, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
}
