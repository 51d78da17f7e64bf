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
	goHeader  = regexp.MustCompile(`(?m)^goroutine \d+ (gp=\S+ m=\S+ (mp=\S+ )?)?\[|^goroutine profile: total \d+|^\d+ @( 0x[0-9a-f]+)+\s*$|^WARNING: DATA RACE`)
	jvmHeader = regexp.MustCompile(`(?m)^\s*java\.lang\.Thread\.State: |^"[^"\n]*"[^\n]*( prio=| tid=| - Thread t@)|^Found (one|\d+) Java-level deadlock|^Full thread dump `)
)

// DetectKind returns the kinds of dump in holds (both for a file with a Go
// and a JVM dump), or 0 for none: binary data, JSON, text without a dump.
func DetectKind(in []byte) Kind {
	if bytes.IndexByte(in, 0) >= 0 {
		return 0
	}
	if t := bytes.TrimLeft(in, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return 0
	}
	var k Kind
	if goHeader.Match(in) {
		k |= Go
	}
	if jvmHeader.Match(in) {
		k |= JVM
	}
	return k
}
