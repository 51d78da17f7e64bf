package dedupe

import "github.com/stackdump/stackdump/formats"

// groupCache remembers the group of each distinct combination of interned
// parts (stack, creator, values, state) that decides a routine's group, so
// that the canonical form is built and hashed once per distinct stack, not
// once per routine.
//
// When the stack alone decides (ByStack and ByFunc without
// SplitByCreator), the cache is a slice indexed by Stack.ID, which a
// Table hands out densely from 1: no hashing at all. Stacks that do not
// fit there (a second Table's stack whose ID is taken, hand-made stacks
// without an ID) and the other levels use a map keyed by the parts'
// identities.
type groupCache struct {
	stackOnly bool
	byExact   bool
	creator   bool

	slots []stackSlot // by Stack.ID; slot 0 unused

	byParts   map[partsKey]*group
	last      partsKey // one-entry cache in front of byParts
	lastGroup *group
}

type stackSlot struct {
	stack *formats.Stack
	grp   *group
}

// partsKey identifies what decides a routine's group by the identity of
// its interned parts; the parts a level ignores stay zero. Two keys for
// parts equal in content but interned apart lead to the same group (by
// its hash), only through two cache entries.
type partsKey struct {
	stack   *formats.Stack
	creator *formats.Frame
	values  *formats.FrameValues
	state   string
}

func newGroupCache(opts Options) groupCache {
	return groupCache{
		stackOnly: opts.By != ByExact && !opts.SplitByCreator,
		byExact:   opts.By == ByExact,
		creator:   opts.By == ByExact || opts.SplitByCreator,
		byParts:   make(map[partsKey]*group),
	}
}

// get returns the group of r's parts, or nil when they were not seen yet.
func (c *groupCache) get(r *formats.Routine) *group {
	if c.stackOnly {
		if s := r.Stack; s != nil && s.ID > 0 && s.ID < len(c.slots) && c.slots[s.ID].stack == s {
			return c.slots[s.ID].grp
		}
	}
	k := c.key(r)
	if c.lastGroup != nil && k == c.last {
		return c.lastGroup
	}
	grp := c.byParts[k]
	if grp != nil {
		c.last, c.lastGroup = k, grp
	}
	return grp
}

// put records that r's parts belong to grp.
func (c *groupCache) put(r *formats.Routine, grp *group) {
	if c.stackOnly {
		// Grow within reason: Table IDs are dense, a hand-made ID of a
		// billion must not allocate a billion slots.
		if s := r.Stack; s != nil && s.ID > 0 && s.ID < 2*len(c.slots)+1024 {
			if s.ID >= len(c.slots) {
				c.slots = append(c.slots, make([]stackSlot, s.ID+1-len(c.slots))...)
			}
			if c.slots[s.ID].stack == nil {
				c.slots[s.ID] = stackSlot{s, grp}
				return
			}
		}
	}
	k := c.key(r)
	c.byParts[k] = grp
	c.last, c.lastGroup = k, grp
}

func (c *groupCache) key(r *formats.Routine) partsKey {
	k := partsKey{stack: r.Stack}
	if c.creator {
		k.creator = r.CreatedBy
	}
	if c.byExact {
		k.values, k.state = r.Values, r.State
	}
	return k
}
