package dumper

import (
	"net/http"
	"strings"
	"testing"
)

// HandlerOptions.Format and Capture.Mode are read as the format= and
// mode= parameters are: any case.
func TestHandlerOptionsAnyCase(t *testing.T) {
	srv := newDumpServer(t, HandlerOptions{Format: "JSON", Capture: CaptureOptions{Mode: "Grouped"}})
	resp, body := get(t, srv.URL+"/debug/stackdump")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct, mode := resp.Header.Get("Content-Type"), resp.Header.Get("X-Stackdump-Mode"); ct != "application/json" || mode != "grouped" {
		t.Errorf("Content-Type %q, X-Stackdump-Mode %q; want application/json, grouped", ct, mode)
	}
	if d := readDump(t, body); d.Source.Capture == nil || d.Source.Capture.Mode != "grouped" {
		t.Errorf("served dump's capture: %+v", d.Source.Capture)
	}
}

// A Format or Mode that names nothing is the service owner's mistake:
// every request gets 500 naming the option, and nothing is captured (no
// stop-the-world pause, no X-Stackdump-Mode header).
func TestHandlerOptionsInvalid(t *testing.T) {
	for _, tc := range []struct {
		opts HandlerOptions
		want string
	}{
		{HandlerOptions{Format: "xml"}, `dumper.HandlerOptions.Format: unknown format "xml"`},
		{HandlerOptions{Capture: CaptureOptions{Mode: "fast"}}, `dumper.HandlerOptions.Capture.Mode: unknown capture mode "fast"`},
	} {
		srv := newDumpServer(t, tc.opts)
		for _, q := range []string{"", "?mode=grouped&format=text"} {
			resp, body := get(t, srv.URL+"/debug/stackdump"+q)
			if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), tc.want) {
				t.Errorf("%+v %s: status %d, body %.200q; want 500 with %q", tc.opts, q, resp.StatusCode, body, tc.want)
			}
			if m := resp.Header.Get("X-Stackdump-Mode"); m != "" {
				t.Errorf("%+v %s: captured (X-Stackdump-Mode %q) before refusing", tc.opts, q, m)
			}
		}
	}
}
