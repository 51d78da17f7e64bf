package dumper

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// TestREADMEServiceLines builds the README's "Inside a Go service" lines,
// as the README prints them, into a program that imports net/http/pprof
// and serves http.DefaultServeMux on a loopback port, runs it, and asks
// the real server for each endpoint: ours answer at /debug/stackdump and
// /debug/pprof/goroutine, pprof's at the rest of /debug/pprof/. The lines
// that mount the handlers by hand (the README's inline `mux.Handle(…)`)
// are built and served the same way. Before dumper.Register and the
// method patterns, the program panicked at start-up: pattern
// "/debug/pprof/goroutine" conflicts with pattern "GET /debug/pprof/".
func TestREADMEServiceLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	imports, stmts := readmeServiceBlock(t, string(readme))
	byHand := regexp.MustCompile("`(mux\\.Handle\\([^`]*\\))`").FindAllStringSubmatch(string(readme), -1)
	if len(byHand) != 2 {
		t.Fatalf("README: %d inline mux.Handle(…) lines, want the two that mount the handlers by hand", len(byHand))
	}
	var hand []string
	for _, m := range byHand {
		hand = append(hand, m[1])
	}
	for _, tc := range []struct {
		name    string
		stmts   []string
		godebug string
		signal  bool // the lines set up OnSignal and write files
	}{
		{"block", stmts, "", true},
		{"block/httpmuxgo121", stmts, "httpmuxgo121=1", true},
		{"by hand", hand, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "dumps"), 0o755); err != nil {
				t.Fatal(err)
			}
			src := readmeProgram(imports, tc.stmts, dir)
			srv := startReadmeProgram(t, src, tc.godebug)
			get := func(p string) (*http.Response, string) {
				t.Helper()
				resp, err := http.Get(srv + p)
				if err != nil {
					t.Fatalf("GET %s: %v", p, err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("GET %s: %v", p, err)
				}
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %s\n%s", p, resp.Status, body)
				}
				return resp, string(body)
			}
			resp, body := get("/debug/pprof/goroutine?debug=2")
			if got := resp.Trailer.Get(TruncatedTrailer); got != "false" || !strings.Contains(body, "goroutine ") {
				t.Errorf("/debug/pprof/goroutine?debug=2: trailer %s %q, want \"false\" (GoroutineHandler's, not pprof's)", TruncatedTrailer, got)
			}
			resp, _ = get("/debug/stackdump?mode=grouped")
			if resp.Header.Get("X-Stackdump-Mode") != "grouped" {
				t.Errorf("/debug/stackdump: X-Stackdump-Mode %q, want grouped (stackdump's endpoint)", resp.Header.Get("X-Stackdump-Mode"))
			}
			if _, body := get("/debug/pprof/"); !strings.Contains(body, "Types of profiles available") {
				t.Errorf("/debug/pprof/ is not net/http/pprof's index any more:\n%s", body)
			}
			if _, body := get("/debug/pprof/heap?debug=1"); !strings.Contains(body, "heap profile") {
				t.Errorf("/debug/pprof/heap is not net/http/pprof's any more:\n%.200s", body)
			}
			if !tc.signal {
				return
			}
			for _, f := range []string{"goroutines.json.zst", "goroutines.dump"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("WriteFile's line: %v", err)
				}
			}
			pid := srvPID(t, dir)
			if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				dumps, _ := filepath.Glob(filepath.Join(dir, "dumps", "stackdump-*.txt.gz"))
				if len(dumps) == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no dump in dumps/ 20s after SIGUSR1: %v", dumps)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// readmeServiceBlock returns the import paths (with their names, as
// written) and the statements of the README's Go block after "Inside a Go
// service:".
func readmeServiceBlock(t *testing.T, readme string) (imports, stmts []string) {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "Inside a Go service:")
	if !ok {
		t.Fatal(`README: no "Inside a Go service:"`)
	}
	_, rest, ok = strings.Cut(rest, "```go\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("README: no Go block after \"Inside a Go service:\"")
	}
	inImport := false
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "import (":
			inImport = true
		case inImport && line == ")":
			inImport = false
		case inImport && line != "":
			spec, _, _ := strings.Cut(line, "//")
			imports = append(imports, strings.TrimSpace(spec))
		case line != "":
			stmts = append(stmts, line)
		}
	}
	if len(imports) == 0 || len(stmts) == 0 {
		t.Fatalf("README's service block: imports %q, statements %q", imports, stmts)
	}
	return imports, stmts
}

// readmeProgram is a main package running stmts with the README's names
// in scope (ctx, mux: http.DefaultServeMux), "/var/tmp/" meaning dir, then
// serving http.DefaultServeMux on a loopback port: it prints "listening
// ADDR" and its pid, and exits when its standard input closes.
func readmeProgram(imports, stmts []string, dir string) string {
	body := strings.ReplaceAll(strings.Join(stmts, "\n\t"), `"/var/tmp/`, `"`+dir+`/`)
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	have := map[string]bool{}
	for _, spec := range imports {
		f := strings.Fields(spec)
		p := strings.Trim(f[len(f)-1], `"`)
		name := path.Base(p)
		if len(f) == 2 {
			name = f[0]
		}
		// Only the imports the lines use, and blank ones (pprof's).
		if name != "_" && !strings.Contains(body, name+".") {
			continue
		}
		have[p] = true
		fmt.Fprintf(&b, "\t%s\n", spec)
	}
	for _, p := range []string{"context", "fmt", "io", "net", "net/http", "os", "syscall"} {
		if !have[p] {
			fmt.Fprintf(&b, "\t%q\n", p)
		}
	}
	b.WriteString(")\n\nvar _ = syscall.SIGUSR1\n\nfunc main() {\n\tctx := context.Background()\n\tmux := http.DefaultServeMux\n\t_, _ = ctx, mux\n\t")
	b.WriteString(body)
	b.WriteString("\n")
	if strings.Contains(body, "stop, err :=") {
		b.WriteString("\tdefer stop()\n\tif err != nil {\n\t\tpanic(err)\n\t}\n")
	}
	fmt.Fprintf(&b, `	os.WriteFile(%q, []byte(fmt.Sprint(os.Getpid())), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println("listening", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	panic(http.Serve(ln, nil))
}
`, filepath.Join(dir, "pid"))
	return b.String()
}

// srvPID is the pid the program wrote into dir.
func srvPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// startReadmeProgram builds src with this module (go build run from the
// repository root), runs it with GODEBUG=godebug when not empty until the
// test ends, and returns its base URL.
func startReadmeProgram(t *testing.T, src, godebug string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "service")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, file)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the README's lines: %v\n%s\n%s", err, out, src)
	}
	cmd := exec.CommandContext(ctx, bin)
	if godebug != "" {
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	}
	return livechild.StartCommand(ctx, t, cmd, "the README's service lines").URL
}
