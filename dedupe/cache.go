package dedupe

import (
	"encoding/binary"

	"github.com/stackdump/stackdump/stack"
)

// groupCache remembers the group of each distinct combination of interned
// parts (stack, creator, state) and argument text that decides a routine's
// group, so that the canonical form is built and hashed once per distinct
// stack, not once per routine.
//
// When the stack alone decides (ByStack and ByFunc without
// SplitByCreator), the cache is a slice indexed by Stack.ID, which a
// Table hands out densely from 1: no hashing at all. Stacks that do not
// fit there (a second Table's stack whose ID is taken, hand-made stacks
// without an ID) and the other levels use a map keyed by the parts'
// identities.
//
// At ByExact the arguments decide too. They are compared by content, never
// by the identity of Routine.Values: a reader that reuses its routines
// (formats.ReadOptions.ReuseRoutines, gotext.ReadOptions.ReuseRoutines) hands out the same FrameValues for
// routines whose arguments differ.
type groupCache struct {
	stackOnly bool
	byExact   bool
	creator   bool

	slots []stackSlot // by Stack.ID; slot 0 unused

	byParts   map[partsKey]*group
	last      partsKey // one-entry cache in front of byParts
	lastGroup *group

	byArgs  map[partsKey]map[string]*group // ByExact: then by argument text
	argText []byte                         // scratch: the routine's argument text
}

type stackSlot struct {
	stack *stack.Stack
	grp   *group
}

// partsKey identifies what decides a routine's group, other than its
// arguments, by the identity of its interned parts; the parts a level
// ignores stay zero. Two keys for parts equal in content but interned
// apart lead to the same group (by its hash), only through two cache
// entries.
type partsKey struct {
	stack   *stack.Stack
	creator *stack.Frame
	state   string
}

func newGroupCache(opts Options) groupCache {
	return groupCache{
		stackOnly: opts.By != ByExact && !opts.SplitByCreator,
		byExact:   opts.By == ByExact,
		creator:   opts.By == ByExact || opts.SplitByCreator,
		byParts:   make(map[partsKey]*group),
		byArgs:    make(map[partsKey]map[string]*group),
	}
}

// get returns the group of r's parts, or nil when they were not seen yet.
func (c *groupCache) get(r *stack.Routine) *group {
	if c.stackOnly {
		if s := r.Stack; s != nil && s.ID > 0 && s.ID < len(c.slots) && c.slots[s.ID].stack == s {
			return c.slots[s.ID].grp
		}
	}
	k := c.key(r)
	if c.byExact {
		c.argText = appendArgText(c.argText[:0], r.Values)
		return c.byArgs[k][string(c.argText)] // no allocation for the lookup
	}
	if c.lastGroup != nil && k == c.last {
		return c.lastGroup
	}
	grp := c.byParts[k]
	if grp != nil {
		c.last, c.lastGroup = k, grp
	}
	return grp
}

// put records that r's parts belong to grp. It follows a get of the same
// routine that returned nil.
func (c *groupCache) put(r *stack.Routine, grp *group) {
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
	if c.byExact {
		byText := c.byArgs[k]
		if byText == nil {
			byText = make(map[string]*group)
			c.byArgs[k] = byText
		}
		byText[string(appendArgText(c.argText[:0], r.Values))] = grp
		return
	}
	c.byParts[k] = grp
	c.last, c.lastGroup = k, grp
}

func (c *groupCache) key(r *stack.Routine) partsKey {
	k := partsKey{stack: r.Stack}
	if c.creator {
		k.creator = r.CreatedBy
	}
	if c.byExact {
		k.state = r.State
	}
	return k
}

// appendArgText appends the argument text of every frame of vs to b, each
// preceded by its length, so that distinct argument lists give distinct
// texts.
func appendArgText(b []byte, vs *stack.FrameValues) []byte {
	if vs == nil {
		return b
	}
	for _, f := range vs.Frames {
		b = binary.AppendUvarint(b, uint64(len(f.Args)))
		b = append(b, f.Args...)
	}
	return b
}
