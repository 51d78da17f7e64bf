package zseg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

func TestOptions(t *testing.T) {
	good := []Options{
		{}, {Compression: Plain},
		{Compression: Gzip}, {Compression: Gzip, Level: -2}, {Compression: Gzip, Level: 9},
		{Compression: Zstd}, {Compression: Zstd, Level: 1}, {Compression: Zstd, Level: 4},
	}
	for _, o := range good {
		if _, err := NewStream(io.Discard, o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	bad := map[Options]string{
		{Compression: "lz4"}:           `unknown compression "lz4"`,
		{Compression: Plain, Level: 3}: "level 3 given without compression",
		{Compression: Gzip, Level: -3}: "gzip level -3 out of range [-2, 9]",
		{Compression: Gzip, Level: 10}: "gzip level 10 out of range",
		{Compression: Zstd, Level: 5}:  "zstd level 5 out of range [1, 4]",
		{Compression: Zstd, Level: -1}: "zstd level -1 out of range",
	}
	for o, want := range bad {
		if _, err := NewStream(io.Discard, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want one saying %q", o, err, want)
		}
	}
}

// failingWriter takes up to room bytes, then fails, counting the writes
// it is asked for after failing.
type failingWriter struct {
	room       int
	short      bool // fail with a short count and no error
	got        bytes.Buffer
	afterFails int
	failed     bool
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.afterFails++
	}
	if len(p) <= w.room {
		w.room -= len(p)
		return w.got.Write(p)
	}
	n := w.room
	w.got.Write(p[:n])
	w.room, w.failed = 0, true
	if w.short {
		return n, nil
	}
	return n, errDiskFull
}

// A writer that fails anywhere in the stream: the error comes back from
// WriteSegment or Close and every call after, wrapped with context, and
// nothing more is written.
func TestFailingWriter(t *testing.T) {
	chunks := [][]byte{[]byte(strings.Repeat("goroutine 1 [running]:\n", 100)), nil, []byte("main.main()\n")}
	for _, c := range compressions {
		full := len(segmentsOf(t, Options{Compression: c}, chunks...))
		for room := range full {
			for _, short := range []bool{false, true} {
				w := &failingWriter{room: room, short: short}
				s, err := NewStream(w, Options{Compression: c})
				if err != nil {
					t.Fatal(err)
				}
				enc := s.NewEncoder()
				var first error
				for _, chunk := range chunks {
					enc.Write(chunk)
					if err := s.WriteSegment(enc.Take(nil)); err != nil && first == nil {
						first = err
					}
				}
				if err := s.Close(); first == nil {
					first = err
				}
				want := errDiskFull
				if short {
					want = io.ErrShortWrite
				}
				if !errors.Is(first, want) || !strings.HasPrefix(first.Error(), "zseg: writing ") {
					t.Fatalf("%s, fails after %d of %d bytes: error %v, want a zseg error wrapping %v", c, room, full, first, want)
				}
				if err := s.WriteSegment(enc.Take(nil)); err != first {
					t.Fatalf("%s: WriteSegment after the failure: %v, want %v", c, err, first)
				}
				if err := s.Close(); err != first {
					t.Fatalf("%s: Close after the failure: %v, want %v", c, err, first)
				}
				if w.afterFails != 0 {
					t.Fatalf("%s: %d writes after the failure", c, w.afterFails)
				}
			}
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	for _, c := range compressions {
		var out bytes.Buffer
		s, _ := NewStream(&out, Options{Compression: c})
		enc := s.NewEncoder()
		enc.Write([]byte("x"))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		n := out.Len()
		if err := s.WriteSegment(enc.Take(nil)); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s: WriteSegment after Close: %v, want ErrClosed", c, err)
		}
		if err := s.Close(); err != nil || out.Len() != n {
			t.Fatalf("%s: second Close: %v, %d bytes more", c, err, out.Len()-n)
		}
	}
}

// A segment goes only into a stream of the compression it was made for.
func TestSegmentOfAnotherCompression(t *testing.T) {
	gz, _ := NewStream(io.Discard, Options{Compression: Gzip})
	enc := gz.NewEncoder()
	enc.Write([]byte("goroutine 1 [running]:\n"))
	seg := enc.Take(nil)
	var out bytes.Buffer
	zs, _ := NewStream(&out, Options{Compression: Zstd})
	if err := zs.WriteSegment(seg); err == nil || !strings.Contains(err.Error(), `segment made for "gzip" written to a zstd stream`) {
		t.Fatalf("error %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written", out.Len())
	}
	if err := gz.WriteSegment(seg); err != nil {
		t.Fatal(err)
	}
}

// Take appends the next segment to the buffer it is given.
func TestTakeRecyclesBuffer(t *testing.T) {
	for _, c := range compressions {
		s, _ := NewStream(io.Discard, Options{Compression: c})
		enc := s.NewEncoder()
		buf := make([]byte, 0, 64<<10)
		enc.Take(buf)
		enc.Write([]byte(strings.Repeat("goroutine 1 [running]:\n", 100)))
		seg := enc.Take(nil)
		if len(seg.Data) == 0 || &seg.Data[:1][0] != &buf[:1][0] {
			t.Fatalf("%s: segment not in the buffer given", c)
		}
	}
}

// With recycled buffers, a segment costs no allocation of ours, at any
// size. klauspost's zstd encoder allocates two small arrays per frame (the
// frame header and checksum it hands the writer).
func TestSegmentAllocations(t *testing.T) {
	data := dumpJSON(300<<10, 10)
	for _, c := range compressions {
		s, _ := NewStream(io.Discard, Options{Compression: c})
		enc := s.NewEncoder()
		var buf []byte
		cycle := func() {
			enc.Write(data)
			seg := enc.Take(buf)
			if err := s.WriteSegment(seg); err != nil {
				t.Fatal(err)
			}
			buf = seg.Data
		}
		cycle()
		cycle()
		limit := 0.0
		if c == Zstd {
			limit = 2
		}
		if allocs := testing.AllocsPerRun(5, cycle); allocs > limit {
			t.Errorf("%s: %.1f allocations per segment", c, allocs)
		}
	}
}

// A stream past 4 GiB: the trailer holds the CRC of it all and its size
// modulo 2^32. One segment of 64 MiB of zeros is written 65 times.
func TestGzipTrailerPast4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("computes the CRC of 4 GiB")
	}
	zeros := make([]byte, 64<<20)
	var out bytes.Buffer
	s, _ := NewStream(&out, Options{Compression: Gzip, Level: 1})
	enc := s.NewEncoder()
	enc.Write(zeros)
	seg := enc.Take(nil)
	const times = 65
	want := uint32(0)
	for range times {
		if err := s.WriteSegment(seg); err != nil {
			t.Fatal(err)
		}
		want = crc32.Update(want, crc32.IEEETable, zeros)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	trailer := out.Bytes()[out.Len()-8:]
	if got := binary.LittleEndian.Uint32(trailer); got != want {
		t.Errorf("CRC-32 %08x, want %08x", got, want)
	}
	if got, want := binary.LittleEndian.Uint32(trailer[4:]), uint32(times*len(zeros)); got != want {
		t.Errorf("ISIZE %d, want %d", got, want)
	}
}

// A released compressor serves the next encoder of its compression and
// level: the stream it makes is byte for byte a fresh encoder's, even after
// it was released mid-segment, and taking it allocates no compressor.
func TestReleaseReuses(t *testing.T) {
	data := dumpJSON(200<<10, 3)
	for _, c := range []Codec{Gzip, Zstd} {
		write := func(release bool) []byte {
			var out bytes.Buffer
			s, _ := NewStream(&out, Options{Compression: c, Level: 1})
			enc := s.NewEncoder()
			enc.Write(data)
			if err := s.WriteSegment(enc.Take(nil)); err != nil {
				t.Fatal(err)
			}
			if release {
				enc.Write(data[:1000]) // dropped with the encoder
				enc.Release()
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return out.Bytes()
		}
		fresh := write(false)
		write(true)
		if again := write(true); !bytes.Equal(again, fresh) {
			t.Errorf("%s: a reused compressor wrote %d bytes differing from a fresh one's %d", c, len(again), len(fresh))
		}
		if got := decode(t, c, fresh); !bytes.Equal(got, data) {
			t.Fatalf("%s: stream does not decode to its input", c)
		}
		s, _ := NewStream(io.Discard, Options{Compression: c, Level: 1})
		s.NewEncoder().Release()
		// The pool may drop what it holds at a GC; a few tries see reuse.
		allocs := testing.AllocsPerRun(20, func() { s.NewEncoder().Release() })
		if allocs > 3 {
			t.Errorf("%s: NewEncoder after Release allocates %.1f times: the compressor is not reused", c, allocs)
		}
		enc := s.NewEncoder()
		enc.Release()
		if _, err := enc.Write(data); err == nil {
			t.Errorf("%s: Write after Release succeeded", c)
		}
	}
}
