package pprof

import (
	"github.com/stackdump/stackdump/formats/internal/aggregate"
	"github.com/stackdump/stackdump/stack"
	"slices"
	"strconv"
	"strings"
)

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
func pprofWaitsKnown(d *stack.Dump, a *aggregate.Routines) bool {
	if c := d.Source.Capture; c != nil && slices.Contains(c.Missing, "wait_minutes") {
		return false
	}
	if a.Waited {
		return true
	}
	switch d.Source.Kind {
	case stack.KindGoTraceback, stack.KindJSON:
		return !a.Threads
	}
	return false
}
