package zseg

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressions lists every format a Stream writes.
var compressions = []Codec{Plain, Gzip, Zstd}

// segmentsOf writes each chunk as one segment of a stream with opts, all
// by one Encoder, and returns the stream.
func segmentsOf(t testing.TB, opts Options, chunks ...[]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	s, err := NewStream(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	enc := s.NewEncoder()
	var buf []byte
	for _, c := range chunks {
		if _, err := enc.Write(c); err != nil {
			t.Fatal(err)
		}
		seg := enc.Take(buf)
		if seg.Size != int64(len(c)) {
			t.Fatalf("segment size %d, wrote %d bytes", seg.Size, len(c))
		}
		if err := s.WriteSegment(seg); err != nil {
			t.Fatal(err)
		}
		buf = seg.Data
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// decode undoes compression c with the standard library's gzip reader
// (which checks the CRC-32 and size) or klauspost's zstd decoder (which
// checks each frame's checksum).
func decode(t testing.TB, c Codec, stream []byte) []byte {
	t.Helper()
	var r io.Reader = bytes.NewReader(stream)
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatalf("gzip header: %v", err)
		}
		r = zr
	case Zstd:
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", c, err)
	}
	return got
}

// wholeStream compresses data in one piece with klauspost's gzip or zstd
// writer at the same level, for comparison.
func wholeStream(t testing.TB, c Codec, level int, data []byte) []byte {
	t.Helper()
	opts, err := Options{Compression: c, Level: level}.settle()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var w io.WriteCloser
	switch c {
	case Gzip:
		w, err = kgzip.NewWriterLevel(&out, opts.Level)
	case Zstd:
		w, err = zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.EncoderLevel(opts.Level)), zstd.WithEncoderConcurrency(1))
	default:
		return data
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// checkCLI decodes stream with the gzip or zstd command, which checks it
// the way `gzip -t` and `zstd -t` do, and compares the output with want.
// It skips only when the command is not installed.
func checkCLI(t *testing.T, c Codec, stream, want []byte) {
	t.Helper()
	if c == Plain {
		return
	}
	path, err := exec.LookPath(string(c))
	if err != nil {
		t.Logf("%s not installed: not checked with the command", c)
		return
	}
	cmd := exec.Command(path, "-dc")
	cmd.Stdin = bytes.NewReader(stream)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -dc: %v: %s", c, err, stderr.Bytes())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s -dc: %d bytes out, want %d", c, len(got), len(want))
	}
}

// splitAt cuts data at n random places (cuts may coincide: empty chunks).
func splitAt(data []byte, n int, rng *rand.Rand) [][]byte {
	cuts := make([]int, n)
	for i := range cuts {
		cuts[i] = rng.IntN(len(data) + 1)
	}
	slices.Sort(cuts)
	var chunks [][]byte
	prev := 0
	for _, c := range cuts {
		chunks = append(chunks, data[prev:c])
		prev = c
	}
	return append(chunks, data[prev:])
}

