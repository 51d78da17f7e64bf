package analyze

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
)

// The crash fixtures are real runtime output (testdata/gen/README.md says
// which program printed each): the summary names the kind, the message
// and the goroutine that crashed, with its own frames.
func TestCrashOfRealCrashes(t *testing.T) {
	tests := []struct {
		file      string
		kind      string
		message   string // its first line
		lines     int
		goroutine int64
		frame     string // first frame of the crash stack
	}{
		{"../go/multiline_go126.txt", "panic", "first", 5, 1, "main.modeMultiline.func1"},
		{"../go/repanic_go126.txt", "panic", "first value [recovered]", 2, 1, "main.modeRepanic.func1"},
		{"../go/nested_go126.txt", "panic", "outer failure", 3, 1, "main.modeNested.func1"},
		{"../go/system_go126.txt", "panic", "system traceback", 1, 1, "main.inlinee"},
		{"../go/synctest_go126.txt", "panic", "inside the bubble [recovered, repanicked]", 1, 21, "testing.tRunner.func1.2"},
		{"../go/fatal_go126.txt", "fatal", "sync: unlock of unlocked mutex", 1, 1, "internal/sync.fatal"},
		{"../go/mapwrites_go126.txt", "fatal", "concurrent map writes", 1, 9, "main.modeMapWrites.func1"},
		{"../go/overflow_go126.txt", "fatal", "stack overflow", 1, 1, "main.overflow"},
		{"../go/deadlock_go126.txt", "deadlock", "all goroutines are asleep - deadlock!", 1, 0, ""},
		{"../go/goexit_go126.txt", "deadlock", "no goroutines (main called runtime.Goexit) - deadlock!", 1, 0, ""},
		{"../go/timeout_go126.txt", "timeout", "test timed out after 2s", 3, 5, "github.com/stackdump/stackdump/testdata/gen/timeout.TestHang"},
		// A nil dereference the runtime turned into a run-time panic is a
		// panic, its [signal SIGSEGV …] line the message's second line.
		{"../go/nilderef_go126.txt", "panic", "runtime error: invalid memory address or nil pointer dereference", 2, 1, "main.setN"},
		{"../go/sigquit_go126.txt", "signal", "SIGQUIT: quit", 1, 0, ""},
		{"../go/sigabrt_go126.txt", "signal", "SIGABRT: abort", 1, 0, ""},
		{"go/gotfmt_deadlock.txt", "deadlock", "all goroutines are asleep - deadlock!", 1, 0, ""},
		// A fault that did not become a panic: SIGSEGV with PC= (Go 1.4's
		// GC), on an OS thread's own stack: goroutine 0, printed first.
		{"go/gotfmt_go7725.txt", "signal", "SIGSEGV: segmentation violation", 1, 0, "scanblock"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := summarizeFile(t, tt.file, Options{})
			c := s.Crash
			if c == nil {
				t.Fatalf("no crash; preamble %q", s.Preamble)
			}
			lines := strings.Split(c.Message, "\n")
			if string(c.Kind) != tt.kind || lines[0] != tt.message || len(lines) != tt.lines || c.Goroutine != tt.goroutine {
				t.Errorf("crash %s %q (%d lines) in goroutine %d; want %s %q (%d lines) in goroutine %d",
					c.Kind, c.Message, len(lines), c.Goroutine, tt.kind, tt.message, tt.lines, tt.goroutine)
			}
			first := ""
			if len(c.Stack) > 0 {
				first = c.Stack[0].Func
			}
			if first != tt.frame {
				t.Errorf("first crash frame %q, want %q", first, tt.frame)
			}
			for _, f := range c.Stack {
				if strings.HasPrefix(f.Func, "runtime.") || f.Func == "panic" {
					t.Errorf("runtime frame %s left in the crash stack", f.Func)
				}
			}
		})
	}
}

// A nil dereference is headlined PANIC, with the signal line in its
// message (testdata/go/nilderef_go126.txt, testdata/gen/crash nilderef).
func TestCrashNilDereferenceIsAPanic(t *testing.T) {
	s := summarizeFile(t, "../go/nilderef_go126.txt", Options{})
	if s.Crash == nil || s.Crash.Kind != gotext.CrashPanic || !strings.HasPrefix(s.Crash.Message, "runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation ") {
		t.Fatalf("crash %+v", s.Crash)
	}
	var b bytes.Buffer
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "PANIC  runtime error: invalid memory address or nil pointer dereference\n       [signal SIGSEGV") {
		t.Errorf("text:\n%s", b.String())
	}
}

