package formats_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Issue 38 item 1: a dump after a JSON log line (slog's or zap's JSON
// lines around it, internal/paste's log-lead-json of real dumps) is judged
// by what it holds, not by its first line: it reads as the dump alone,
// and the log lines are frame. stackdump's own JSON, one document a line,
// is still JSON, and a JSON log with no dump is refused as JSON.
func TestSniffJSONLogLinesAroundADump(t *testing.T) {
	lead, ok := paste.Lookup("log-lead-json")
	if !ok {
		t.Fatal("no log-lead-json transformation")
	}
	for _, name := range []string{"go/sigquit_go126.txt", "go/race_go126.txt", "groups/debug1_go126.txt", "corpus/jvm/local_jdk17.0.15-jstack-plain.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range []uint64{1, 2} {
			form := lead.Apply(data, seed)
			if form[0] != '{' {
				t.Fatalf("%s: the form does not start with a JSON log line", name)
			}
			got, err := formats.ReadAll(bytes.NewReader(form), formats.ReadOptions{})
			if err != nil {
				t.Errorf("%s after JSON log lines (seed %d): %v", name, seed, err)
				continue
			}
			dumptest.EqualDumps(t, name, want, got, dumptest.DescribeOptions{Warnings: true})
		}
	}

	// stackdump JSON written by convert, one document a line.
	data, _ := os.ReadFile(filepath.Join("..", "testdata", "go", "sigquit_go126.txt"))
	ds, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	enc, err := formats.NewEncoder(&js, output.JSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	back, err := formats.ReadAll(bytes.NewReader(js.Bytes()), formats.ReadOptions{})
	if err != nil || len(back) != len(ds) || back[0].Source.Kind != stack.KindGoTraceback || back[0].Total != ds[0].Total {
		t.Errorf("stackdump JSON read back: %d dumps, %v", len(back), err)
	}

	// JSON log lines and nothing else: not a dump.
	logOnly := lead.Apply([]byte("no dump here\n"), 1)
	if _, err := formats.ReadAll(bytes.NewReader(logOnly), formats.ReadOptions{}); err == nil || !errors.Is(err, stack.ErrNotDump) && !bytes.Contains([]byte(err.Error()), []byte("format")) {
		t.Errorf("JSON log lines alone: %v, want them refused", err)
	}
}
