package pprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// TestPprofHeadAcceptsRealProfiles checks the pprof reader's early junk
// check on every prefix of real profiles: none may be refused.
func TestPprofHeadAcceptsRealProfiles(t *testing.T) {
	files := []string{"../../testdata/pprof/go1.26.8.pb.gz", "../../testdata/pprof/go1.26.8.leak.pb.gz",
		"../../testdata/corpus/go/profilernotes_1.pprof.lookup.goroutine.debug0.pb.gz"}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		pb, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(pb) + 1 {
			if off, msg, bad := pprofHeadProblem(pb[:n], int64(len(pb))); bad {
				t.Fatalf("%s cut at %d: refused at offset %d: %s", name, n, off, msg)
			}
		}
	}
	if _, msg, bad := pprofHeadProblem(make([]byte, 100), 1<<20); !bad {
		t.Error("zeros accepted")
	} else {
		t.Logf("zeros: %s", msg)
	}
}
