package dumper

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/zseg"
)

// testPayload is 12 MiB of dump-like text: several compressor blocks.
func testPayload() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 12<<20; i++ {
		fmt.Fprintf(&b, "goroutine %d [chan receive, %d minutes]:\nmain.worker(0xc%09x, 0x%x)\n\t/src/app/worker.go:%d +0x%x\n\n", i, i%30, i*64, i%7, 40+i%50, i%300)
	}
	return b.Bytes()
}

func TestDumpOutputRoundTrip(t *testing.T) {
	payload := testPayload()
	for _, c := range []output.Compression{output.None, output.Gzip, output.Zstd} {
		var buf bytes.Buffer
		out, err := newDumpOutput(&buf, c)
		if err != nil {
			t.Fatal(err)
		}
		for p := payload; len(p) > 0; p = p[min(len(p), 100_000):] {
			if _, err := out.Write(p[:min(len(p), 100_000)]); err != nil {
				t.Fatal(err)
			}
		}
		if err := out.Close(); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var r io.Reader = &buf
		switch c {
		case output.Gzip: // a standard gzip stream
			zr, err := stdgzip.NewReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		case output.Zstd:
			zr, err := zstd.NewReader(&buf, zstd.WithDecoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			r = zr
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, payload) {
			t.Errorf("%s: read back %d bytes (%v), wrote %d", c, len(got), err, len(payload))
		}
	}
}

// failAfter fails every write once n bytes went through.
type failAfter struct{ n int }

var errDiskGone = errors.New("disk gone")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errDiskGone
	}
	k := min(len(p), f.n)
	f.n -= k
	if k < len(p) {
		return k, errDiskGone
	}
	return k, nil
}

// TestDumpOutputWriteError checks that a failing destination reaches the
// caller and that the compressors' goroutines end (leakcheck in TestMain).
func TestDumpOutputWriteError(t *testing.T) {
	payload := testPayload()
	for _, c := range []output.Compression{output.None, output.Gzip, output.Zstd} {
		out, err := newDumpOutput(&failAfter{n: 1000}, c)
		if err != nil {
			t.Fatal(err)
		}
		_, werr := out.Write(payload)
		cerr := out.Close()
		if !errors.Is(werr, errDiskGone) && !errors.Is(cerr, errDiskGone) {
			t.Errorf("%s: write %v, close %v; want the destination's error", c, werr, cerr)
		}
	}
}

// TestCompressionCodecSeam checks the seam between formats and zseg:
// every output.Compression converts to the zseg codec of the same name.
func TestCompressionCodecSeam(t *testing.T) {
	for c, want := range map[output.Compression]zseg.Codec{output.None: zseg.Plain, output.Gzip: zseg.Gzip, output.Zstd: zseg.Zstd} {
		if got := compressOptions(c).Compression; got != want {
			t.Errorf("%s: zseg codec %q, want %q", c, got, want)
		}
	}
}
