package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertExecutionTrace converts a saved execution trace (recorded by
// testdata/gen/trace) through the ordinary reader.
func TestConvertExecutionTrace(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "trace", "go126.trace")
	out, errOut, err := runCLI(t, "convert", in, "--format", "folded")
	if err != nil {
		t.Fatalf("convert: %v\n%s", err, errOut)
	}
	for _, want := range []string{
		"main.condWait;sync.(*Cond).Wait;sync.runtime_notifyListWait 2",
		"main.ioWait;net.(*conn).Read;net.(*netFD).Read;internal/poll.(*FD).Read;internal/poll.(*pollDesc).waitRead;internal/poll.(*pollDesc).wait;internal/poll.runtime_pollWait 2",
		"main.mutexLock;sync.(*Mutex).Lock;internal/sync.(*Mutex).Lock;internal/sync.(*Mutex).lockSlow;internal/sync.runtime_SemacquireMutex 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "asynchronously preempted") {
		t.Errorf("standard error lacks the note about the preempted spinner: %q", errOut)
	}
}

// TestConvertExecutionTraceText converts a saved execution trace to the
// default text form: a goroutine dump with the inferred wait reasons.
func TestConvertExecutionTraceText(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "trace", "go126.trace")
	out, errOut, err := runCLI(t, "convert", in)
	if err != nil {
		t.Fatalf("convert: %v\n%s", err, errOut)
	}
	for _, want := range []string{
		"goroutine 14 [sync.RWMutex.RLock]:\nsync.runtime_SemacquireRWMutexR()\n",
		"goroutine 34 [IO wait]:\n",
		"main.deep()\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count("\n"+out, "\ngoroutine "); n != 31 {
		t.Errorf("%d goroutines in the output, want the trace's 31", n)
	}
}

func TestConvertRefusesGo122Trace(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "trace", "go122.trace")
	_, _, err := runCLI(t, "convert", in, "--format", "folded")
	if err == nil || !strings.Contains(err.Error(), "Go 1.22") || !strings.Contains(err.Error(), "full") {
		t.Errorf("err = %v, want a refusal naming Go 1.22 and suggesting a full dump", err)
	}
}
