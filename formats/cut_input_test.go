package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// cutGzip gzips the file path and keeps the first half of the compressed
// bytes: a copy taken while the file was written.
func cutGzip(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()[:z.Len()/2]
}

// atByte matches the place a read error names.
var atByte = regexp.MustCompile(`\(at byte (\d+) of the decompressed input\)$`)

// A real dump of each text reader, gzipped and cut short: the dump read
// until the cut is kept, marked Truncated, with a warning that wraps the
// read error, and the error that ends reading names the byte of the
// decompressed input where it broke off. The debug=1 and JVM text readers
// used to leave the dump open (not Truncated; the CLI then wrote nothing
// of it) and no error said where the input ended.
func TestCutGzipKeepsTruncatedDump(t *testing.T) {
	for _, c := range []struct {
		path string
		kind stack.Kind
	}{
		{"../testdata/go/demo_go126.txt", stack.KindGoTraceback},
		{"../testdata/debug1/go1.26.8.txt", stack.KindGoDebug1},
		{"../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", stack.KindJVMText},
	} {
		dumps, err := ReadAll(bytes.NewReader(cutGzip(t, c.path)), ReadOptions{})
		if len(dumps) != 1 || !dumps[0].Truncated || dumps[0].Source.Kind != c.kind || len(dumps[0].Routines) == 0 {
			t.Errorf("%s cut: %d dumps, want one truncated %s dump with routines", c.path, len(dumps), c.kind)
			continue
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s cut: error %v, want unexpected EOF", c.path, err)
			continue
		}
		m := atByte.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s cut: error %q names no byte", c.path, err)
			continue
		}
		at, _ := strconv.ParseInt(m[1], 10, 64)
		var stopped *stack.ParseError
		for _, w := range dumps[0].Warnings {
			if errors.Is(w, io.ErrUnexpectedEOF) {
				stopped = w
			}
		}
		if stopped == nil || stopped.Offset > at || at == 0 {
			t.Errorf("%s cut: reading-stopped warning %v, error at byte %d", c.path, stopped, at)
		}
	}
}
