package leakcheck

import (
	"context"
	"errors"
	"hash/maphash"
	"time"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// Find looks for goroutines other than the caller that no Option ignores,
// retrying while some are left (they may be about to exit), and returns an
// *Error describing them in counted groups, or nil.
//
// On Go 1.27+ (see leakProfile) a check with leftovers first asks the
// runtime to prove leaks: a leftover the garbage collector proves can never
// be woken fails the check at once, without the retry sleeps. Goroutines
// still running, sleeping or blocked on something reachable are retried as
// goleak retries them.
//
// Find refuses Cleanup and RunOnFailure with goleak's errors.
func Find(opts ...Option) error {
	o := buildOptions(opts)
	if err := o.refuse(); err != nil {
		return err
	}
	return find(o)
}

// The errors goleak returns for options Find cannot take, in its words.
var (
	errCleanupInFind      = errors.New("Cleanup can only be passed to VerifyNone or VerifyTestMain")
	errRunOnFailureInFind = errors.New("RunOnFailure can only be passed to VerifyTestMain")
)

// refuse returns the error for an option Find cannot take, or nil.
func (o *options) refuse() error {
	if o.cleanup != nil {
		return errCleanupInFind
	}
	if o.runOnFailure {
		return errRunOnFailureInFind
	}
	return nil
}

// checker holds what one Find keeps between its retries.
type checker struct {
	o    *options
	self int64
	tbl  *stack.Table
	seed maphash.Seed
	// verdicts remembers, per goroutine id, the hash of the text last
	// parsed for it and whether that text was a leftover: a goroutine
	// blocked in the same place prints the same text, and is not parsed
	// again on the next retry.
	verdicts map[int64]verdict
	scratch  []byte
	pending  []goroutineText
}

type verdict struct {
	hash     uint64
	leftover bool
}

// gcShare bounds the time spent proving leaks (a GC cycle each) to about a
// tenth of a failing check's time.
const gcShare = 10

func find(o *options) error {
	self := currentID()
	if o.ownOnly {
		o.scope = &scope{root: self}
	}
	c := &checker{o: o, self: self, tbl: stack.NewTable(), seed: maphash.MakeSeed(), verdicts: map[int64]verdict{}}
	prof := leakProfile()
	start := time.Now()
	var gcTime time.Duration
	for attempt := 0; ; attempt++ {
		s := takeSnapshot()
		left := c.leftovers(s)
		if len(left) > 0 && prof != nil && !anyLeaked(left) && (attempt == 0 || gcTime*gcShare <= time.Since(start)) {
			s.release()
			gcTime += detectLeaks(prof)
			s = takeSnapshot()
			left = c.leftovers(s)
		}
		if len(left) == 0 {
			s.release()
			return nil
		}
		if anyLeaked(left) || attempt >= o.maxRetries {
			err := c.report(s, left, attempt, prof != nil)
			s.release()
			return err
		}
		s.release()
		o.sleep(attempt)
	}
}

// sleep waits before retry i+1: 1µs doubled i times, at most maxSleep.
func (o *options) sleep(i int) {
	d := time.Duration(int64(time.Microsecond) << min(i, 40))
	time.Sleep(min(d, o.maxSleep))
}

func anyLeaked(gs []goroutineText) bool {
	for _, g := range gs {
		if g.leaked {
			return true
		}
	}
	return false
}

// leftovers returns the goroutines of s that count: not the caller, not in
// an IgnoreCurrent snapshot, inside the caller's scope if there is one
// (OnlyOwnGoroutines),
// and not ignored by a filter. Ids are checked first; only the blocks that
// are left and changed since the last retry are parsed.
func (c *checker) leftovers(s *snapshot) []goroutineText {
	var scoped *membership
	if c.o.scope != nil {
		scoped = c.o.scope.membership(s)
	}
	var left []goroutineText
	c.pending = c.pending[:0]
	c.scratch = c.scratch[:0]
	for _, g := range s.gs {
		if g.id == c.self || c.o.ignoredID(g.id) || scoped != nil && !scoped.has(g.id) {
			continue
		}
		h := maphash.Bytes(c.seed, s.block(g))
		if v, ok := c.verdicts[g.id]; ok && v.hash == h {
			if v.leftover {
				left = append(left, g)
			}
			continue
		}
		c.verdicts[g.id] = verdict{hash: h, leftover: true} // until parsed
		c.pending = append(c.pending, g)
		c.scratch = append(c.scratch, s.block(g)...)
		c.scratch = append(c.scratch, '\n')
	}
	if len(c.pending) == 0 {
		return left
	}
	p := stack.Pipeline{
		Source: gotext.NewRuntimeReaderBytes(c.scratch, gotext.ReadOptions{Table: c.tbl, ReuseRoutines: true}),
		Encoder: stack.RoutineFunc(func(r *stack.Routine) {
			if v, ok := c.verdicts[r.ID]; ok && r.ID != 0 && c.o.ignored(r) {
				v.leftover = false
				c.verdicts[r.ID] = v
			}
		}),
	}
	_, _ = p.Next(context.Background()) // unreadable text stays a leftover: better reported than missed
	for _, g := range c.pending {
		if c.verdicts[g.id].leftover {
			left = append(left, g)
		}
	}
	return left
}
