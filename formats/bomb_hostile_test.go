package formats

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// gzipBomb returns a small gzip file that inflates, through three nested
// gzip layers, to n bytes of 'a'. Compressing n bytes would take far too
// long, so the innermost layer is written by hand: one fixed-Huffman
// deflate block of a literal 'a' then matches of 258 bytes at distance 1,
// 13 bits each (n/159 bytes, generated as it is read). That stream is
// periodic, so the two outer layers, made by the real compressor at its
// best level, shrink it about a thousandfold each.
func gzipBomb(t testing.TB, n int64) []byte {
	t.Helper()
	inner := &dumptest.GenReader{Next: deflateRunOfA(n)}
	layer := func(r io.Reader) []byte {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(zw, r); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	return layer(bytes.NewReader(layer(inner)))
}

// deflateRunOfA returns a generator of a gzip member holding n bytes of
// 'a' (n >= 1), a block of output at a time.
func deflateRunOfA(n int64) func() []byte {
	const (
		matchLen   = 258
		perBlock   = 8192 // matches per generated block
		litA       = 0x30 + 'a'
		codeLen258 = 0xc5 // symbol 285 in the fixed code: 8 bits
	)
	var w deflateBits
	header := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255}
	matches := (n - 1) / matchLen
	tail := (n - 1) % matchLen
	stage := 0
	return func() []byte {
		switch stage {
		case 0:
			stage++
			w.bits(1, 1) // BFINAL
			w.bits(1, 2) // BTYPE 01: fixed Huffman
			w.code(litA, 8)
			return append(header, w.flush()...)
		case 1:
			for range min(matches, perBlock) {
				w.code(codeLen258, 8)
				w.code(0, 5) // distance 1
			}
			matches -= min(matches, perBlock)
			if matches == 0 {
				stage++
			}
			return w.flush()
		case 2:
			stage++
			for range tail {
				w.code(litA, 8)
			}
			w.code(0, 7) // end of block
			w.pad()
			trailer := binary.LittleEndian.AppendUint32(nil, crcOfA(n))
			trailer = binary.LittleEndian.AppendUint32(trailer, uint32(n))
			return append(w.flush(), trailer...)
		}
		return nil
	}
}

// crcOfA is the CRC-32 of n bytes of 'a'.
func crcOfA(n int64) uint32 {
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	var crc uint32
	for ; n > 0; n -= int64(len(chunk)) {
		crc = crc32.Update(crc, crc32.IEEETable, chunk[:min(n, int64(len(chunk)))])
	}
	return crc
}

// deflateBits packs deflate's bit stream: values least significant bit
// first, Huffman codes most significant bit first.
type deflateBits struct {
	acc  uint64
	n    uint
	done []byte
}

func (w *deflateBits) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.done = append(w.done, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *deflateBits) code(c uint64, n uint) {
	var rev uint64
	for i := range n {
		rev |= (c >> i & 1) << (n - 1 - i)
	}
	w.bits(rev, n)
}

// pad fills the last byte with zero bits.
func (w *deflateBits) pad() {
	if w.n > 0 {
		w.bits(0, 8-w.n)
	}
}

// flush returns the whole bytes packed so far.
func (w *deflateBits) flush() []byte {
	b := w.done
	w.done = nil
	return b
}

// TestGzipBombIsValid checks the bomb builder on a small size: the real
// decompressor inflates it to exactly n bytes of 'a', CRC included.
func TestGzipBombIsValid(t *testing.T) {
	for _, n := range []int64{1, 258, 259, 1 << 20, 3<<20 + 17} {
		bomb := gzipBomb(t, n)
		r := io.Reader(bytes.NewReader(bomb))
		for range 2 {
			zr, err := gzip.NewReader(r)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		inner, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(inner))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if int64(len(out)) != n || bytes.Count(out, []byte("a")) != len(out) {
			t.Fatalf("n=%d: inflated to %d bytes", n, len(out))
		}
	}
}
