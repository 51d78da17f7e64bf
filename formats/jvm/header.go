package jvm

import (
	"bytes"
	"github.com/stackdump/stackdump/stack"
	"strconv"
	"time"
)

// jvmHeader is what a thread header line says.
type jvmHeader struct {
	name    []byte
	id      int64
	hasID   bool
	th      stack.Thread // fields read from the header; Detail not set
	detail  []byte       // unmodelled rest, verbatim
	state   []byte       // state given on the header (Thread.dump_to_file 25+, ThreadInfo)
	lock    []byte       // "WAITING on X" object (ThreadInfo)
	bracket bool         // the header ends with "[0x…]": a Java thread
	toFile  bool         // Thread.dump_to_file form: frames are StackTraceElements
	// threadInfo is set for ThreadInfo.toString headers, whose "waiting
	// on" lines also stand for parking.
	threadInfo bool
	// sa is set for JDK 8's jstack -F header "Thread 8393: (state = BLOCKED)".
	sa bool
}

// parseJVMHeader parses a thread header line. It accepts
//
//	"main" #1 [5891] daemon prio=5 os_prio=0 cpu=58.52ms elapsed=5.10s tid=0x… nid=0x1ab5 waiting on condition  [0x…]
//	"VM Thread" os_prio=0 cpu=2.42ms elapsed=5.08s tid=0x… nid=0x1abb runnable
//	"Reference Handler" daemon prio=10 tid=0x0811e400 nid=0x5ba5 in Object.wait() [0xd075a000..0xd075af30]
//	"Timer-180" - Thread t@332                                  (VisualVM)
//	"juc-1" daemon prio=5 Id=14 WAITING on java.util…NonfairSync@548c4f57 owned by "juc-2" Id=15  (ThreadInfo.toString)
//	#23 "name" virtual WAITING 2026-01-05T06:31:54.844839Z     (Thread.dump_to_file)
//
// ok is false when the line is not a thread header (for example the
// `"name":` lines of a deadlock report).
func parseJVMHeader(line []byte) (h jvmHeader, ok bool) {
	if len(line) < 2 {
		return h, false
	}
	switch line[0] {
	case '"':
		return parseJVMHotSpotHeader(line)
	case '#':
		return parseJVMToFileHeader(line)
	}
	return h, false
}

func parseJVMHotSpotHeader(line []byte) (h jvmHeader, ok bool) {
	// The name is raw: it may hold quotes. It ends at the first `" `
	// followed by something only a header has.
	rest := line[1:]
	for off := 0; ; {
		i := bytes.Index(rest[off:], []byte(`" `))
		if i < 0 {
			return h, false
		}
		i += off
		after := bytes.TrimLeft(rest[i+2:], " ")
		if jvmHeaderToken(after) {
			h.name, rest = rest[:i], after
			break
		}
		off = i + 1
	}
	// A name may itself hold `" #N`, looking like a header (a thread named
	// after a dump line): the JDK 7+ header's own `" #N` is the last one,
	// since nothing after it (tid=, nid=, state, [0x…]) has a quote.
	if len(rest) > 0 && rest[0] == '#' {
		name := h.name
		tail := line[1+len(name):]
		if j := lastJVMIDQuote(tail); j > 0 {
			h.name = line[1 : 1+len(name)+j]
			rest = bytes.TrimLeft(tail[j+2:], " ")
		}
	}
	if r, ok := bytes.CutPrefix(rest, []byte("- Thread t@")); ok {
		// VisualVM: `"name" - Thread t@332`.
		n, ok := jvmAtoi(bytes.TrimSpace(r))
		h.id, h.hasID = n, ok
		return h, ok
	}
	if r, ok := bytes.CutPrefix(rest, []byte("Id=")); ok {
		h, ok = parseJVMThreadInfoHeader(h, r)
		h.finish()
		return h, ok
	}
	h.readTokens(rest)
	h.finish()
	return h, true
}

// lastJVMIDQuote returns the index in b of the last `" #` followed by a
// digit, or -1.
func lastJVMIDQuote(b []byte) int {
	for j := len(b); ; {
		j = bytes.LastIndex(b[:j], []byte(`" #`))
		if j < 0 {
			return -1
		}
		if j+3 < len(b) && b[j+3] >= '0' && b[j+3] <= '9' {
			return j
		}
	}
}

// finish derives what the detail says: whether it ends with the "[0x…]"
// of a Java thread, and the OS thread id of "nid=" when no "[osId]" gave it.
func (h *jvmHeader) finish() {
	rest := h.detail
	h.bracket = len(rest) > 0 && rest[len(rest)-1] == ']'
	if h.th.OSID != 0 {
		return
	}
	if i := bytes.Index(rest, []byte("nid=")); i >= 0 && (i == 0 || rest[i-1] == ' ') {
		v := rest[i+4:]
		if j := bytes.IndexByte(v, ' '); j >= 0 {
			v = v[:j]
		}
		if n, ok := parseJVMNid(v); ok {
			h.th.OSID = n
		}
	}
}

