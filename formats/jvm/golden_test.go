package jvm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// jvmGoldenFiles are the dumps whose full reading is pinned in
// testdata/jvm/golden: one of each form the readers know.
var jvmGoldenFiles = []string{
	"corpus/jvm/local_jdk17.0.15-jcmd-Thread.print-l-e.txt",
	"corpus/jvm/jthreaddump_virtual_threads_jdk25.txt",
	"corpus/jvm/tda_visualvm_remote.log",
	"corpus/jvm/tda_jdk15_log_with_histogram.log",
	"corpus/jvm/tda_jdk6_server.log",
	"corpus/jvm/tda_jdk8.log",
	"corpus/jvm/intellij_jcmd_dump_to_file_plain_jdk21.txt",
	"corpus/jvm/intellij_jcmd_dump_to_file_json_jdk21_structured.json",
	"corpus/jvm/tda_jcmd_threaddump_jdk21.json",
	"jvm/threadinfo_jdk17.0.15.txt",
	"jvm/jdk25_dump_to_file_plain_handmade.txt",
	"jvm/jdk25_dump_to_file_handmade.json",
	"jvm/jdk27_dump_to_file_v2_handmade.json",
}

// TestJVMGolden compares the test rendering of each golden file's dumps
// with testdata/jvm/golden; -update rewrites them.
func TestJVMGolden(t *testing.T) {
	for _, name := range jvmGoldenFiles {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got := renderJVM(readJVMFile(t, filepath.Join("..", "..", "testdata", name)))
			golden := filepath.Join("..", "..", "testdata", "jvm", "golden", filepath.Base(name)+".golden")
			if *dumptest.Update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("reading differs from %s:\n%s", golden, dumptest.FirstDiff(string(want), got))
			}
			if !strings.HasPrefix(got, "dump 1 ") {
				t.Errorf("no dump read")
			}
		})
	}
}
