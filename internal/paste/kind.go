package paste

import (
	"bytes"
	"regexp"
)

// Kind is the family of a dump, as far as the transformations care.
type Kind int

const (
	// Go is a goroutine dump: a traceback, a debug=2 or debug=1 profile, a
	// race report.
	Go Kind = 1 << iota
	// JVM is a JVM thread dump: jstack, jcmd Thread.print, kill -3, VisualVM.
	JVM
)

var (
	goHeader   = regexp.MustCompile(`^goroutine \d+ (gp=\S+ m=\S+ (mp=\S+ )?)?\[`)
	debug1Head = regexp.MustCompile(`^\d+ @( 0x[0-9a-f]+)+\s*$`)
	jvmHeader  = regexp.MustCompile(`^"[^"]*".*( prio=| tid=| - Thread t@)`)
	jvmReport  = regexp.MustCompile(`^Found (one|\d+) Java-level deadlock`)
	// jstackF is a thread header of JDK 8's jstack -F (the serviceability
	// agent): "Thread 8393: (state = BLOCKED)", "Thread t@59139: ..." on JDK 5.
	jstackF = regexp.MustCompile(`^Thread (t@)?\d+: \(state = `)
)

// DetectKind returns the kinds of dump in holds (both for a file with a Go
// and a JVM dump), or 0 for none: binary data, JSON, text without a dump. It
// looks for a line only a dump has: a goroutine header, a debug=1 record or
// total, a race report, a JVM thread header or state, a JVM deadlock report
// or "Full thread dump", a jstack -F thread header.
func DetectKind(in []byte) Kind {
	if bytes.IndexByte(in, 0) >= 0 {
		return 0
	}
	if t := bytes.TrimLeft(in, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return 0
	}
	var k Kind
	for rest := in; len(rest) > 0 && k != Go|JVM; {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		k |= lineKind(l)
	}
	return k
}

// lineKind is the kind of dump whose own line l is, or 0.
func lineKind(l []byte) Kind {
	if len(l) == 0 {
		return 0
	}
	switch c := l[0]; {
	case c == 'g':
		if bytes.HasPrefix(l, []byte("goroutine profile: total ")) || goHeader.Match(l) {
			return Go
		}
	case c == 'W':
		if bytes.HasPrefix(l, []byte("WARNING: DATA RACE")) {
			return Go
		}
	case c >= '0' && c <= '9':
		if debug1Head.Match(l) {
			return Go
		}
	case c == '"':
		if jvmHeader.Match(l) {
			return JVM
		}
	case c == 'T':
		if jstackF.Match(l) {
			return JVM
		}
	case c == 'F':
		if bytes.HasPrefix(l, []byte("Full thread dump ")) || jvmReport.Match(l) {
			return JVM
		}
	}
	if bytes.HasPrefix(bytes.TrimLeft(l, " \t"), []byte("java.lang.Thread.State: ")) {
		return JVM
	}
	return 0
}
