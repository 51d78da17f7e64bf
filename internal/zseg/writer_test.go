package zseg

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// TestWriterRoundTrip writes dump-like data in writes of random sizes, with
// blocks smaller and larger than the writes and 1 to 4 workers: the stream
// decodes (CRC and size checked) to the data, for every compression, and
// the CLI tools accept it.
func TestWriterRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := dumpJSON(3<<20, 11)
	for _, c := range compressions {
		for _, block := range []int{1, 4 << 10, 300 << 10, 8 << 20} {
			for _, workers := range []int{1, 4} {
				var out bytes.Buffer
				w, err := NewWriter(&out, Options{Compression: c}, block, workers)
				if err != nil {
					t.Fatal(err)
				}
				in := data
				if block == 1 {
					in = data[:5000] // a segment per byte
				}
				for p := in; len(p) > 0; {
					n := min(len(p), rng.IntN(200<<10)+1)
					if k, err := w.Write(p[:n]); k != n || err != nil {
						t.Fatalf("%s: Write = %d, %v", c, k, err)
					}
					p = p[n:]
				}
				if err := w.Close(); err != nil {
					t.Fatalf("%s, %d-byte blocks, %d workers: Close: %v", c, block, workers, err)
				}
				if got := decode(t, c, out.Bytes()); !bytes.Equal(got, in) {
					t.Fatalf("%s, %d-byte blocks, %d workers: read back %d bytes, wrote %d", c, block, workers, len(got), len(in))
				}
				if block == 300<<10 && workers == 4 {
					checkCLI(t, c, out.Bytes(), in)
				}
			}
		}
	}
}

// TestWriterEmpty: nothing written is still a valid empty stream; Close
// twice is harmless and Write after Close fails.
func TestWriterEmpty(t *testing.T) {
	for _, c := range compressions {
		var out bytes.Buffer
		w, err := NewWriter(&out, Options{Compression: c}, 1<<20, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: second Close: %v", c, err)
		}
		if got := decode(t, c, out.Bytes()); len(got) != 0 {
			t.Fatalf("%s: empty stream decodes to %d bytes", c, len(got))
		}
		if _, err := w.Write([]byte("x")); !errors.Is(err, ErrWriterClosed) {
			t.Fatalf("%s: Write after Close: %v", c, err)
		}
	}
	if _, err := NewWriter(io.Discard, Options{}, 0, 1); err == nil {
		t.Error("a block size of 0 was accepted")
	}
}

// TestWriterFailingDestination fails the destination at several offsets:
// Write or Close returns its error, nothing is written after it, and the
// workers end (leakcheck checks in TestMain).
func TestWriterFailingDestination(t *testing.T) {
	data := dumpJSON(2<<20, 5)
	for _, c := range compressions {
		for _, after := range []int{0, 10, 5000, 100 << 10} {
			fw := &failingWriter{room: after}
			w, err := NewWriter(fw, Options{Compression: c}, 64<<10, 3)
			if err != nil {
				t.Fatal(err)
			}
			_, werr := w.Write(data)
			cerr := w.Close()
			if !errors.Is(werr, errDiskFull) && !errors.Is(cerr, errDiskFull) {
				t.Errorf("%s, failing after %d bytes: Write %v, Close %v; want the destination's error", c, after, werr, cerr)
			}
			if fw.afterFails > 0 {
				t.Errorf("%s, failing after %d bytes: %d writes after the failure", c, after, fw.afterFails)
			}
		}
	}
}
