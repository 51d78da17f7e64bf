package dumper

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// TestGoroutineHandlerCutIsVisible serves debug=2 with the size limit
// lowered below what 600 parked goroutines print: the text ends with a
// gotext.CutMarker line, stackdump's reader marks the dump truncated
// with a warning, and the trailer says "true". With the limit as shipped
// the same request is complete and the trailer says "false".
func TestGoroutineHandlerCutIsVisible(t *testing.T) {
	startFixture(t, 100)
	srv := httptest.NewServer(GoroutineHandler())
	defer srv.Close()
	defer rawClient.CloseIdleConnections()

	read := func(body []byte) *stack.Dump {
		t.Helper()
		dumps, err := formats.ReadAll(bytes.NewReader(body), formats.ReadOptions{})
		if err != nil || len(dumps) != 1 {
			t.Fatalf("reading the answer: %d dumps, %v", len(dumps), err)
		}
		return dumps[0]
	}

	resp, body := get(t, srv.URL+"?debug=2")
	if got := resp.Trailer.Get(TruncatedTrailer); got != "false" {
		t.Fatalf("complete answer: trailer %s %q, want false", TruncatedTrailer, got)
	}
	if d := read(body); d.Truncated || bytes.Contains(body, []byte(gotext.CutMarker)) {
		t.Fatalf("complete answer read as truncated (warnings %v)", d.Warnings)
	}

	old := goroutineHandlerMaxBytes
	goroutineHandlerMaxBytes = 64 << 10
	defer func() { goroutineHandlerMaxBytes = old }()
	resp, body = get(t, srv.URL+"?debug=2")
	if got := resp.Trailer.Get(TruncatedTrailer); got != "true" {
		t.Fatalf("cut answer: trailer %s %q, want true", TruncatedTrailer, got)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, gotext.CutMarker) || lines[len(lines)-2] != "" {
		t.Fatalf("cut answer ends %q, want a blank line and a %q line", lines[len(lines)-2:], gotext.CutMarker)
	}
	d := read(body)
	if !d.Truncated {
		t.Fatal("cut answer not read as truncated")
	}
	warned := false
	for _, w := range d.Warnings {
		warned = warned || strings.HasPrefix(w.Msg, "dump truncated: ") && strings.Contains(w.Msg, "later goroutines are missing") && w.Line == len(lines)
	}
	if !warned {
		t.Fatalf("no warning about the cut at line %d: %v", len(lines), d.Warnings)
	}
	if n := len(d.Routines); n == 0 || n >= 600 {
		t.Fatalf("%d routines read from the cut answer, want some but not the 600 parked", n)
	}
	t.Logf("cut: %d routines, %s", len(d.Routines), last)
}
