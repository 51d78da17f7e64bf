package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEInstall runs the install lines of the README's Install
// section, as written, from the repository root (or the directory a
// leading "cd DIR &&" names): each gives a binary
// where the README says it lands (make build's ./bin/stackdump with BIN
// pointed elsewhere, go install's $GOBIN), and that binary answers
// --version. A line that cannot work from a clone (`go install …@latest`
// of a module that is not published) is refused.
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Install\n")
	if !ok {
		t.Fatal("README has no Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README's Install section has no sh block")
	}
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		command, comment, _ := strings.Cut(line, "#")
		// "cd DIR && go install ." (a command in a module of its own)
		// runs in DIR.
		workDir := filepath.Join("..", "..")
		if cd, rest, ok := strings.Cut(command, "&&"); ok && strings.HasPrefix(strings.TrimSpace(cd), "cd ") {
			workDir = filepath.Join(workDir, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cd), "cd ")))
			command = rest
		}
		args := strings.Fields(command)
		if strings.Contains(command, "@") {
			t.Errorf("README installs %q: the module is not published", strings.TrimSpace(command))
			continue
		}
		dir := t.TempDir()
		var bin string
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = workDir
		switch {
		case len(args) == 2 && args[0] == "make" && args[1] == "build":
			if !strings.Contains(comment, "./bin/stackdump") {
				t.Errorf("README: %q does not say the binary lands in ./bin/stackdump", line)
			}
			bin = filepath.Join(dir, "stackdump")
			cmd.Args = append(cmd.Args, "BIN="+bin) // not the clone's bin/: the test's
		case len(args) >= 2 && args[0] == "go" && args[1] == "install":
			if !strings.Contains(comment, "$(go env GOBIN)") || !strings.Contains(comment, "$(go env GOPATH)/bin") {
				t.Errorf("README: %q does not say where go install puts the binary", line)
			}
			bin = filepath.Join(dir, "stackdump")
			cmd.Env = append(os.Environ(), "GOBIN="+dir)
		default:
			t.Errorf("README's Install block: %q is neither make build nor go install", line)
			continue
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || !strings.HasPrefix(string(out), "stackdump ") {
			t.Errorf("%s: %s --version: %q, %v", command, bin, out, err)
		}
		ran++
	}
	if ran < 2 {
		t.Errorf("README's Install block ran %d install lines, want make build and go install", ran)
	}
}
