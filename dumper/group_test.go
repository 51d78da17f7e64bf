package dumper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// TestHandlerDedupe asks the endpoint for grouped output: the JSON and
// debug=1 forms read back as one counted record per fixture stack, and the
// grouped text report counts them.
func TestHandlerDedupe(t *testing.T) {
	startFixture(t, 20)
	srv := newDumpServer(t, HandlerOptions{})
	for _, q := range []string{"dedupe=1&format=json", "by=func&format=json", "dedupe=1&format=debug1", "dedupe=1&mode=grouped&format=json", "by=stack&format=json"} {
		resp, body := get(t, srv.URL+"/debug/stackdump?"+q)
		if resp.StatusCode != 200 {
			t.Fatalf("?%s: %d %s", q, resp.StatusCode, body)
		}
		checkGroupedFixture(t, "?"+q, readDump(t, body), 20)
	}
	resp, body := get(t, srv.URL+"/debug/stackdump?dedupe=1")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "20 goroutines [chan receive]") {
		t.Errorf("?dedupe=1: %d, text without a group of 20: %.300s", resp.StatusCode, body)
	}
	if resp, body := get(t, srv.URL+"/debug/stackdump?by=nearly"); resp.StatusCode != 400 || !strings.Contains(string(body), "exact") {
		t.Errorf("?by=nearly: %d %s, want 400 listing the levels", resp.StatusCode, body)
	}
}

func TestWriteFileDedupe(t *testing.T) {
	startFixture(t, 20)
	path := filepath.Join(t.TempDir(), "groups.json.zst")
	if err := WriteFile(context.Background(), path, FileOptions{By: dedupe.ByStack}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupedFixture(t, path, readDump(t, b), 20)
	if err := WriteFile(context.Background(), path, FileOptions{By: dedupe.By(42)}); err == nil || !strings.Contains(err.Error(), "By(42)") {
		t.Errorf("WriteFile with By(42): %v, want an error naming it", err)
	}
}

// checkGroupedFixture checks that each uniformly labelled fixture stack is
// one record counting n goroutines.
func checkGroupedFixture(t *testing.T, what string, d *stack.Dump, n int64) {
	t.Helper()
	byFn := fixtureRoutines(d)
	for _, fn := range []string{"parkedRecv", "parkedSelect", "parkedMutex", "parkedLabeled"} {
		rs := byFn[fn]
		if len(rs) != 1 || rs[0].Count != n {
			var counts []int64
			for _, r := range rs {
				counts = append(counts, r.Count)
			}
			t.Errorf("%s: %s read back as records of %v goroutines, want one of %d", what, fn, counts, n)
		}
	}
}
