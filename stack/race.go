package stack

// Race is one report of the Go race detector:
//
//	==================
//	WARNING: DATA RACE
//	Write at 0x0000006d4520 by goroutine 8:
//	  main.raceWrite()
//	      /src/main.go:136 +0x3c
//
//	Previous read at 0x0000006d4520 by main goroutine:
//	  …
//	Goroutine 8 (running) created at:
//	  …
//	==================
//
// A race is not a goroutine: its accesses name goroutines by id, and the
// same goroutine may appear in many reports.
type Race struct {
	// Accesses are the racing memory accesses as printed: the access that
	// tripped the detector, then the earlier one (Previous).
	Accesses []RaceAccess
	// Creators say where the goroutines of the accesses were started, for
	// those the report names (`Goroutine 8 (running) created at:`).
	Creators []RaceCreator
	// Line is the 1-based input line of `WARNING: DATA RACE`; 0 when not
	// read from text.
	Line int
}

// RaceAccess is one memory access of a race report.
type RaceAccess struct {
	// Op is "read" or "write".
	Op string
	// Atomic is set for an atomic access ("Atomic write at …").
	Atomic bool
	// Previous is set for the earlier access ("Previous read at …").
	Previous bool
	// Size is the access size in bytes when the report gives it
	// (ThreadSanitizer's "of size 8"); Go's reports do not, so 0.
	Size int
	// Addr is the accessed address; 0 when the report gives none.
	Addr uint64
	// Goroutine is the accessing goroutine's id; the main goroutine
	// ("by main goroutine") is 1, with Main set.
	Goroutine int64
	Main      bool
	// Stack is the access's call stack, innermost frame first, interned in
	// the reader's Table. Never nil once read.
	Stack *Stack
	// Line is the 1-based input line of the access line; 0 when unknown.
	Line int
}

// Desc returns the access as the race detector names it: "Write",
// "Previous read", "Atomic write", "Previous atomic read".
func (a *RaceAccess) Desc() string {
	op := a.Op
	if a.Atomic {
		op = "atomic " + op
	}
	if a.Previous {
		return "Previous " + op
	}
	return upperFirst(op)
}

// RaceCreator is a `Goroutine N (state) created at:` section of a race
// report: where goroutine N was started.
type RaceCreator struct {
	Goroutine int64
	// State is the goroutine's state at the time of the report:
	// "running" or "finished"; empty when not printed.
	State string
	// Stack is the go statement's call stack, innermost first.
	Stack *Stack
	// Line is the 1-based input line of the section's first line.
	Line int
}

// SystemStack is the `runtime stack:` section of a throw: the frames the
// runtime ran on the system stack of the crashing M, before the
// goroutines. It is kept beside the dump's goroutines, never as one.
type SystemStack struct {
	// Stack is the section's frames, innermost first.
	Stack *Stack
	// Values hold the frames' arguments and fp/sp/pc; nil when none.
	Values *FrameValues
	// Line is the 1-based input line of `runtime stack:`; 0 when unknown.
	Line int
}

func upperFirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
