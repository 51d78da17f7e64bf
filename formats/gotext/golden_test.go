package gotext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// goldenInputs is a representative set of real dumps whose whole model is
// compared with testdata/gotext/<name>.golden (rewrite with -update).
var goldenInputs = []string{
	"../../testdata/go/system_go126.txt",            // gp= m= mp=, fp= sp= pc=, runtime frames, m=nil
	"../../testdata/go/synctest_go126.txt",          // (durable), synctest bubble, [recovered, repanicked]
	"../../testdata/go/labels_go126.txt",            // 1.26 labels with escapes
	"../../testdata/go/race_go126.txt",              // two race reports, main goroutine
	"../../testdata/go/ancestors_go126.txt",         // [originating from goroutine N]
	"../../testdata/go/elided_go126.txt",            // ...52 frames elided...
	"../../testdata/go/overflow_go126.txt",          // runtime: lines, runtime stack:
	"../../testdata/go/sigquit_crash_go126.txt",     // SIGQUIT per M: one dump of 5 thread blocks, registers
	"../../testdata/go/leak_go126.txt",              // (leaked)
	"../../testdata/go/panic_go120.txt",             // created by without id, raw multi-line panic
	"../../testdata/corpus/go/gotfmt_sigabrt.txt",   // header-less first goroutine
	"../../testdata/corpus/go/gotfmt_issue9321.txt", // stack unavailable, runtime stack
	"../../testdata/corpus/go/gostackparse_cgo.txt",
	"../../testdata/corpus/go/gostackparse_windows.txt",
	"../../testdata/corpus/go/malformed/gostackparse_errorhandling.txt",
}

func TestGoTextGolden(t *testing.T) {
	for _, in := range goldenInputs {
		name := strings.TrimSuffix(filepath.Base(in), ".txt")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := modelText(readGoText(t, data))
			path := filepath.Join("testdata", name+".golden")
			if *dumptest.Update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				tmp := filepath.Join(t.TempDir(), name+".golden")
				os.WriteFile(tmp, []byte(got), 0o644)
				t.Errorf("model of %s differs from %s; got is in %s", in, path, tmp)
			}
		})
	}
}
