package exectrace_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// FuzzTraceReader feeds mutated execution traces to the reader: it must
// never panic, and every dump it returns must be well formed.
func FuzzTraceReader(f *testing.F) {
	for _, b := range dumptest.ReadSeeds(f, filepath.Join("..", "..", "testdata", "trace", "*.trace")) {
		f.Add(b)
	}
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{Kind: stack.KindGoTrace})
		if err != nil && len(dumps) > 0 {
			t.Fatalf("error %v together with %d dumps", err, len(dumps))
		}
		for _, d := range dumps {
			if d.Total != int64(len(d.Routines)) {
				t.Fatalf("Total %d, %d routines", d.Total, len(d.Routines))
			}
			for _, r := range d.Routines {
				if r.Stack == nil || r.State == "" || r.Count != 1 {
					t.Fatalf("malformed routine %+v", r)
				}
			}
		}
	})
}
