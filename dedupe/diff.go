package dedupe

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// Change says how a group's count changed between two dumps.
type Change string

// The changes a DiffEntry reports.
const (
	ChangeNew    Change = "new"    // only in the new dump
	ChangeGone   Change = "gone"   // only in the old dump
	ChangeGrown  Change = "grown"  // in both, more routines now
	ChangeShrunk Change = "shrunk" // in both, fewer routines now
)

// Changes returns the changes in the order reports count them; the slice
// is the caller's.
func Changes() []Change { return []Change{ChangeNew, ChangeGone, ChangeGrown, ChangeShrunk} }

// DiffEntry is a group whose count changed between two dumps.
type DiffEntry struct {
	// Key is the group's key (stack.Group.Key), the same in both dumps.
	Key string
	// Change is how the count changed: new, gone, grown or shrunk.
	Change   Change
	Old, New int64 // the group's count in each dump; 0 where absent
	Delta    int64 // New - Old
	// Percent is Delta relative to Old, in percent: -100 for a gone group,
	// and 0 for a new one, which has no old count to relate to.
	Percent float64
	// Group is the group as it is in the new dump, or in the old one for a
	// gone group: its sample stack, states and ids.
	Group *stack.Group
}

// DiffResult compares the groups of two dumps.
type DiffResult struct {
	// Entries are the groups whose count changed, by absolute Delta
	// (largest first), then by key.
	Entries []DiffEntry
	// Unchanged counts the groups present in both dumps with equal counts.
	Unchanged int
	// OldTotal and NewTotal are the routines in each dump (the sums of
	// group counts); OldGroups and NewGroups the numbers of groups.
	OldTotal, NewTotal   int64
	OldGroups, NewGroups int
}

// Delta returns NewTotal - OldTotal.
func (d DiffResult) Delta() int64 { return d.NewTotal - d.OldTotal }

// Percent returns Delta relative to OldTotal, in percent; 0 when the old
// dump was empty.
func (d DiffResult) Percent() float64 { return percent(d.Delta(), d.OldTotal) }

// Count returns how many entries have change c.
func (d DiffResult) Count(c Change) int {
	n := 0
	for _, e := range d.Entries {
		if e.Change == c {
			n++
		}
	}
	return n
}

// GrownBy returns the entries that grew by n routines or more: grown
// groups and new groups (which grew from nothing), in Entries order.
// n below 1 counts as 1.
func (d DiffResult) GrownBy(n int64) []DiffEntry {
	n = max(n, 1)
	var out []DiffEntry
	for _, e := range d.Entries {
		if e.Delta >= n {
			out = append(out, e)
		}
	}
	return out
}

// Diff matches the groups of two dumps by key and reports the changes.
// Both sides must be grouped at the same level; groups of any input
// format match, since keys depend only on the stack. A key listed twice
// on one side (groups of several dumps) counts once, with the counts
// summed.
func Diff(old, new []*stack.Group) DiffResult {
	res := DiffResult{}
	oldBy, oldOrder := indexGroups(old)
	newBy, newOrder := indexGroups(new)
	res.OldGroups, res.NewGroups = len(oldBy), len(newBy)
	for _, k := range oldOrder {
		o := oldBy[k]
		res.OldTotal += o.count
		n, ok := newBy[k]
		switch {
		case !ok:
			res.Entries = append(res.Entries, entry(k, ChangeGone, o.count, 0, o.group))
		case n.count > o.count:
			res.Entries = append(res.Entries, entry(k, ChangeGrown, o.count, n.count, n.group))
		case n.count < o.count:
			res.Entries = append(res.Entries, entry(k, ChangeShrunk, o.count, n.count, n.group))
		default:
			res.Unchanged++
		}
	}
	for _, k := range newOrder {
		n := newBy[k]
		res.NewTotal += n.count
		if _, ok := oldBy[k]; !ok {
			res.Entries = append(res.Entries, entry(k, ChangeNew, 0, n.count, n.group))
		}
	}
	slices.SortFunc(res.Entries, func(a, b DiffEntry) int {
		if c := cmp.Compare(abs(b.Delta), abs(a.Delta)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return res
}

type keyed struct {
	count int64
	group *stack.Group // the first group with the key
}

func indexGroups(groups []*stack.Group) (map[string]*keyed, []string) {
	by := make(map[string]*keyed, len(groups))
	var order []string
	for _, g := range groups {
		k := by[g.Key]
		if k == nil {
			k = &keyed{group: g}
			by[g.Key] = k
			order = append(order, g.Key)
		}
		k.count += g.Count
	}
	return by, order
}

func entry(key string, c Change, old, new int64, g *stack.Group) DiffEntry {
	return DiffEntry{Key: key, Change: c, Old: old, New: new, Delta: new - old, Percent: percent(new-old, old), Group: g}
}

func percent(delta, base int64) float64 {
	if base == 0 {
		return 0
	}
	return float64(delta) * 100 / float64(base)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
