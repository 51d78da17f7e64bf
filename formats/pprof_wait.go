package formats

import (
	"slices"
	"strconv"
	"strings"
)

// pprofWaitBucket is a range of wait minutes, the value of the "wait"
// sample label of the pprof profiles stackdump writes. Buckets, not
// minutes, keep the label's cardinality at four whatever the dump: profile
// stores (Pyroscope, Parca) index every distinct label value.
type pprofWaitBucket uint8

// The wait buckets. The runtime prints wait minutes only from one minute
// on, so a goroutine that is running, runnable or blocked for less is in
// "<1m".
const (
	waitUnderMinute   pprofWaitBucket = iota // "<1m": 0 minutes
	waitMinutes                              // "1-10m": 1 to 9 minutes
	waitTensOfMinutes                        // "10-60m": 10 to 59 minutes
	waitHours                                // ">=1h": 60 minutes or more
)

var pprofWaitNames = [...]string{"<1m", "1-10m", "10-60m", ">=1h"}

// pprofWaitFloor is the least WaitMinutes of each bucket: what the reader
// sets for a goroutine of that bucket.
var pprofWaitFloor = [...]int{0, 1, 10, 60}

func (b pprofWaitBucket) String() string { return pprofWaitNames[b] }

// waitBucketOf returns the bucket of a goroutine blocked for min minutes.
func waitBucketOf(min int) pprofWaitBucket {
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

// parseWaitBucket returns the bucket named s.
func parseWaitBucket(s string) (pprofWaitBucket, bool) {
	i := slices.Index(pprofWaitNames[:], s)
	return pprofWaitBucket(max(i, 0)), i >= 0
}

// A profile comment of this form names the sample label that holds the
// wait bucket, as pprofStateComment names the state label.
const (
	pprofWaitPrefix = "stackdump: the sample label "
	pprofWaitSuffix = " is the goroutine wait-time bucket (<1m, 1-10m, 10-60m, >=1h)"
)

func pprofWaitComment(key string) string {
	return pprofWaitPrefix + strconv.Quote(key) + pprofWaitSuffix
}

func parsePprofWaitComment(c string) (key string, ok bool) {
	q, found := strings.CutPrefix(c, pprofWaitPrefix)
	if !found {
		return "", false
	}
	q, found = strings.CutSuffix(q, pprofWaitSuffix)
	if !found {
		return "", false
	}
	key, err := strconv.Unquote(q)
	return key, err == nil
}

// pprofWaitsKnown reports whether d's routines carry wait times, so that
// the "<1m" bucket means what it says: Go tracebacks and stackdump JSON of
// goroutines, unless the capture says wait_minutes are missing (grouped
// and trace modes), and any dump whose routines have wait minutes (a
// profile stackdump wrote, read back). debug=1, pprof without stackdump's
// wait label, traces and JVM dumps have none.
func pprofWaitsKnown(d *Dump, a *routineAggregate) bool {
	if c := d.Source.Capture; c != nil && slices.Contains(c.Missing, "wait_minutes") {
		return false
	}
	if a.waited {
		return true
	}
	switch d.Source.Kind {
	case KindGoTraceback, KindJSON:
		return !a.threads
	}
	return false
}
