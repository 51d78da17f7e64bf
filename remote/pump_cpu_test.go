package remote

import (
	"io"
	"strings"
	"testing"
)

// TestPumpCPUSlot: two streams share one CPU slot. The first holds it while
// it has bytes to consume, so the second waits; once the first waits for
// its source, the second gets the slot; Close gives it back.
func TestPumpCPUSlot(t *testing.T) {
	cpu := make(chan struct{}, 1)
	ar, aw := io.Pipe()
	a := newPump(ar, pumpChunk)
	a.cpu = cpu
	b := newPump(io.NopCloser(strings.NewReader("second stream")), pumpChunk)
	b.cpu = cpu

	go aw.Write([]byte("first"))
	buf := make([]byte, 64)
	if n, err := a.Read(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("first stream read %q, %v", buf[:n], err)
	}
	if len(cpu) != 1 || !a.held.Load() {
		t.Fatalf("the first stream consuming bytes does not hold the slot")
	}
	second := make(chan string)
	go func() {
		buf := make([]byte, 64)
		n, _ := b.Read(buf)
		second <- string(buf[:n])
	}()
	// The first stream now waits for its source: it gives the slot up,
	// and only then can the second stream read.
	firstAgain := make(chan error)
	go func() {
		_, err := a.Read(buf)
		firstAgain <- err
	}()
	if got := <-second; got != "second stream" {
		t.Errorf("second stream read %q", got)
	}
	if !b.held.Load() || a.held.Load() {
		t.Errorf("slot held by first %v, second %v; want the second", a.held.Load(), b.held.Load())
	}
	b.Close()
	aw.Close()
	if err := <-firstAgain; err != io.EOF {
		t.Errorf("first stream's end: %v", err)
	}
	a.Close()
	if len(cpu) != 0 {
		t.Errorf("%d slots still held after both streams closed", len(cpu))
	}
}
