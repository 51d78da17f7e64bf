package codec

import (
	"bytes"
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// The text (debug=1) pages of net/http/pprof's other profiles are refused
// with ErrNotGoroutineProfile, wrapping a *ParseError that names the line:
// their records count threads, bytes or delays, not goroutines, and read
// as a goroutine profile they would give a dump that looks real.

// NotGoroutineProfile is the error for the header line of a profile that
// is not of goroutines: name is the profile, line and off the header's
// place, text the line.
func NotGoroutineProfile(name string, line int, off int64, text []byte) error {
	return fmt.Errorf("%w: %w", stack.ErrNotGoroutineProfile, &stack.ParseError{
		Line: line, Offset: off, Text: string(text[:min(len(text), 200)]),
		Msg: "the " + name + " profile (" + profileWhat(name) + ")",
	})
}

// profileWhat says what the records of the runtime profile name count.
func profileWhat(name string) string {
	switch name {
	case "threadcreate":
		return "/debug/pprof/threadcreate: the stacks that created OS threads"
	case "heap or allocs":
		return "/debug/pprof/heap or /debug/pprof/allocs: memory allocation samples"
	case "block":
		return "/debug/pprof/block: where goroutines blocked, and for how long"
	case "mutex":
		return "/debug/pprof/mutex: the holders of contended mutexes"
	}
	return "one a program made with runtime/pprof.NewProfile"
}

// OtherProfileHeader names the profile whose debug=1 text line starts, ""
// for any other line.
//
// Example input: "heap profile: 3: 1536 [40: 20480] @ heap/524288"
// Example output: "heap or allocs"
func OtherProfileHeader(line []byte) string {
	switch {
	case bytes.HasPrefix(line, []byte("heap profile: ")) && bytes.Contains(line, []byte(" @ heap/")):
		return "heap or allocs"
	case bytes.Equal(line, []byte("--- contention:")):
		return "block"
	case bytes.Equal(line, []byte("--- mutex:")):
		return "mutex"
	}
	return ""
}
