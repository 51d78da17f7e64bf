package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// gitTop is the top of the git checkout holding the test, or a skip.
func gitTop(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// gitOut runs git in dir and returns its output, trimmed.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// versionOutputs runs bin --version and bin version, checks that they
// print the same line, and returns it.
func versionOutputs(t *testing.T, bin string) string {
	t.Helper()
	var lines []string
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Fatalf("stackdump %s: %v\n%s", arg, err, out)
		}
		lines = append(lines, string(out))
	}
	if lines[0] != lines[1] {
		t.Errorf("--version printed %q, version printed %q", lines[0], lines[1])
	}
	return lines[0]
}

// TestVersionMakeBuild builds the binary as `make build` does (in a git
// worktree, or under GOFLAGS=-buildvcs=false as on this machine, go build
// stamps no commit) and checks that --version names git's HEAD and says
// whether the tree had uncommitted changes.
func TestVersionMakeBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	top := gitTop(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	bin := filepath.Join(t.TempDir(), "stackdump")
	make := exec.Command("make", "build", "BIN="+bin)
	make.Dir = top
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	head := gitOut(t, top, "rev-parse", "HEAD")
	dirty := gitOut(t, top, "status", "--porcelain") != ""
	got := versionOutputs(t, bin)
	if !strings.HasPrefix(got, "stackdump ") || !strings.Contains(got, "commit "+head[:12]) {
		t.Errorf("make build's --version: %q, want stackdump and the commit %s", got, head[:12])
	}
	if strings.Contains(got, "uncommitted changes") != dirty {
		t.Errorf("make build's --version: %q; the tree has uncommitted changes: %v", got, dirty)
	}
}

// TestVersionGoBuildStamps builds the command as go build and go install
// do from a clone (its .git a directory: the binary is stamped with
// vcs.revision, vcs.modified and a pseudo-version) and checks that
// --version says what `go version -m` reads in the binary. go build
// stamps nothing in a git worktree (its .git is a file); there the test
// skips, and TestVersionMakeBuild covers the build.
func TestVersionGoBuildStamps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	gitTop(t)
	bin := filepath.Join(t.TempDir(), "stackdump")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var modVersion, rev, modified string
	for _, line := range strings.Split(string(info), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			modVersion = f[2]
		case len(f) == 2 && f[0] == "build":
			k, v, _ := strings.Cut(f[1], "=")
			switch k {
			case "vcs.revision":
				rev = v
			case "vcs.modified":
				modified = v
			}
		}
	}
	if rev == "" {
		t.Skipf("go build stamped no commit here (a git worktree?):\n%s", info)
	}
	want := "stackdump " + modVersion + ", commit " + rev[:12]
	if modified == "true" {
		want += " with uncommitted changes"
	}
	if got := versionOutputs(t, bin); !strings.HasPrefix(got, want+" (") {
		t.Errorf("--version: %q, want it to start %q (go version -m:\n%s)", got, want, info)
	}
}

// TestVersionOf checks the line for build information without a commit,
// and for a library module at a version of its own.
func TestVersionOf(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/stackdump/stackdump/cmd/stackdump", Version: "(devel)"}}
	if got, want := versionOf(bi, "", false, "linux/amd64"), "(devel), commit unknown (built without VCS stamping: go run, go test, -buildvcs=false or a git worktree; make build records it), go1.26.8 linux/amd64"; got != want {
		t.Errorf("no commit:\n got %q\nwant %q", got, want)
	}
	if got, want := versionOf(bi, "0123456789abcdef", true, "linux/arm64"), "(devel), commit 0123456789ab with uncommitted changes, go1.26.8 linux/arm64"; got != want {
		t.Errorf("make build's commit:\n got %q\nwant %q", got, want)
	}
	bi.Main.Version = "v1.2.0"
	bi.Deps = []*debug.Module{{Path: libraryPath, Version: "v1.2.1"}}
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.time", Value: "2026-12-07T20:35:41Z"}, {Key: "vcs.modified", Value: "false"}}
	if got, want := versionOf(bi, "0123456789abcdef", true, "linux/amd64"), "v1.2.0, commit fedcba987654 (2026-12-07T20:35:41Z), library v1.2.1, go1.26.8 linux/amd64"; got != want {
		t.Errorf("stamped, with a library version:\n got %q\nwant %q", got, want)
	}
}
