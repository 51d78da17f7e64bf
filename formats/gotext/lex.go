package gotext

// The lexer: what a line of Go traceback text is, by its form alone.
// classify looks at one line and at nothing else; what the line means
// where it stands (a frame of the routine being read, the next line of a
// panic's value, junk between two dumps) is for the assembler to say
// (assemble.go). The accelerator (accel.go) recognises the commonest of
// these forms straight out of the line source's window.
//
// A line may read as more than one form: `\tpc=0x4a7e0f` is a cgo frame's
// file line and, as a word on its own, a cgo symbol's call line. classify
// names the first form in the order of the kinds' checks below; where a
// state wants another reading of a line, the assembler parses it for
// that reading (parse.go).

// lineKind is the form of a line of Go traceback text.
type lineKind uint8

const (
	lineText        lineKind = iota // none of the forms below: junk, a panic value's line, prose
	lineBlank                       // nothing, or only spaces and tabs
	lineHeader                      // goroutine 1 [running]:  (token.hdr)
	lineCall                        // main.main(), main.f(...), C.sym, non-Go function at pc=0x…  (token.call)
	lineFile                        // \t/src/main.go:12 +0x1d [fp=… sp=… pc=…], indented  (token.fl)
	lineCreatedBy                   // created by main.main in goroutine 1
	lineElided                      // ...3 frames elided..., ...additional frames elided...
	lineAncestor                    // [originating from goroutine 7]:
	lineUnavailable                 // goroutine running on other thread; stack unavailable
	lineSystemStack                 // runtime stack:
	lineCrash                       // panic: …, fatal error: …, SIGSEGV: segmentation violation, runtime: …
	lineSignal                      // [signal SIGSEGV: …], PC=0x… m=0 sigcode=0, signal arrived during cgo execution
	lineRegister                    // rax    0xca (a signal dump's registers)
	lineRaceStart                   // WARNING: DATA RACE
	lineRaceEnd                     // ================== (18 or more)
	lineRaceAccess                  // Read at 0x… by goroutine 7:, Goroutine 7 (running) created at:
	lineRaceNoStack                 // [failed to restore the stack], indented
	lineGrepGap                     // -- (grep's group separator)
	lineEllipsis                    // ..., [...]: lines a person cut out of a paste
	lineThreadEnd                   // ----- (the end of a thread's block, GOTRACEBACK=crash)
	lineCutMarker                   // stackdump: traceback cut: … (CutMarker)
)

// token is a line, its kind and what classify parsed of it for that kind.
type token struct {
	kind lineKind
	line []byte // the line as read (its prefix, if one was learnt, stripped)
	// text is the line without its indentation, when indented is set.
	text     []byte
	indented bool
	hdr      goHeader // lineHeader
	fl       fileLine // lineFile
	// lineCall: the function's name and arguments and how it was called.
	name, args []byte
	form       callForm
}

// classify fills tok with the kind of line and what that kind parses.
func classify(line []byte, tok *token) {
	tok.line, tok.text, tok.indented = line, line, false
	tok.kind = classifyLine(line, tok)
}

func classifyLine(line []byte, tok *token) lineKind {
	if isBlankLine(line) {
		return lineBlank
	}
	switch line[0] {
	case '\t', ' ':
		return classifyIndented(line, tok)
	case 'g':
		if parseHeader(line, &tok.hdr) {
			return lineHeader
		}
		if isUnavailable(line) {
			return lineUnavailable
		}
	case 'c':
		if _, _, ok := parseCreatedBy(line); ok {
			return lineCreatedBy
		}
	case '.':
		if _, ok := parseElided(line); ok {
			return lineElided
		}
		if isEllipsis(line) {
			return lineEllipsis
		}
	case '[':
		if _, ok := parseOriginating(line); ok {
			return lineAncestor
		}
		if hasPrefixStr(line, "[signal ") {
			return lineSignal
		}
		if isEllipsis(line) {
			return lineEllipsis
		}
	case 'r':
		if string(line) == "runtime stack:" {
			return lineSystemStack
		}
	case 'W':
		if string(line) == "WARNING: DATA RACE" {
			return lineRaceStart
		}
	case '=':
		if isRaceSeparator(line) {
			return lineRaceEnd
		}
	case '-':
		if string(line) == "--" {
			return lineGrepGap
		}
		if string(line) == "-----" {
			return lineThreadEnd
		}
	case 'P':
		if hasPrefixStr(line, "PC=") {
			return lineSignal
		}
	case 's':
		if hasPrefixStr(line, CutMarker) {
			return lineCutMarker
		}
		if hasPrefixStr(line, "signal arrived during ") {
			return lineSignal
		}
	}
	if isPreambleStart(line) {
		return lineCrash
	}
	if _, ok := parseRaceAccess(line); ok {
		return lineRaceAccess
	}
	if isRegisterLine(line) {
		return lineRegister
	}
	if tok.name, tok.args, tok.form = parseCall(line); tok.form != callNone {
		return lineCall
	}
	return lineText
}

// classifyIndented is classify for a line that starts with a tab or a
// space: race reports indent their frames, and every file line is.
func classifyIndented(line []byte, tok *token) lineKind {
	t := trimBlanks(line)
	tok.text, tok.indented = t, true
	switch {
	case len(t) > 0 && t[0] == '.' && isEllipsis(t):
		return lineEllipsis
	case isUnavailable(t):
		return lineUnavailable
	case string(t) == "[failed to restore the stack]":
		return lineRaceNoStack
	case parseFileLine(line, &tok.fl):
		return lineFile
	}
	if tok.name, tok.args, tok.form = parseCall(t); tok.form != callNone {
		return lineCall
	}
	return lineText
}

// isPreambleStart reports whether line opens a dump's explanation.
func isPreambleStart(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case 'p':
		return hasPrefixStr(line, "panic: ")
	case 'f':
		return hasPrefixStr(line, "fatal error: ") || hasPrefixStr(line, "fatal: ")
	case 'r':
		return hasPrefixStr(line, "runtime: ")
	case 'u':
		return hasPrefixStr(line, "unexpected fault address ") || hasPrefixStr(line, "unexpected signal ")
	case 'E':
		return hasPrefixStr(line, "Exception 0x")
	case 'S':
		// SIGQUIT: quit, SIGSEGV: segmentation violation, SIGABRT: abort
		i := 3
		if !hasPrefixStr(line, "SIG") {
			return false
		}
		for i < len(line) && (line[i] >= 'A' && line[i] <= 'Z' || line[i] >= '0' && line[i] <= '9') {
			i++
		}
		return i > 3 && i+1 < len(line) && line[i] == ':' && line[i+1] == ' '
	}
	return false
}

// isEllipsis reports whether line is only an ellipsis a person put in
// place of lines they cut out of a paste: "...", ".....", "[...]",
// "…". The runtime's own elision lines ("...additional frames
// elided...") are not.
func isEllipsis(line []byte) bool {
	t := trimBlanks(line)
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = t[1 : len(t)-1]
	}
	if string(t) == "…" {
		return true
	}
	if len(t) < 3 {
		return false
	}
	for _, c := range t {
		if c != '.' {
			return false
		}
	}
	return true
}

func isUnavailable(line []byte) bool {
	return string(line) == "goroutine running on other thread; stack unavailable"
}

func isRaceSeparator(line []byte) bool {
	if len(line) < 18 {
		return false
	}
	for _, c := range line {
		if c != '=' {
			return false
		}
	}
	return true
}

func hasPrefixStr(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

func lastIndexStr(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
