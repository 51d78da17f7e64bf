package gotext

import (
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// Race reports and the system stack in traceback text. A dump's races
// are written first, each between two rules as the race detector prints
// it (docs: reference §6.9), then its preamble, then its system stack
// under `runtime stack:`, then its goroutines: the order a crashing
// program prints them in, which the reader takes back as the same dump.

const (
	textRaceRule   = "==================\n"
	textRaceHeader = textRaceRule + "WARNING: DATA RACE\n"
)

// appendTextRace appends one race report.
func appendTextRace(b []byte, rc *stack.Race) []byte {
	b = append(b, textRaceHeader...)
	for i := range rc.Accesses {
		a := &rc.Accesses[i]
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, a.Desc()...)
		if a.Size != 0 {
			b = append(b, " of size "...)
			b = strconv.AppendInt(b, int64(a.Size), 10)
		}
		if a.Addr != 0 {
			b = append(b, " at 0x"...)
			b = appendTextHex(b, a.Addr, 12)
		}
		if a.Main {
			b = append(b, " by main goroutine:\n"...)
		} else {
			b = append(b, " by goroutine "...)
			b = strconv.AppendInt(b, a.Goroutine, 10)
			b = append(b, ":\n"...)
		}
		b = appendTextRaceStack(b, a.Stack)
	}
	for i := range rc.Creators {
		c := &rc.Creators[i]
		if i > 0 || len(rc.Accesses) > 0 {
			b = append(b, '\n')
		}
		b = append(b, "Goroutine "...)
		b = strconv.AppendInt(b, c.Goroutine, 10)
		if c.State != "" {
			b = append(b, " ("...)
			b = append(b, c.State...)
			b = append(b, ')')
		}
		b = append(b, " created at:\n"...)
		b = appendTextRaceStack(b, c.Stack)
	}
	return append(b, textRaceRule...)
}

// appendTextRaceStack appends a race report's stack: frames indented by
// two spaces, their locations by six.
func appendTextRaceStack(b []byte, s *stack.Stack) []byte {
	if s == nil || len(s.Frames) == 0 {
		return append(b, "  [failed to restore the stack]\n"...)
	}
	for _, f := range s.Frames {
		b = append(b, "  "...)
		b = append(b, f.Func...)
		b = append(b, "()\n"...)
		b = appendTextLocation(b, f, nil, "      ")
	}
	return b
}

// appendTextSystemStack appends `runtime stack:`, its frames and the blank
// line that separates it from the goroutines.
func appendTextSystemStack(b []byte, s *stack.SystemStack) []byte {
	b = append(b, "runtime stack:\n"...)
	b = appendTextStack(b, s.Stack, s.Values)
	return append(b, '\n')
}