// jvmHeaderTokens are the words that may follow a thread name.
var jvmHeaderTokens = []string{"daemon", "prio=", "os_prio=", "tid=", "- Thread t@", "Id=", "virtual", "cpu="}

// jvmHeaderToken reports whether b starts with a token that follows the
// name in a thread header.
func jvmHeaderToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '#' {
		return len(b) > 1 && b[1] >= '0' && b[1] <= '9'
	}
	for _, p := range jvmHeaderTokens {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return true
		}
	}
	return false
}

// readTokens reads the modelled tokens after the name and keeps the rest
// of the line as the detail. Tokens are taken in HotSpot's order only
// (see jvmTokenPos), so a detail that happens to start with a token word
// stays detail.
func (h *jvmHeader) readTokens(rest []byte) {
	last := -1
	for len(rest) > 0 {
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok = rest[:i]
		}
		pos := jvmTokenPos(tok)
		if pos <= last {
			break
		}
		if pos == jvmPosThreadInfo {
			// ThreadInfo.toString: `"name" daemon prio=5 Id=14 WAITING on …`.
			*h, _ = parseJVMThreadInfoHeader(*h, rest[len("Id="):])
			return
		}
		if !h.token(tok) {
			break
		}
		last = pos
		rest = bytes.TrimLeft(rest[len(tok):], " ")
	}
	h.detail = bytes.TrimRight(rest, " \t\r")
}

// Positions of the header tokens, in the order HotSpot prints them:
// `#id [osId] daemon prio= os_prio= cpu= elapsed=`; "virtual" is
// stackdump's, ThreadInfo.toString puts `Id=` after prio=.
const (
	jvmPosID = iota
	jvmPosOSID
	jvmPosVirtual
	jvmPosDaemon
	jvmPosPrio
	jvmPosOSPrio
	jvmPosThreadInfo
	jvmPosCPU
	jvmPosElapsed
)

// jvmTokenPos returns the position of a header token, or -1 for a word
// that is not one.
func jvmTokenPos(tok []byte) int {
	switch {
	case len(tok) > 1 && tok[0] == '#':
		return jvmPosID
	case len(tok) > 2 && tok[0] == '[' && tok[len(tok)-1] == ']':
		return jvmPosOSID
	case string(tok) == "virtual":
		return jvmPosVirtual
	case string(tok) == "daemon":
		return jvmPosDaemon
	case bytes.HasPrefix(tok, []byte("prio=")):
		return jvmPosPrio
	case bytes.HasPrefix(tok, []byte("os_prio=")):
		return jvmPosOSPrio
	case bytes.HasPrefix(tok, []byte("Id=")):
		return jvmPosThreadInfo
	case bytes.HasPrefix(tok, []byte("cpu=")):
		return jvmPosCPU
	case bytes.HasPrefix(tok, []byte("elapsed=")):
		return jvmPosElapsed
	}
	return -1
}

// token applies one header token; false when its value does not parse.
func (h *jvmHeader) token(tok []byte) bool {
	switch jvmTokenPos(tok) {
	case jvmPosID:
		n, ok := jvmAtoi(tok[1:])
		h.id, h.hasID = n, ok
		return ok
	case jvmPosOSID:
		n, ok := jvmAtoi(tok[1 : len(tok)-1])
		if ok {
			h.th.OSID = n
		}
		return ok
	case jvmPosDaemon:
		h.th.Daemon = true
	case jvmPosVirtual:
		h.th.Virtual = true
	case jvmPosPrio:
		n, ok := jvmAtoiSigned(tok[5:])
		h.th.Priority = int(n)
		return ok
	case jvmPosOSPrio:
		n, ok := jvmAtoiSigned(tok[8:])
		h.th.OSPrio = int(n)
		return ok
	case jvmPosCPU:
		if !bytes.HasSuffix(tok, []byte("ms")) {
			return false
		}
		d, ok := jvmParseFixed(tok[4:len(tok)-2], time.Millisecond)
		h.th.CPU = d
		return ok
	case jvmPosElapsed:
		if !bytes.HasSuffix(tok, []byte("s")) {
			return false
		}
		d, ok := jvmParseFixed(tok[8:len(tok)-1], time.Second)
		h.th.Elapsed = d
		return ok
	default:
		return false
	}
	return true
}

