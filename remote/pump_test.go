package remote

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// TestPumpDeliversExactBytes streams data through the pump in odd-sized
// reads on both sides and with a small read-ahead, so the pump has to stop
// and resume.
func TestPumpDeliversExactBytes(t *testing.T) {
	data := make([]byte, 3<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.IntN(256))
	}
	src := io.NopCloser(iotest.HalfReader(bytes.NewReader(data)))
	p := newPump(src, pumpChunk)
	var got bytes.Buffer
	buf := make([]byte, 7777)
	for {
		n, err := p.Read(buf[:1+r.IntN(len(buf)-1)])
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("pump delivered %d bytes, differing from the %d sent", got.Len(), len(data))
	}
}

func TestPumpPassesErrors(t *testing.T) {
	reset := errors.New("connection reset by peer")
	src := io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(reset))
	p := newPump(io.NopCloser(src), pumpChunk)
	defer p.Close()
	b, err := io.ReadAll(p)
	if string(b) != "abc" || !errors.Is(err, reset) {
		t.Fatalf("ReadAll = %q, %v; want \"abc\" and the source's error", b, err)
	}
}
