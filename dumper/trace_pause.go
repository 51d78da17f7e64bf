package dumper

import (
	"math"
	"runtime/metrics"
	"time"
)

// The runtime's histograms of stop-the-world pauses. The pauses a dump
// capture causes (runtime.Stack, trace.Start, the goroutine profile) land
// in the non-GC one; a capture's allocations may also start a collection,
// whose pauses land in the GC one.
const (
	metricPausesOther = "/sched/pauses/total/other:seconds"
	metricPausesGC    = "/sched/pauses/total/gc:seconds"
)

// pauseMeter measures the stop-the-world pauses of one histogram
// between start and stop from runtime/metrics. The histogram has buckets ~12 % wide, so each
// pause is counted at its bucket's upper bound: the figures are "at most".
// Pauses caused by anything else in the process in between are counted
// too.
type pauseMeter struct {
	sample [1]metrics.Sample
	before []uint64
}

// pauseStats summarises the stop-the-world pauses seen by a pauseMeter.
type pauseStats struct {
	Count   int           // number of pauses
	Total   time.Duration // sum of the pauses, at bucket upper bounds
	Longest time.Duration // the longest pause's bucket upper bound
}

// startPauseMeter reads the current counts of the histogram metric
// (metricPausesOther or metricPausesGC).
func startPauseMeter(metric string) *pauseMeter {
	m := &pauseMeter{}
	m.sample[0].Name = metric
	metrics.Read(m.sample[:])
	if m.sample[0].Value.Kind() == metrics.KindFloat64Histogram {
		m.before = append([]uint64(nil), m.sample[0].Value.Float64Histogram().Counts...)
	}
	return m
}

// stop returns the pauses recorded since startPauseMeter; it may be
// called again for a longer span.
func (m *pauseMeter) stop() pauseStats {
	metrics.Read(m.sample[:])
	if m.sample[0].Value.Kind() != metrics.KindFloat64Histogram {
		return pauseStats{}
	}
	h := m.sample[0].Value.Float64Histogram()
	var s pauseStats
	for i, n := range h.Counts {
		if i < len(m.before) {
			n -= m.before[i]
		}
		if n == 0 {
			continue
		}
		bound := h.Buckets[i+1] // bucket i is [Buckets[i], Buckets[i+1])
		if math.IsInf(bound, 1) {
			bound = h.Buckets[i]
		}
		d := time.Duration(bound * float64(time.Second))
		s.Count += int(n)
		s.Total += time.Duration(n) * d
		s.Longest = max(s.Longest, d)
	}
	return s
}
