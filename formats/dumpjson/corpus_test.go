package dumpjson_test

import (
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
)

// TestJSONRoundTripCorpus writes every JVM, debug=1 and pprof dump of the
// corpus as JSON and reads it back: every field survives, line numbers and
// warnings included.
func TestJSONRoundTripCorpus(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/jvm/*", "jvm/*.txt", "jvm/*.json", "jvm/*.log",
		"corpus/go/*debug1.txt", "corpus/go/*.pb.gz") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := doortest.ReadFile(t, path, formats.ReadOptions{})
			got := readJSON(t, doortest.Encode(t, output.JSON, want...), formats.ReadOptions{})
			dumptest.EqualDumps(t, "JSON round trip", want, got, dumptest.DescribeOptions{Lines: true, Warnings: true})
		})
	}
}
