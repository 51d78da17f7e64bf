package main

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// fetchPage returns the body of a GET of url.
func fetchPage(t *testing.T, url string) []byte {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return body
}

// `curl …/debug/pprof/threadcreate?debug=1 | stackdump convert` wrote
// "goroutine profile: total N" and exited 0; the other profiles' pages
// failed with "no dump found". Each is now refused by name, and nothing
// is written.
func TestConvertOtherProfilePages(t *testing.T) {
	srv := pprofServer(t)
	for _, c := range []struct{ page, name string }{
		{"threadcreate", "the threadcreate profile"},
		{"heap", "the heap or allocs profile"},
		{"allocs", "the heap or allocs profile"},
		{"block", "the block profile"},
		{"mutex", "the mutex profile"},
	} {
		page := fetchPage(t, srv.URL+"/debug/pprof/"+c.page+"?debug=1")
		out, _, err := runCLIInput(t, page, "convert")
		if !errors.Is(err, stack.ErrNotGoroutineProfile) || !strings.Contains(err.Error(), c.name) || out != "" {
			t.Errorf("convert of /debug/pprof/%s?debug=1: error %v, output %q; want %q refused", c.page, err, out, c.name)
		}
	}
}
