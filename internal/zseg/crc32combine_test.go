package zseg

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// crc32Combine of two parts' CRCs is the CRC of their concatenation, for
// parts of random lengths, empty ones included.
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	lengths := []int{0, 1, 2, 3, 4, 7, 8, 255, 256, 4096}
	for range 200 {
		lengths = append(lengths, rng.IntN(len(data)+1))
	}
	for i, n := range lengths {
		cut := rng.IntN(n + 1)
		if i < 10 {
			cut = n // an empty second part
		}
		if i%2 == 1 {
			cut = 0 // an empty first part
		}
		a, b := data[:cut], data[cut:n]
		got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), uint64(len(b)))
		if want := crc32.ChecksumIEEE(data[:n]); got != want {
			t.Fatalf("parts of %d and %d bytes: combined %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// Combining many parts in turn, as a Stream does, gives the CRC of all.
func TestCRC32CombineChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	data := dumpJSON(1<<20, 8)
	var crc uint32
	for rest := data; len(rest) > 0; {
		n := min(rng.IntN(40000), len(rest))
		crc = crc32Combine(crc, crc32.ChecksumIEEE(rest[:n]), uint64(n))
		rest = rest[n:]
	}
	if want := crc32.ChecksumIEEE(data); crc != want {
		t.Fatalf("combined %08x, want %08x", crc, want)
	}
}

// Large second parts, past 2^32 bytes too: zeros, whose CRC is computed
// a megabyte at a time.
func TestCRC32CombineLarge(t *testing.T) {
	zeros := make([]byte, 1<<20)
	crcMiB := crc32.ChecksumIEEE(zeros)
	prefix := []byte("goroutine 1 [running]:\n")
	crcPrefix := crc32.ChecksumIEEE(prefix)
	want := crcPrefix
	var n uint64
	sizes := []uint64{1 << 20, 1 << 30, 1 << 32, 1<<32 + 1<<20}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, size := range sizes {
		for ; n < size; n += uint64(len(zeros)) {
			want = crc32.Update(want, crc32.IEEETable, zeros)
		}
		crcZeros := crc32.Update(0, crc32.IEEETable, nil)
		for i := uint64(0); i < size; i += uint64(len(zeros)) {
			crcZeros = crc32Combine(crcZeros, crcMiB, uint64(len(zeros)))
		}
		if got := crc32Combine(crcPrefix, crcZeros, size); got != want {
			t.Fatalf("prefix then %d zero bytes: combined %08x, want %08x", size, got, want)
		}
	}
}

// x^(8n) for n = a + b is the product of x^(8a) and x^(8b).
func TestXPow8nMultiplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 1000 {
		a, b := rng.Uint64()>>1, rng.Uint64()>>1
		if got, want := multModP(xPow8n(a), xPow8n(b)), xPow8n(a+b); got != want {
			t.Fatalf("x^8(%d) * x^8(%d) = %08x, x^8(%d) = %08x", a, b, got, a+b, want)
		}
	}
	if got := xPow8n(0); got != 1<<31 {
		t.Fatalf("x^0 = %08x, want %08x", got, uint32(1<<31))
	}
}

func BenchmarkCRC32Combine(b *testing.B) {
	for i := range b.N {
		crc32Combine(uint32(i), 0x12345678, 4<<20+uint64(i&1023))
	}
}
