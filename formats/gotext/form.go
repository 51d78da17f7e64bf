package gotext

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// Form says which lines are Go traceback text's own: a goroutine header
// (`goroutine N [` or `goroutine N gp=`) and a race report's
// `WARNING: DATA RACE` start a dump, and a goroutine's or a race report
// block's first line is followed by a function call. The door (package
// formats) composes it with the other text codecs' forms to sniff an
// input, to set a paste's frame aside (internal/unpaste) and to tell
// where a dump of another form starts.
func Form() codec.Form {
	return codec.Form{Kind: stack.KindGoTraceback, Line: startsDump, Start: startsDump, Find: findDumpLine, Block: blockFollower}
}

// startsDump reports whether line is a goroutine header, a race report's
// first line, or a line the runtime starts a crash with: a `runtime: `
// diagnostic (a thousand lines of it may stand before the goroutines) or
// `fatal error: `.
func startsDump(line []byte) bool {
	return isHeaderStart(line) || bytes.HasPrefix(line, []byte("WARNING: DATA RACE")) ||
		len(line) > len("runtime: ") && bytes.HasPrefix(line, []byte("runtime: ")) ||
		bytes.HasPrefix(line, []byte("fatal error: "))
}

// isHeaderStart matches the start of a goroutine header, `goroutine N [`
// or `goroutine N gp=…`: the line a Go dump has and no other text does,
// looser than parseHeader (the line may be cut after it).
func isHeaderStart(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("goroutine "))
	if !ok {
		return false
	}
	n := codec.Digits(rest)
	return n > 0 && len(rest) > n+1 && rest[n] == ' ' && (rest[n+1] == '[' || bytes.HasPrefix(rest[n+1:], []byte("gp=")))
}

// findDumpLine returns where a goroutine header or a race report's first
// line starts inside line, after text a paste put before it; -1 when none
// does. Only a few places are tried: text of many "goroutine " words must
// not cost the square of its length.
func findDumpLine(line []byte) int {
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		k := bytes.Index(line[from:], []byte("goroutine "))
		if k < 0 {
			break
		}
		k += from
		if isHeaderStart(line[k:]) {
			return k
		}
		from = k + 1
	}
	if k := bytes.Index(line, []byte("WARNING: DATA RACE")); k > 0 && len(bytes.TrimRight(line[k:], "\r")) == len("WARNING: DATA RACE") {
		return k
	}
	return -1
}

// maxFindTries bounds the places findDumpLine tries.
const maxFindTries = 16

// blockFollower returns, for a goroutine header or a race report's access
// or creation line, the test of the line after it: a function call.
func blockFollower(line []byte) func(next []byte) bool {
	if len(line) == 0 || !mayStartBlock[line[0]] {
		return nil // most lines
	}
	if isHeaderStart(line) || isRaceBlockStart(line) {
		return isCallShape
	}
	return nil
}

// mayStartBlock holds the first bytes of the lines blockFollower knows: a
// goroutine header's 'g' and the capitals of a race report's block lines.
// (A literal: nothing runs at init.)
var mayStartBlock = [256]bool{'g': true, 'R': true, 'W': true, 'P': true, 'A': true, 'G': true}

// isCallShape reports whether l (trimmed) is a Go function call line:
// "main.worker(0xc000012345, ...)", "main.main()".
func isCallShape(l []byte) bool {
	return len(l) > 2 && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0 && !isHeaderStart(l)
}

// isRaceBlockStart reports whether line starts a block of a race report:
// an access ("Read at 0x… by goroutine 7:") or a goroutine's creation
// ("Goroutine 7 (running) created at:").
func isRaceBlockStart(line []byte) bool {
	if !bytes.HasSuffix(line, []byte(":")) {
		return false
	}
	for _, p := range []string{"Read at ", "Write at ", "Previous read at ", "Previous write at ",
		"Atomic read at ", "Atomic write at ", "Previous atomic read at ", "Previous atomic write at "} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return bytes.HasPrefix(line, []byte("Goroutine ")) && bytes.HasSuffix(line, []byte(" created at:"))
}