// parseJVMThreadInfoHeader reads the rest of a ThreadInfo.toString header
// after "Id=": `76 WAITING on java.lang.Object@5a679233 owned by "t" Id=3 (in native)`.
func parseJVMThreadInfoHeader(h jvmHeader, r []byte) (jvmHeader, bool) {
	word := func() []byte {
		r = bytes.TrimLeft(r, " \t")
		i := bytes.IndexAny(r, " \t")
		if i < 0 {
			i = len(r)
		}
		w := r[:i]
		r = r[i:]
		return w
	}
	n, ok := jvmAtoi(word())
	if !ok {
		return h, false
	}
	h.id, h.hasID, h.threadInfo = n, true, true
	h.state = word()
	if rest, ok := bytes.CutPrefix(bytes.TrimLeft(r, " "), []byte("on ")); ok {
		r = rest
		h.lock = word()
	}
	h.detail = bytes.TrimSpace(r)
	return h, true
}

// parseJVMToFileHeader parses a Thread.dump_to_file header:
// `#23 "name"`, `#23 "" virtual`, `#26 "name" virtual WAITING 2026-01-05T06:31:54.844839Z`.
func parseJVMToFileHeader(line []byte) (h jvmHeader, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 2 {
		return h, false
	}
	n, ok := jvmAtoi(line[1:sp])
	if !ok {
		return h, false
	}
	rest := line[sp+1:]
	if len(rest) < 2 || rest[0] != '"' {
		return h, false
	}
	// The name ends at the first quote followed by the end of the line or
	// by what may follow a name; failing that, at the last quote.
	body, end := rest[1:], -1
	for off := 0; ; {
		i := bytes.IndexByte(body[off:], '"')
		if i < 0 {
			break
		}
		i += off
		after := body[i+1:]
		if len(after) == 0 || (after[0] == ' ' && jvmToFileTail(bytes.TrimLeft(after, " "))) {
			end = i
			break
		}
		off = i + 1
	}
	if end < 0 {
		if end = bytes.LastIndexByte(body, '"'); end < 0 {
			return h, false
		}
	}
	h.id, h.hasID, h.toFile = n, true, true
	h.name = body[:end]
	rest = bytes.TrimLeft(body[end+1:], " ")
	if r, ok := bytes.CutPrefix(rest, []byte("virtual")); ok && (len(r) == 0 || r[0] == ' ') {
		h.th.Virtual = true
		rest = bytes.TrimLeft(r, " ")
	}
	if i := bytes.IndexByte(rest, ' '); i > 0 && jvmIsThreadState(rest[:i]) {
		h.state, rest = rest[:i], rest[i+1:]
	} else if jvmIsThreadState(rest) {
		h.state, rest = rest, nil
	}
	h.detail = bytes.TrimSpace(rest)
	h.finish()
	return h, true
}

// jvmToFileTail reports whether b can follow the name of a
// Thread.dump_to_file header: "virtual", a state, an instant, or a token
// of a HotSpot header.
func jvmToFileTail(b []byte) bool {
	if len(b) > 0 && b[0] >= '0' && b[0] <= '9' || jvmHeaderToken(b) {
		return true
	}
	word := b
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		word = b[:i]
	}
	return jvmIsThreadState(word)
}

// jvmIsThreadState reports whether b is a java.lang.Thread.State name.
func jvmIsThreadState(b []byte) bool {
	switch string(b) {
	case "NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED":
		return true
	}
	return false
}

// jvmAtoiSigned parses a decimal integer with an optional minus sign.
func jvmAtoiSigned(b []byte) (int64, bool) {
	if len(b) > 0 && b[0] == '-' {
		n, ok := jvmAtoi(b[1:])
		return -n, ok
	}
	return jvmAtoi(b)
}

// jvmParseFixed parses "1234.56" in the given unit exactly (no float
// rounding), so cpu=58.52ms reads as 58.52 ms and writes back the same.
func jvmParseFixed(b []byte, unit time.Duration) (time.Duration, bool) {
	intPart, frac, _ := bytes.Cut(b, []byte("."))
	n, ok := jvmAtoi(intPart)
	if !ok || n > int64(1<<62)/int64(unit) {
		return 0, false
	}
	d := time.Duration(n) * unit
	scale := unit
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		scale /= 10
		if scale == 0 {
			break
		}
		d += time.Duration(c-'0') * scale
	}
	return d, true
}

// jvmAppendFixed writes d in unit with two decimals, as HotSpot's "%.2f"
// does, or with as many more as d holds (down to the nanosecond), so that
// jvmParseFixed reads back d. d is not negative (jvmParseFixed makes none)
// and unit is a power of ten of at least 100.
func jvmAppendFixed(b []byte, d time.Duration, unit time.Duration) []byte {
	b = strconv.AppendInt(b, int64(d/unit), 10)
	b = append(b, '.')
	start := len(b)
	for u := unit / 10; u > 0; u /= 10 {
		b = append(b, byte('0'+(d%unit)/u%10))
	}
	end := len(b)
	for end > start+2 && b[end-1] == '0' {
		end--
	}
	return b[:end]
}
