package dumper

import (
	"testing"
	"time"
)

// TestLargeStackBufferRetention checks that a buffer above retainMax is
// reused by the next capture, and released when none comes in time.
func TestLargeStackBufferRetention(t *testing.T) {
	defer func(d time.Duration) { largeRetention = d }(largeRetention)
	largeRetention = 50 * time.Millisecond

	big := getStackBuf(retainMax + 1)
	putStackBuf(big)
	again := getStackBuf(retainMax + 1)
	if &again[0] != &big[0] {
		t.Fatal("a large buffer returned right away was not reused")
	}
	putStackBuf(again)
	deadline := time.Now().Add(5 * time.Second)
	for {
		stackPool.Lock()
		held := cap(stackPool.buf)
		stackPool.Unlock()
		if held <= retainMax {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a large buffer (%d bytes) is still held long after largeRetention", held)
		}
		time.Sleep(10 * time.Millisecond)
	}
	small := getStackBuf(1 << 20)
	putStackBuf(small)
	time.Sleep(100 * time.Millisecond)
	if got := getStackBuf(1 << 20); &got[0] != &small[0] {
		t.Error("a buffer within retainMax was not kept")
	} else {
		putStackBuf(got)
	}
}
