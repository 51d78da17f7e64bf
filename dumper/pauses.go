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

// stwPauses is what happened between two snapshots. The runtime's
// histogram buckets are about 12% wide; each pause is counted at its
// bucket's upper bound, so the durations are "at most".
type stwPauses struct {
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
func (s *pauseSnapshot) since(before *pauseSnapshot) stwPauses {
	var p stwPauses
	n, total, longest := histDiff(before.samples[0].Value, s.samples[0].Value)
	p.Count, p.Total, p.Longest = n, total, longest
	_, p.Stopping, _ = histDiff(before.samples[1].Value, s.samples[1].Value)
	return p
}

// histDiff returns the count, sum and maximum of the values added to a
// histogram between two readings, each value taken at its bucket's upper
// bound.
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
		hi := hb.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = hb.Buckets[i]
		}
		count += int(d)
		secs += float64(d) * hi
		top = max(top, hi)
	}
	return count, seconds(secs), seconds(top)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
