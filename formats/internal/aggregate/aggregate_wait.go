package aggregate

import "slices"

// WaitBucket is a range of wait minutes, the value of the "wait"
// sample label of the pprof profiles stackdump writes. Buckets, not
// minutes, keep the label's cardinality at four whatever the dump: profile
// stores (Pyroscope, Parca) index every distinct label value.
type WaitBucket uint8

// The wait buckets. The runtime prints wait minutes only from one minute
// on, so a goroutine that is running, runnable or blocked for less is in
// "<1m".
const (
	waitUnderMinute   WaitBucket = iota // "<1m": 0 minutes
	waitMinutes                         // "1-10m": 1 to 9 minutes
	waitTensOfMinutes                   // "10-60m": 10 to 59 minutes
	waitHours                           // ">=1h": 60 minutes or more
)

var pprofWaitNames = [...]string{"<1m", "1-10m", "10-60m", ">=1h"}

// WaitFloor is the least WaitMinutes of each bucket: what the reader
// sets for a goroutine of that bucket.
var WaitFloor = [...]int{0, 1, 10, 60}

// String returns the bucket's label value: "<1m", "1-10m", "10-60m", ">=1h".
func (b WaitBucket) String() string { return pprofWaitNames[b] }

// WaitBucketOf returns the bucket of a goroutine blocked for min minutes.
func WaitBucketOf(min int) WaitBucket {
	switch {
	case min >= 60:
		return waitHours
	case min >= 10:
		return waitTensOfMinutes
	case min >= 1:
		return waitMinutes
	}
	return waitUnderMinute
}

// ParseWaitBucket returns the bucket named s.
func ParseWaitBucket(s string) (WaitBucket, bool) {
	i := slices.Index(pprofWaitNames[:], s)
	return WaitBucket(max(i, 0)), i >= 0
}