func TestRoundTripEveryLevel(t *testing.T) {
	data := dumpJSON(600<<10, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	levels := map[Codec][]int{
		Plain: {0},
		Gzip:  {0, -2, -1, 1, 5, 6, 7, 9},
		Zstd:  {0, 1, 2, 3, 4},
	}
	for _, c := range compressions {
		for _, level := range levels[c] {
			chunks := splitAt(data, 12, rng)
			stream := segmentsOf(t, Options{Compression: c, Level: level}, chunks...)
			if got := decode(t, c, stream); !bytes.Equal(got, data) {
				t.Fatalf("%s level %d: decoded %d bytes, want %d equal ones", c, level, len(got), len(data))
			}
			// Each segment is as long as the chunk compressed alone by
			// klauspost's writers, the framing aside.
			alone := 0
			for _, chunk := range chunks {
				alone += len(wholeStream(t, c, level, chunk))
			}
			if d := len(stream) - alone; d > 24*len(chunks) || d < -24*len(chunks) {
				t.Errorf("%s level %d: %d segments are %d bytes, %d compressed one by one", c, level, len(chunks), len(stream), alone)
			}
			// In one segment it compresses as klauspost's writers do,
			// the framing aside.
			whole := wholeStream(t, c, level, data)
			if one := segmentsOf(t, Options{Compression: c, Level: level}, data); len(one) > len(whole)+16 || len(one) < len(whole)-16 {
				t.Errorf("%s level %d: one segment is %d bytes, klauspost's writer makes %d", c, level, len(one), len(whole))
			}
			checkCLI(t, c, stream, data)
		}
	}
}

// The stream starts with the gzip header klauspost/compress/gzip writes
// and ends with an empty final block and the trailer.
func TestGzipFraming(t *testing.T) {
	data := []byte("goroutine 1 [running]:\nmain.main()\n")
	stream := segmentsOf(t, Options{Compression: Gzip}, data[:10], data[10:])
	if !bytes.HasPrefix(stream, gzipHeader[:]) {
		t.Fatalf("header % x", stream[:10])
	}
	tail := stream[len(stream)-10:]
	want := []byte{0x03, 0x00}
	want = binary.LittleEndian.AppendUint32(want, crc32.ChecksumIEEE(data))
	want = binary.LittleEndian.AppendUint32(want, uint32(len(data)))
	if !bytes.Equal(tail, want) {
		t.Fatalf("stream ends % x, want % x", tail, want)
	}
}

// Segments made by several goroutines at once, each with its own Encoder,
// then written in order, are the input again.
func TestConcurrentSegments(t *testing.T) {
	data := dumpJSON(3<<20, 3)
	for _, c := range compressions {
		t.Run(string(c), func(t *testing.T) {
			var out bytes.Buffer
			if err := compressParallel(&out, Options{Compression: c}, data, 40<<10, 4); err != nil {
				t.Fatal(err)
			}
			if got := decode(t, c, out.Bytes()); !bytes.Equal(got, data) {
				t.Fatalf("decoded %d bytes, want %d equal ones", len(got), len(data))
			}
			checkCLI(t, c, out.Bytes(), data)
		})
	}
}

func TestEmptyStream(t *testing.T) {
	for _, c := range compressions {
		var out bytes.Buffer
		s, err := NewStream(&out, Options{Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if c == Plain && out.Len() != 0 {
			t.Fatalf("none: %d bytes for an empty stream", out.Len())
		}
		if c != Plain && out.Len() == 0 {
			t.Fatalf("%s: no bytes for an empty stream", c)
		}
		if got := decode(t, c, out.Bytes()); len(got) != 0 {
			t.Fatalf("%s: empty stream decodes to %q", c, got)
		}
		checkCLI(t, c, out.Bytes(), nil)
	}
}

// Empty segments write nothing: a stream of them is the empty stream, and
// among others they change nothing.
func TestEmptySegments(t *testing.T) {
	for _, c := range compressions {
		opts := Options{Compression: c}
		empty := segmentsOf(t, opts)
		if got := segmentsOf(t, opts, nil, []byte{}, nil); !bytes.Equal(got, empty) {
			t.Fatalf("%s: empty segments gave % x, want % x", c, got, empty)
		}
		a, b := []byte("goroutine 7 [select]:\n"), []byte("main.loop()\n")
		want := segmentsOf(t, opts, a, b)
		if got := segmentsOf(t, opts, nil, a, nil, nil, b, nil); !bytes.Equal(got, want) {
			t.Fatalf("%s: empty segments changed the stream", c)
		}
		if got := decode(t, c, want); string(got) != string(a)+string(b) {
			t.Fatalf("%s: decoded %q", c, got)
		}
		// The zero Segment is an empty one, for any stream.
		s, _ := NewStream(io.Discard, opts)
		if err := s.WriteSegment(Segment{}); err != nil {
			t.Fatalf("%s: zero segment: %v", c, err)
		}
	}
}

// One segment far larger than the compressors' blocks and windows.
func TestHugeSegment(t *testing.T) {
	data := dumpJSON(24<<20, 4)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 8 << 20; i < 9<<20; i++ { // a stretch that does not compress
		data[i] = byte(rng.Uint32())
	}
	for _, c := range compressions {
		opts := Options{Compression: c, Level: 1}
		if c == Plain {
			opts.Level = 0
		}
		stream := segmentsOf(t, opts, data)
		if got := decode(t, c, stream); !bytes.Equal(got, data) {
			t.Fatalf("%s: decoded %d bytes, want %d equal ones", c, len(got), len(data))
		}
		checkCLI(t, c, stream, data)
	}
}
