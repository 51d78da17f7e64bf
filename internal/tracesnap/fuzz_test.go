package tracesnap

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// fixtures returns the go 1.26 trace fixtures of testdata/trace.
func fixtures(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "trace", "*.trace"))
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if v, err := ParseHeader(data); err == nil && v == Version {
			out = append(out, data)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no go 1.26 trace fixture")
	}
	return out
}

// FuzzReader feeds mutated traces to Reader and to x/exp/trace: Reader
// must never panic, must read every trace x/exp/trace reads, with the
// same events, and where x/exp/trace stops at an error the events both
// reported must agree.
func FuzzReader(f *testing.F) {
	for _, b := range fixtures(f) {
		f.Add(b)
	}
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := ParseHeader(data[:min(len(data), headerLen)]); err != nil || v != Version {
			if _, err := NewReaderBytes(data); err == nil {
				t.Fatalf("header %q accepted", data[:min(len(data), headerLen)])
			}
			return // another version: x/exp/trace's to read
		}
		compareReaders(t, "input", data)
	})
}

// FuzzOrdering moves the batches of real traces in time, thread by
// thread, so that timestamps disagree with the order the sequence numbers
// impose (as they do on machines whose CPU clocks drift) or tie: the
// ordering must then delay the same events x/exp/trace delays.
func FuzzOrdering(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0, 0})
	f.Add(uint8(1), []byte{200, 3, 17, 255, 1})
	f.Add(uint8(0), []byte{128, 128, 128, 128, 128, 128})
	traces := fixtures(f)
	f.Fuzz(func(t *testing.T, which uint8, shifts []byte) {
		if len(shifts) == 0 {
			return
		}
		data := skewBatches(traces[int(which)%len(traces)], shifts)
		compareReaders(t, "skewed", data)
	})
}

// skewBatches rewrites the header timestamp of every event batch: the
// n-th batch's time becomes a function of shifts[n%len(shifts)] (0 and
// 128 set it to the first batch's time, so that batches tie; others move
// it by up to ±127 units of 1<<(shift%8+4)). Anything that is not a
// well-formed batch is copied as is.
func skewBatches(data []byte, shifts []byte) []byte {
	out := append([]byte(nil), data[:min(len(data), headerLen)]...)
	var base uint64
	n := 0
	for i := headerLen; i < len(data); {
		if data[i] != evEventBatch {
			if data[i] == evEndOfGeneration {
				out = append(out, data[i])
				i++
				continue
			}
			return append(out, data[i:]...)
		}
		var h [4]uint64
		j := i + 1
		for k := range h {
			v, next, ok := uvarintAt(data, j)
			if !ok {
				return append(out, data[i:]...)
			}
			h[k], j = v, next
		}
		if uint64(len(data)-j) < h[3] {
			return append(out, data[i:]...)
		}
		if n == 0 {
			base = h[2]
		}
		s := shifts[n%len(shifts)]
		switch {
		case s == 0 || s == 128:
			h[2] = base
		default:
			delta := uint64(s&127) << (s%8 + 4)
			if s&128 != 0 && h[2] > delta {
				h[2] -= delta
			} else {
				h[2] += delta
			}
		}
		n++
		out = append(out, evEventBatch)
		for _, v := range h {
			out = binary.AppendUvarint(out, v)
		}
		out = append(out, data[j:j+int(h[3])]...)
		i = j + int(h[3])
	}
	return out
}

// FuzzUvarint checks the decoder's varint reader against encoding/binary.
func FuzzUvarint(f *testing.F) {
	f.Add([]byte{0x05}, 0)
	f.Add([]byte{0x80, 0x01, 0x7f}, 0)
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f}, 1)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 0)
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		v, next, ok := uvarintAt(b, i)
		want, n := binary.Uvarint(b[i:])
		if ok != (n > 0) || ok && (v != want || next != i+n) {
			t.Fatalf("uvarintAt(%x, %d) = %d, %d, %v; binary.Uvarint: %d, %d", b, i, v, next, ok, want, n)
		}
	})
}
