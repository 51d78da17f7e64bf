package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// TestCLIWords: the library's errors name no flag of the command, and the
// command says them in its own words, as it did before the library's
// were changed, wherever they sit in a wrapped error.
func TestCLIWords(t *testing.T) {
	forError := func(path string, opts output.Options) error {
		_, _, err := output.For(path, opts)
		if err == nil {
			t.Fatalf("output.For(%s, %+v) took it", path, opts)
		}
		return err
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x.txt: %w", formats.ErrGroupedText),
			"x.txt: not a goroutine or thread dump: this is stackdump's grouped text (convert --dedupe), written for people and not read back; write groups with --format json to read them again"},
		{stack.ErrOneDumpPerProfile,
			"formats: a pprof profile or folded stacks hold one dump; write each dump to its own file, or convert to text or json"},
		{fmt.Errorf("%w: binary data", stack.ErrNotDump), "not a goroutine or thread dump: binary data"},
		{fmt.Errorf("%w (GET x: 404)", remote.ErrNoLeakProfile),
			"the target has no goroutine leak profile: --mode leak needs a target built with Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile) (GET x: 404)"},
		{fmt.Errorf("%w: its index lists none; raising the bound would not help (it has 3 goroutines)", remote.ErrNoLeakProfile),
			"raising --leak-max-goroutines would not help"},
		{fmt.Errorf("%w: 403", remote.ErrLeakUncounted), "is unknown; --leak-max-goroutines 0 takes it without the count: 403"},
		{&dumper.LeakBoundError{Goroutines: 30, Bound: 10}, "to take it anyway, raise the bound: --leak-max-goroutines N on the command line (0: no bound)"},
		{forError("x.gz", output.Options{Compression: "none"}), "x.gz: a .gz name, but --compress is none (name it x)"},
		{forError("x.json", output.Options{Format: "text"}), "x.json: a json name, but --format is text"},
		{forError("x.dat", output.Options{}), "or say --format)"},
	} {
		for _, flag := range []string{"--mode", "--leak-max-goroutines", "--format", "--dedupe", "--compress"} {
			if strings.Contains(c.err.Error(), flag) {
				t.Errorf("the library's error names %s: %v", flag, c.err)
			}
		}
		got := cliMessage(c.err)
		if !strings.Contains(got, c.want) {
			t.Errorf("cliMessage(%v) = %q, want it to hold %q", c.err, got, c.want)
		}
		if again := cliError(cliError(c.err)); again.Error() != got || !errors.Is(again, c.err) {
			t.Errorf("cliError twice: %q, want %q, and errors.Is to see the library's error", again, got)
		}
	}
}

// libraryAdvice is what a library error may not say: a flag, or a
// command of stackdump's.
var libraryAdvice = regexp.MustCompile(`--[a-z]|stackdump (ps|capture|analyze|convert|report|timeline|watch)\b`)

