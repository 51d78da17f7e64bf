package dumper

import (
	"math"
	"runtime/metrics"
	"time"
)

// The runtime/metrics histograms of non-GC stop-the-world pauses: total is
// from the decision to stop until the world runs again; stopping is the
// part spent waiting for every P to stop (a subset of total).
const (
	metricPauseTotal    = "/sched/pauses/total/other:seconds"
	metricPauseStopping = "/sched/pauses/stopping/other:seconds"
)

// pauseSnapshot is a reading of the pause histograms.
type pauseSnapshot struct {
	samples [2]metrics.Sample
}

// pauseStats is what happened between two snapshots. Durations are
// estimated from histogram buckets (the runtime's buckets are within
// about 12% of the true value): Total and Stopping from bucket midpoints,
// Longest as the upper bound of the highest bucket that grew.
type pauseStats struct {
	Count    int
	Total    time.Duration
	Longest  time.Duration
	Stopping time.Duration
}

// readPauses reads the pause histograms now.
func readPauses() *pauseSnapshot {
	s := &pauseSnapshot{}
	s.samples[0].Name = metricPauseTotal
	s.samples[1].Name = metricPauseStopping
	metrics.Read(s.samples[:])
	return s
}

// since returns the pauses between before and s. Pauses of other
// goroutines' stop-the-worlds (ReadMemStats, other profiles) in the same
// interval are counted too; GC pauses are not.
func (s *pauseSnapshot) since(before *pauseSnapshot) pauseStats {
	var p pauseStats
	n, total, longest := histDiff(before.samples[0].Value, s.samples[0].Value)
	p.Count, p.Total, p.Longest = n, total, longest
	_, p.Stopping, _ = histDiff(before.samples[1].Value, s.samples[1].Value)
	return p
}

// histDiff estimates the count, sum and maximum of the values added to a
// histogram between two readings.
func histDiff(a, b metrics.Value) (count int, sum, longest time.Duration) {
	if a.Kind() != metrics.KindFloat64Histogram || b.Kind() != metrics.KindFloat64Histogram {
		return 0, 0, 0
	}
	ha, hb := a.Float64Histogram(), b.Float64Histogram()
	if len(ha.Counts) != len(hb.Counts) {
		return 0, 0, 0
	}
	var secs, top float64
	for i := range hb.Counts {
		d := hb.Counts[i] - ha.Counts[i]
		if d == 0 {
			continue
		}
		lo, hi := hb.Buckets[i], hb.Buckets[i+1]
		mid := (lo + hi) / 2
		switch {
		case math.IsInf(lo, -1):
			mid = hi
		case math.IsInf(hi, 1):
			mid, hi = lo, lo
		}
		count += int(d)
		secs += float64(d) * mid
		top = hi
	}
	return count, seconds(secs), seconds(top)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
