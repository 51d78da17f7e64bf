// Package timeout hangs a test past `go test -timeout`, for the traceback
// the testing package prints: "panic: test timed out after 2s" with the
// tests still running.
//
//	go test -timeout 2s ./testdata/gen/timeout
package timeout

import (
	"sync"
	"testing"
)

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	done := make(chan struct{})
	go func() {
		mu.Lock() // never: the test holds it
		close(done)
	}()
	<-done
}
