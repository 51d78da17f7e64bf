package bench

import (
	"runtime"
	"sync"
	"time"
)

// HeapSampleInterval is how often HeapPeak reads the heap size.
const HeapSampleInterval = 2 * time.Millisecond

// HeapPeak runs fn and returns the peak of runtime.MemStats.HeapInuse seen
// while it ran, minus HeapInuse after a GC just before it: the heap fn
// needed on top of what the process already held (such as dumps cached in
// memory by other benchmarks). HeapInuse is sampled every
// HeapSampleInterval and once more when fn returns, so a shorter spike can
// be missed; ReadMemStats stops the world briefly, so do not time fn with
// this running.
func HeapPeak(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse

	var (
		mu   sync.Mutex
		peak = base
	)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(HeapSampleInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	fn()
	close(stop)
	<-done
	sample()
	return peak - base
}
