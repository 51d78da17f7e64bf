package dedupe

import (
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
)

// By is how alike two routines must be to share a group.
type By int

// Similarity levels, from the finest to the coarsest, after [ByNone].
//
// The zero value is [ByNone], so that an options struct whose By is unset
// (dumper.FileOptions) groups nothing. Where grouping is asked for
// regardless ([Options], [NewGrouper]), ByNone means the default, [ByStack].
const (
	// ByNone groups nothing: every routine is its own record. It is the
	// zero value; [Options.By] reads it as ByStack.
	ByNone By = iota
	// ByStack groups routines whose frames have the same function, file and
	// line. Arguments, pc offsets, states and ids are ignored (states are
	// counted in the group), and so are runtime frames, so that a debug=2
	// dump, a debug=1 dump and a pprof profile of one process give the same
	// groups and keys.
	ByStack
	// ByExact groups routines only when their state, every frame (runtime
	// frames and pc offsets included), every argument and their creator
	// are equal, as debug=2 printed them.
	ByExact
	// ByFunc groups routines whose frames call the same functions, whatever
	// the files and lines: two builds of a program whose lines shifted
	// still match.
	ByFunc
)

// grouping returns the level grouping uses for b: ByStack for ByNone.
func (b By) grouping() By {
	if b == ByNone {
		return ByStack
	}
	return b
}

// Levels returns the similarity levels from the finest to the coarsest,
// for flag help and errors (ByNone is not one); the slice is the caller's.
func Levels() []By { return []By{ByExact, ByStack, ByFunc} }

// String returns the level's name as ParseBy accepts it.
func (b By) String() string {
	switch b {
	case ByNone:
		return "none"
	case ByStack:
		return "stack"
	case ByExact:
		return "exact"
	case ByFunc:
		return "func"
	}
	return fmt.Sprintf("By(%d)", int(b))
}

// ParseBy parses a similarity level name ("exact", "stack" or "func",
// in any case). The empty string is ByStack; "none" is not accepted.
func ParseBy(s string) (By, error) {
	if s == "" {
		return ByStack, nil
	}
	for _, b := range Levels() {
		if strings.EqualFold(s, b.String()) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown similarity %q (want %s)", s, levelNames())
}

func levelNames() string {
	levels := Levels()
	names := make([]string, len(levels))
	for i, b := range levels {
		names[i] = b.String()
	}
	return words.Or(names)
}
