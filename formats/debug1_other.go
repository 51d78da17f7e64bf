package formats

import (
	"bytes"
	"fmt"
)

// The text (debug=1) pages of net/http/pprof's other profiles are refused
// with ErrNotGoroutineProfile, wrapping a *ParseError that names the line:
// their records count threads, bytes or delays, not goroutines, and read
// as a goroutine profile they would give a dump that looks real.

// notGoroutineProfile is the error for the header line of a profile that
// is not of goroutines: name is the profile, line and off the header's
// place, text the line.
func notGoroutineProfile(name string, line int, off int64, text []byte) error {
	return fmt.Errorf("%w: %w", ErrNotGoroutineProfile, &ParseError{
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

// sniffOtherProfile returns the error for a text input whose first line
// that marks a format is the header of a heap, allocs, block or mutex
// profile's text (debug=1), nil for any other input. The header of
// threadcreate and of a program's own profiles (`NAME profile: total N`)
// marks the debug=1 format, whose reader refuses it.
func sniffOtherProfile(head []byte) error {
	for num, off := 1, int64(0); len(head) > 0; num++ {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		trimmed := bytes.TrimRight(bytes.TrimLeft(line, " \t\ufeff"), "\r")
		if lineKind(trimmed) != "" {
			return nil
		}
		if name := otherProfileHeader(trimmed); name != "" {
			return notGoroutineProfile(name, num, off, trimmed)
		}
		off += int64(len(head) - len(rest))
		head = rest
	}
	return nil
}

// otherProfileHeader names the profile whose debug=1 text line starts, ""
// for any other line.
//
// Example input: "heap profile: 3: 1536 [40: 20480] @ heap/524288"
// Example output: "heap or allocs"
func otherProfileHeader(line []byte) string {
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
