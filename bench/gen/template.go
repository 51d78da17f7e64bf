package gen

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// A template is one stack fragment written as the runtime prints it: a
// function line and an indented file line per frame. Leading whitespace is
// ignored (file lines get the runtime's tab back), and these placeholders
// are filled per goroutine:
//
//	$P      a heap pointer, fresh at each use
//	$A..$H  a heap pointer that is the same everywhere in one goroutine
//	        (a receiver passed down several frames)
//	$R      a poll descriptor address (0x7f… mmap region), per goroutine
//	$S      a small value (0x0, 0x1, 0x10, …)
//	$N      a duration in nanoseconds, as time.Sleep prints it
//	$I      the parent goroutine id (creator lines only)
//
// Anything else is copied verbatim; a '?' after a placeholder is literal,
// as is "...".

// placeholders are the letters that may follow '$'.
const placeholders = "ABCDEFGHPRSNI"

// seg is a literal run of text or a placeholder.
type seg struct {
	lit  string
	kind byte // 0 for literal, else the placeholder letter
}

// frame is one parsed frame: its function line and its file line (without
// the leading tab).
type frame struct {
	fn     string // function name as printed, for pc values
	call   []seg
	file   []seg
	offset bool // the file line has a +0x pc offset (not inlined)
	// pc and size are the frame's pc and stack frame size, stable per
	// function, for fp= sp= pc= annotations.
	pc, size uint64
}

// parseFrames parses a template into frames. It panics on a malformed
// template: templates are constants of this package.
func parseFrames(text string) []frame {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines)%2 != 0 {
		panic(fmt.Sprintf("gen: template has an odd number of lines: %q", text))
	}
	frames := make([]frame, 0, len(lines)/2)
	for i := 0; i < len(lines); i += 2 {
		call, file := lines[i], lines[i+1]
		fn := call
		if p := strings.IndexByte(call, '('); p > 0 && !strings.HasPrefix(call, "created by ") {
			fn = call[:p]
		}
		f := frame{fn: fn, call: parseSegs(call), file: parseSegs(file)}
		if j := strings.Index(file, " +0x"); j >= 0 {
			off, err := strconv.ParseUint(file[j+4:], 16, 64)
			if err != nil {
				panic(fmt.Sprintf("gen: bad pc offset in %q", file))
			}
			f.offset = true
			f.pc = textAddr(fn) + off
		}
		f.size = frameSize(fn)
		frames = append(frames, f)
	}
	return frames
}

// parseSegs splits one line into literals and placeholders.
func parseSegs(line string) []seg {
	var segs []seg
	start := 0
	flush := func(end int) {
		if end > start {
			segs = append(segs, seg{lit: line[start:end]})
		}
	}
	for i := 0; i < len(line); i++ {
		if line[i] == '$' && i+1 < len(line) && strings.IndexByte(placeholders, line[i+1]) >= 0 {
			flush(i)
			segs = append(segs, seg{kind: line[i+1]})
			i++
			start = i + 1
		}
	}
	flush(len(line))
	return segs
}

// frameSize is a function's stack frame size, stable per function.
func frameSize(fn string) uint64 { return 0x20 + hash(fn)%30*8 }

// textAddr is a function's entry pc, stable per function.
func textAddr(fn string) uint64 { return 0x401000 + hash(fn)>>8%0x5f0000 }

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
