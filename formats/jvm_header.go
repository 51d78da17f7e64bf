package formats

import (
	"bytes"
	"strconv"
	"time"
)

// jvmHeader is what a thread header line says.
type jvmHeader struct {
	name    []byte
	id      int64
	hasID   bool
	th      Thread // fields read from the header; Detail not set
	detail  []byte // unmodelled rest, verbatim
	state   []byte // state given on the header (Thread.dump_to_file 25+, ThreadInfo)
	lock    []byte // "WAITING on X" object (ThreadInfo)
	bracket bool   // the header ends with "[0x…]": a Java thread
	toFile  bool   // Thread.dump_to_file form: frames are StackTraceElements
	// threadInfo is set for ThreadInfo.toString headers, whose "waiting
	// on" lines also stand for parking.
	threadInfo bool
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
	if r, ok := bytes.CutPrefix(rest, []byte("- Thread t@")); ok {
		// VisualVM: `"name" - Thread t@332`.
		n, ok := jvmAtoi(bytes.TrimSpace(r))
		h.id, h.hasID = n, ok
		return h, true
	}
	if r, ok := bytes.CutPrefix(rest, []byte("Id=")); ok {
		return parseJVMThreadInfoHeader(h, r)
	}
	h.readTokens(rest)
	return h, true
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

// readTokens reads the modelled tokens after the name, in any order, and
// keeps the rest of the line as the detail.
func (h *jvmHeader) readTokens(rest []byte) {
	for len(rest) > 0 {
		if r, ok := bytes.CutPrefix(rest, []byte("Id=")); ok {
			// ThreadInfo.toString: `"name" daemon prio=5 Id=14 WAITING on …`.
			*h, _ = parseJVMThreadInfoHeader(*h, r)
			return
		}
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok = rest[:i]
		}
		if !h.token(tok) {
			break
		}
		rest = bytes.TrimLeft(rest[len(tok):], " ")
	}
	rest = bytes.TrimRight(rest, " \t")
	h.detail = rest
	h.bracket = len(rest) > 0 && rest[len(rest)-1] == ']'
	if h.th.OSID == 0 {
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
}

// token applies one header token; false when it is not a modelled one.
func (h *jvmHeader) token(tok []byte) bool {
	switch {
	case len(tok) > 1 && tok[0] == '#' && !h.hasID:
		n, ok := jvmAtoi(tok[1:])
		h.id, h.hasID = n, ok
		return ok
	case len(tok) > 2 && tok[0] == '[' && tok[len(tok)-1] == ']':
		n, ok := jvmAtoi(tok[1 : len(tok)-1])
		if ok {
			h.th.OSID = n
		}
		return ok
	case string(tok) == "daemon":
		h.th.Daemon = true
	case string(tok) == "virtual":
		h.th.Virtual = true
	case bytes.HasPrefix(tok, []byte("prio=")):
		n, ok := jvmAtoiSigned(tok[5:])
		h.th.Priority = int(n)
		return ok
	case bytes.HasPrefix(tok, []byte("os_prio=")):
		n, ok := jvmAtoiSigned(tok[8:])
		h.th.OSPrio = int(n)
		return ok
	case bytes.HasPrefix(tok, []byte("cpu=")) && bytes.HasSuffix(tok, []byte("ms")):
		d, ok := jvmParseFixed(tok[4:len(tok)-2], time.Millisecond)
		h.th.CPU = d
		return ok
	case bytes.HasPrefix(tok, []byte("elapsed=")) && bytes.HasSuffix(tok, []byte("s")):
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
		r = bytes.TrimLeft(r, " ")
		i := bytes.IndexByte(r, ' ')
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
	end := bytes.LastIndexByte(rest, '"')
	if len(rest) < 2 || rest[0] != '"' || end < 1 {
		return h, false
	}
	h.id, h.hasID, h.toFile = n, true, true
	h.name = rest[1:end]
	rest = bytes.TrimLeft(rest[end+1:], " ")
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
	return h, true
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

// jvmAppendFixed writes d in unit with two decimals, as HotSpot's
// "%.2f" does.
func jvmAppendFixed(b []byte, d time.Duration, unit time.Duration) []byte {
	hundredth := unit / 100
	v := (d + hundredth/2) / hundredth
	b = strconv.AppendInt(b, int64(v/100), 10)
	b = append(b, '.')
	frac := v % 100
	b = append(b, byte('0'+frac/10), byte('0'+frac%10))
	return b
}
