package dedupe

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// DefaultMaxIDs is how many member ids (and distinct creator ids) a group
// lists when Options.MaxIDs is 0.
const DefaultMaxIDs = 10000

// Options configure grouping.
type Options struct {
	// By is the similarity level; the zero value, ByNone, means ByStack.
	By By
	// MaxIDs caps the member ids each group lists (Group.IDs) and its
	// distinct creator ids (Group.ParentIDs). The smallest ids are kept,
	// whatever the input order, and Group.MoreIDs counts the members left
	// out. 0 means DefaultMaxIDs; a negative value lifts the cap, and memory
	// then grows with the number of routines.
	MaxIDs int
	// SplitByCreator also tells apart, at ByStack and ByFunc, routines
	// started by different go statements (ByExact always does). Off by
	// default because debug=1 and pprof inputs do not record creators: with
	// it, keys of debug=2 dumps no longer match keys of those.
	SplitByCreator bool
}

// A Grouper collects routines one at a time into counted groups of
// similar stacks. Its memory follows the number of groups, not of
// routines: each group keeps counts, a capped list of ids, one sample
// routine and a count per distinct label set (label sets cost what they
// already cost in the reader's Table). The result does not depend on the
// order routines are added in. Make one with [NewGrouper]: the zero
// Grouper is not ready for use.
//
// Keys are computed once per distinct interned stack (and, at ByExact, per
// distinct state and argument set), so adding a routine costs a slice
// index or map lookup and a few counters.
//
// A Grouper is not safe for concurrent use.
type Grouper struct {
	opts   Options
	maxIDs int

	cache  groupCache
	byKey  map[keyHash]*group
	groups []*group

	labelKeys map[labelsRef]string // canonical key per label set
	form      []byte               // scratch for canonical forms
	total     int64
}

// labelsRef identifies a label set by its backing array: label sets
// interned by one stack.Table are equal exactly when identical.
type labelsRef struct {
	first *stack.Label
	n     int
}

// NewGrouper returns an empty Grouper.
func NewGrouper(opts Options) *Grouper {
	opts.By = opts.By.grouping()
	maxIDs := opts.MaxIDs
	if maxIDs == 0 {
		maxIDs = DefaultMaxIDs
	}
	return &Grouper{
		opts:      opts,
		maxIDs:    maxIDs,
		cache:     newGroupCache(opts),
		byKey:     make(map[keyHash]*group),
		labelKeys: make(map[labelsRef]string),
	}
}

// Add counts r into its group. The Grouper keeps a copy of at most one
// routine per group (the sample), never r itself, so readers may reuse r.
// A nil r is not counted.
func (g *Grouper) Add(r *stack.Routine) {
	if r == nil {
		return
	}
	grp := g.cache.get(r)
	if grp == nil {
		grp = g.groupOf(r)
		g.cache.put(r, grp)
	}
	grp.add(g, r)
}

// groupOf finds or makes the group of r from its canonical form: the slow
// path, taken once per distinct interned stack (see groupCache).
func (g *Grouper) groupOf(r *stack.Routine) *group {
	g.form = appendCanonical(g.form[:0], r, g.opts.By, g.opts.SplitByCreator)
	h := hashCanonical(g.form)
	if grp := g.byKey[h]; grp != nil {
		return grp
	}
	grp := &group{
		key:     h,
		ids:     newIDSet(g.maxIDs, false),
		parents: newIDSet(g.maxIDs, true),
	}
	g.byKey[h] = grp
	g.groups = append(g.groups, grp)
	return grp
}

// Len returns the number of groups so far.
func (g *Grouper) Len() int { return len(g.groups) }

// Total returns the number of routines added so far: the sum of their
// counts, as stack.Dump.Total.
func (g *Grouper) Total() int64 { return g.total }

// Groups returns the groups, largest first, then by key. Each call builds
// new Group values; the Grouper may go on adding routines afterwards.
func (g *Grouper) Groups() []*stack.Group {
	out := make([]*stack.Group, len(g.groups))
	for i, grp := range g.groups {
		out[i] = grp.export()
	}
	SortGroups(out)
	return out
}

// SortGroups sorts groups by count, highest first, then by key: the
// order Grouper.Groups returns.
func SortGroups(groups []*stack.Group) {
	slices.SortFunc(groups, func(a, b *stack.Group) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// Group groups the routines of an in-memory dump. A nil d has no
// routines: it gives no groups, as an empty dump does.
func Group(d *stack.Dump, opts Options) []*stack.Group {
	g := NewGrouper(opts)
	if d == nil {
		return g.Groups()
	}
	for _, r := range d.Routines {
		g.Add(r)
	}
	return g.Groups()
}

// GroupNext reads the next dump of rd and groups its routines as they
// stream by, without keeping them: a [stack.Pipeline] into a
// [GroupThrough] stage. onWarning, when not nil, sees each parse error
// (they are also the dump's Warnings). At the end of the input it returns
// io.EOF. A nil rd is an error.
func GroupNext(rd stack.DumpSource, opts Options, onWarning func(*stack.ParseError)) (*stack.Dump, []*stack.Group, error) {
	if rd == nil {
		return nil, nil, errors.New("dedupe.GroupNext: nil stack.DumpSource (make one with formats.NewReader)")
	}
	g := GroupThrough(nil, opts)
	p := stack.Pipeline{Source: rd, Encoder: g, OnWarning: onWarning}
	d, err := p.Next(context.Background())
	if err != nil {
		return d, nil, err
	}
	return d, g.Groups(), nil
}

// labelKey returns the canonical key of a label set, memoised by identity.
func (g *Grouper) labelKey(ls stack.Labels) string {
	if len(ls) == 0 {
		return ""
	}
	ref := labelsRef{&ls[0], len(ls)}
	if k, ok := g.labelKeys[ref]; ok {
		return k
	}
	sorted := slices.Clone(ls)
	sorted.Sort()
	var b []byte
	for _, l := range sorted {
		b = strconv.AppendQuote(b, l.Key)
		b = append(b, ':')
		b = strconv.AppendQuote(b, l.Value)
		b = append(b, ',')
	}
	k := string(b)
	g.labelKeys[ref] = k
	return k
}
