package dumper

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// needGo126 skips a test of what only a process built with Go 1.26 or
// newer does (trace mode, labels printed by the runtime): the library
// builds and is tested with Go 1.24 too.
func needGo126(t testing.TB, what string) {
	t.Helper()
	if !runtimeGo126 {
		t.Skipf("%s needs a process built with Go 1.26 or newer; this one runs %s", what, runtime.Version())
	}
}

// Before Go 1.26 a full capture keeps the runtime's own text (for text
// output and the parallel JSON writer) only without labels, which the
// runtime cannot print there: the raw-text tests capture with
// NoLabels: !runtimeGo126.

// TestTraceModeBeforeGo126 checks that a process built with a Go older
// than 1.26 refuses trace mode up front, naming its runtime and what to
// use instead, and that the endpoint answers 501 with that message,
// rather than recording a trace it cannot decode.
func TestTraceModeBeforeGo126(t *testing.T) {
	if runtimeGo126 {
		t.Skipf("%s writes the go 1.26 trace format; the refusal is tested with Go 1.24 (make test-go1.24)", runtime.Version())
	}
	_, err := Capture(context.Background(), CaptureOptions{Mode: ModeTrace})
	if !errors.Is(err, ErrTraceUnsupported) || !strings.Contains(err.Error(), runtime.Version()) || !strings.Contains(err.Error(), "mode=full") {
		t.Fatalf("trace capture on %s: err = %v, want ErrTraceUnsupported naming the runtime and mode=full", runtime.Version(), err)
	}
	srv := httptest.NewServer(Handler(HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?mode=trace")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotImplemented || !strings.Contains(string(body), "Go 1.26 or newer") {
		t.Errorf("mode=trace on %s answered %s: %s; want 501 saying Go 1.26 or newer is needed", runtime.Version(), resp.Status, body)
	}
}