// A fault on an OS thread's own stack names it in the headline: the
// runtime printed goroutine 0 first, and its frames are where the fault
// happened (issue 38 item 6; testdata/corpus/go/gotfmt_go7725.txt).
func TestCrashFaultOnThreadStackNamed(t *testing.T) {
	s := summarizeFile(t, "go/gotfmt_go7725.txt", Options{})
	var b bytes.Buffer
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "SIGNAL  SIGSEGV: segmentation violation\nin goroutine 0 [idle], the runtime's stack of an OS thread:\n  scanblock mgc0.c:969\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("text does not name the faulting goroutine:\n%s", b.String())
	}
	// A signal sent from outside names none.
	s = summarizeFile(t, "../go/sigquit_go126.txt", Options{})
	b.Reset()
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "in goroutine") {
		t.Errorf("SIGQUIT names a goroutine that crashed:\n%s", b.String())
	}
}

// Go 1.25+ indents the running tests of a timeout with tabs: the text
// shows them indented under the message with spaces, no raw tab.
func TestCrashTimeoutTestsIndented(t *testing.T) {
	s := summarizeFile(t, "../go/timeout_go126.txt", Options{})
	var b bytes.Buffer
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "in goroutine")
	if want := "TIMEOUT  test timed out after 2s\n         running tests:\n           TestHang (2s)\n"; head != want {
		t.Errorf("crash block %q, want %q", head, want)
	}
}

// A go test timeout names the test still running, and the goroutine is
// the one running it, not the alarm's.
func TestCrashTimeoutNamesTheTest(t *testing.T) {
	s := summarizeFile(t, "../go/timeout_go126.txt", Options{})
	if s.Crash == nil || len(s.Crash.Tests) != 1 || s.Crash.Tests[0] != "TestHang" || s.Crash.State != "chan receive" {
		t.Fatalf("crash %+v", s.Crash)
	}
}

// Dumps that are not crashes carry no crash, in the summary and in JSON.
func TestCrashAbsentForPlainDumps(t *testing.T) {
	for _, name := range []string{"../go/debug2_go126.txt", "../go/stacks2_go126.txt", "go/profilernotes_2.net.http.pprof.goroutine.debug1.txt"} {
		s := summarizeFile(t, name, Options{})
		if s.Crash != nil {
			t.Errorf("%s: crash %+v", name, s.Crash)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, s); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b.Bytes(), []byte(`"crash"`)) {
			t.Errorf("%s: JSON has a crash member", name)
		}
	}
}

// The JSON of a crash has kind, message and goroutine, and the text opens
// with the crash, before the totals, and says nothing is all clear.
func TestCrashRendered(t *testing.T) {
	s := summarizeFile(t, "../go/repanic_go126.txt", Options{})
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dumps []struct {
			Crash map[string]any `json:"crash"`
		} `json:"dumps"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Dumps[0].Crash
	if c["kind"] != "panic" || c["message"] != "first value [recovered]\npanic: second value [recovered, repanicked]" || c["goroutine"] != float64(1) {
		t.Errorf("JSON crash %v", c)
	}
	b.Reset()
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "PANIC  first value [recovered]\n       panic: second value [recovered, repanicked]\nin goroutine 1 [running]:\n  main.modeRepanic.func1 main.go:149\n") {
		t.Errorf("text does not open with the crash:\n%s", text)
	}
	if strings.Contains(text, "✓") {
		t.Errorf("a crash is reported all clear:\n%s", text)
	}
}

// A GOTRACEBACK=crash dump printed one block per thread is one summary of
// the process, which says how many thread blocks it had.
func TestCrashThreadBlocksOneSummary(t *testing.T) {
	f, err := os.Open("../testdata/go/sigquit_crash_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := formats.NewReader(f, formats.ReadOptions{})
	s, _, err := SummarizeNext(rd, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SummarizeNext(rd, StreamOptions{}); err != io.EOF {
		t.Errorf("a second summary (%v): the thread blocks were not read as one dump", err)
	}
	if s.Crash == nil || s.Crash.Kind != gotext.CrashSignal || s.Crash.ThreadBlocks != 5 || s.Total != 28 {
		t.Errorf("crash %+v, total %d", s.Crash, s.Total)
	}
	var b bytes.Buffer
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "printed in 5 thread blocks") {
		t.Errorf("text does not count the thread blocks:\n%s", b.String())
	}
}