// TestCLIWordsOfCaptures: the errors remote and goproc really return for
// a capture say what is wrong in the library's words, with no flag and no
// command of stackdump's, and the command says them as it did before the
// library's words were changed.
func TestCLIWordsOfCaptures(t *testing.T) {
	ctx := context.Background()
	target := func(raw string) remote.Target {
		t.Helper()
		tg, err := remote.ParseTarget(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	document := func(raw string, opts remote.Options) error {
		t.Helper()
		doc, err := remote.OpenDocument(ctx, target(raw), opts, formats.ReadOptions{})
		if err != nil {
			return err
		}
		for _, err := doc.Next(); err == nil; _, err = doc.Next() {
			for range doc.Routines() {
			}
		}
		if err := doc.Close(); err != nil {
			return err
		}
		t.Fatalf("%s: captured, want an error", raw)
		return nil
	}

	// A target that never answers; one with net/http/pprof but no trace,
	// one without debug=1 either; a whole net/http/pprof.
	stall := make(chan struct{})
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	defer stalled.Close()
	defer close(stall)
	noTrace := httptest.NewServer(http.HandlerFunc(pprof.Index))
	defer noTrace.Close()
	noCounts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("debug") == "1" {
			http.NotFound(w, r)
			return
		}
		pprof.Index(w, r)
	}))
	defer noCounts.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	whole := httptest.NewServer(mux)
	defer whole.Close()
	leak(t, 50)

	_, agentErr := remote.Open(ctx, target("gops://127.0.0.1:1"), remote.Options{Mode: remote.ModeLeak})
	_, jvmErr := remote.Open(ctx, target("jvm:1"), remote.Options{Mode: remote.ModeLeak})
	_, timeoutErr := remote.Open(ctx, target(stalled.URL+"/debug/pprof/goroutine"), remote.Options{Timeout: 200 * time.Millisecond, Retries: -1})

	cases := []struct {
		err  error
		want string
	}{
		{timeoutErr, "; the process may be stopped, overloaded, or behind a firewall that drops packets; --timeout sets the bound"},
		{document(noTrace.URL+"/debug/pprof/goroutine", remote.Options{Mode: remote.ModeTrace}),
			"pprof.Index alone does not); capture without --mode trace, or mount pprof.Trace at /debug/pprof/trace"},
		{document(noCounts.URL+"/debug/pprof/goroutine", remote.Options{MaxPause: 10 * time.Millisecond}),
			"capture without --mode trace, or mount pprof.Trace at /debug/pprof/trace (--max-pause 0: no bound)"},
		{document(whole.URL+"/debug/pprof/goroutine", remote.Options{Mode: remote.ModeTrace, MaxBytes: 2000}),
			"remote: dump exceeds the size limit (--max-bytes)"},
		{document("pid:1", remote.Options{Mode: remote.ModeGrouped}),
			"--mode grouped: a pid: target is read from its memory, every goroutine with its id, state and stack (--mode full); for counts per stack write the dump with --dedupe or --format debug1"},
		{agentErr, "--mode leak: a gops agent serves no goroutine leak profile (nothing was sent to 127.0.0.1:1); capture the program's net/http/pprof or stackdump's endpoint"},
		{jvmErr, "--mode leak: a JVM thread dump marks no thread leaked (nothing was sent to process 1)"},
	}
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		// A pid: target refused before anything is attached, as procfs
		// (a fake one: this process is 100, of this test's user) says.
		me := os.Getuid()
		refused := func(scope string, pid, uid int) error {
			t.Helper()
			root := t.TempDir()
			status := func(pid, ppid, uid int) {
				dir := filepath.Join(root, strconv.Itoa(pid))
				os.MkdirAll(dir, 0o755)
				text := fmt.Sprintf("Name:\t%s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\nUid:\t%d\t%[5]d\t%[5]d\t%[5]d\nGid:\t%[5]d\t%[5]d\t%[5]d\t%[5]d\nCapEff:\t0000000000000000\n",
					map[bool]string{true: "stackdump", false: "server"}[pid == 100], pid, pid, ppid, uid)
				if err := os.WriteFile(filepath.Join(dir, "status"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			status(100, 1, me)
			status(200, 1, uid)
			os.Symlink("100", filepath.Join(root, "self"))
			if scope != "" {
				os.MkdirAll(filepath.Join(root, "sys/kernel/yama"), 0o755)
				os.WriteFile(filepath.Join(root, "sys/kernel/yama/ptrace_scope"), []byte(scope+"\n"), 0o644)
			}
			_, err := goproc.OpenProcess(root, pid)
			if !errors.Is(err, goproc.ErrRefused) {
				t.Fatalf("pid %d, ptrace_scope %q: %v, want a refusal", pid, scope, err)
			}
			return err
		}
		cases = append(cases, []struct {
			err  error
			want string
		}{
			{refused("", 100, me), "process 100 is stackdump itself: give the id of another process (stackdump ps lists the Go processes)"},
			{refused("", 999, me), "no process 999 on this machine (stackdump ps lists the Go processes; a process in a container has another id outside it: give the one ps shows on the host)"},
			{refused("", 200, me+1), fmt.Sprintf("process 200 (server) runs as uid %d and stackdump as uid %d without CAP_SYS_PTRACE: the kernel lets a process trace only its own user's processes; run stackdump as that user (sudo -u '#%[1]d' stackdump …) or as root", me+1, me)},
			{refused("2", 200, me), "kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may trace another; run stackdump as root (sudo stackdump capture pid:200)"},
			{refused("1", 200, me), "kernel.yama.ptrace_scope is 1: a process may trace only its own descendants, and process 200 (server) is not one of stackdump's; run stackdump with CAP_SYS_PTRACE (sudo stackdump capture pid:200), or lift the restriction machine-wide with sysctl kernel.yama.ptrace_scope=0"},
		}...)
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("no error, want one the command says as %q", c.want)
			continue
		}
		if m := libraryAdvice.FindString(c.err.Error()); m != "" {
			t.Errorf("the library's error says %q: %v", m, c.err)
		}
		if got := cliMessage(c.err); !strings.Contains(got, c.want) {
			t.Errorf("cliMessage(%v)\n = %q\nwant it to hold %q", c.err, got, c.want)
		}
	}

	// remote.ParseTarget's errors, as the command parses a target.
	for raw, want := range map[string]string{
		"pid:0":                                `target "pid:0": want pid:PID with a positive process id (stackdump ps lists the Go processes)`,
		"http://h:1/debug/pprof/trace":         `target "http://h:1/debug/pprof/trace": /debug/pprof/trace is the execution trace (take it with --mode trace), not a goroutine dump; give the goroutine profile's URL (/debug/pprof/goroutine) or host:port`,
		"http://h:1/debug/pprof/goroutineleak": `target "http://h:1/debug/pprof/goroutineleak": /debug/pprof/goroutineleak is the goroutine leak profile: its leak-detection GC cycle runs on every request (take it with --mode leak, which counts the goroutines first), not a goroutine dump; give the goroutine profile's URL (/debug/pprof/goroutine) or host:port`,
	} {
		_, libErr := remote.ParseTarget(raw, "")
		_, err := parseTarget(raw, "")
		if libErr == nil || libraryAdvice.MatchString(libErr.Error()) || err == nil || err.Error() != want {
			t.Errorf("%s: the library says %v, the command %v; want the command to say %q", raw, libErr, err, want)
		}
	}
}
