package remote

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// readDocument reads doc's one dump with its routines.
func readDocument(t *testing.T, doc *Document) *formats.Dump {
	t.Helper()
	defer doc.Close()
	d, err := doc.Next()
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range doc.Routines() {
		if err != nil {
			t.Logf("warning: %v", err)
			continue
		}
		d.Routines = append(d.Routines, r)
	}
	if _, err := doc.Next(); err != io.EOF {
		t.Errorf("a second dump in the document: %v", err)
	}
	return d
}

// TestOpenDocumentSmallPprof captures this process through net/http/pprof:
// debug=1 predicts no cut, so the document is debug=2, and source.capture
// names both fetches.
func TestOpenDocumentSmallPprof(t *testing.T) {
	parkedInRemoteTest(t, 25)
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL, "")
	doc, err := OpenDocument(context.Background(), tg, Options{}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Cut || !strings.Contains(doc.URL, "debug=2") {
		t.Errorf("cut %v, URL %s: want debug=2, not cut", doc.Cut, doc.URL)
	}
	d := readDocument(t, doc)
	n := 0
	for _, r := range d.Routines {
		if fs := r.Frames(); len(fs) > 0 && slices.ContainsFunc(fs, func(f *formats.Frame) bool { return strings.HasSuffix(f.Func, ".blockedInRemoteTest") }) {
			n++
		}
	}
	c := d.Source.Capture
	if n != 25 || d.Truncated || c == nil || c.Mode != "full" || !slices.Equal(c.Methods, []string{"debug1", "debug2"}) || c.Goroutines < 25 {
		t.Errorf("%d blockedInRemoteTest goroutines (want 25), truncated %v, capture %+v", n, d.Truncated, c)
	}
}

// TestPredictDebug2Size checks the estimate against this process's real
// debug=2 size: within a factor of two either way.
func TestPredictDebug2Size(t *testing.T) {
	parkedInRemoteTest(t, 300)
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	counts, err := fetchCounts(context.Background(), tg, Options{}.withDefaults(), formats.ReadOptions{Table: formats.NewTable()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	real := int64(len(readStream(t, s)))
	est := predictDebug2Size(counts.dump)
	t.Logf("debug=2: %d bytes, estimated from debug=1: %d", real, est)
	if est < real/2 || est > real*2 {
		t.Errorf("estimate %d bytes for a debug=2 of %d", est, real)
	}
}
