package jvm

import (
	"bytes"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// This file parses the frame and lock lines shared by every JVM dump form.
//
// A HotSpot frame puts the module inside the parentheses:
//
//	at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
//	at Samp$$Lambda$1/0x00007f6ce8000a08.run(Unknown Source)
//	at java.lang.invoke.LambdaForm$DMH/0x0000380001228000.invokeVirtual(java.base@25/LambdaForm$DMH)
//
// Thread.dump_to_file and JSON dumps print StackTraceElement.toString(),
// which puts the class loader and module before the class:
//
//	java.base/java.lang.Thread.run(Thread.java:1447)
//	app//com.example.Main.main(Main.java:10)
//
// Both give Frame{Func: "java.lang.Thread.run", Module: "java.base", File:
// "Thread.java", Line: 1447}; "(Native Method)" sets Native and "(Unknown
// Source)" leaves File empty.

// parseJVMFrame parses the text of a frame after "at " (or a bare
// StackTraceElement). ok is false when the text is not a frame.
func parseJVMFrame(text []byte) (f stack.Frame, ok bool) {
	text = bytes.TrimRight(text, " \t\r")
	if len(text) < 3 || text[len(text)-1] != ')' {
		return f, false
	}
	open := bytes.LastIndexByte(text, '(')
	if open <= 0 {
		return f, false
	}
	fn, inside := text[:open], text[open+1:len(text)-1]
	// StackTraceElement prefix "loader/module@version/".
	if i := jvmModuleSplit(fn); i >= 0 {
		f.Module = string(fn[:i])
		fn = fn[i+1:]
	}
	if len(fn) == 0 {
		return f, false
	}
	f.Func = string(fn)
	// HotSpot prefix inside the parentheses: "java.base@17.0.15/File.java:12".
	if i := bytes.LastIndexByte(inside, '/'); i >= 0 {
		if f.Module == "" {
			f.Module = string(inside[:i])
		}
		inside = inside[i+1:]
	}
	switch string(inside) {
	case "Native Method":
		f.Native = true
		return f, true
	case "Unknown Source":
		return f, true
	}
	if i := bytes.LastIndexByte(inside, ':'); i > 0 {
		if n, ok := jvmAtoi(inside[i+1:]); ok {
			f.File, f.Line = string(inside[:i]), int(n)
			if f.File == "Unknown Source" {
				// How the writer keeps the line of a frame read without
				// its file (the serviceability agent's).
				f.File = ""
			}
			return f, true
		}
	}
	f.File = string(inside)
	return f, true
}

// jvmModuleSplit returns the index of the '/' that ends a
// StackTraceElement's "loader/module@version/" prefix, or -1. Hidden and
// lambda classes also contain '/' ("Foo$$Lambda/0x…", "Foo$$Lambda$1/123"),
// always followed by a digit, whereas a class name starts with a letter.
func jvmModuleSplit(fn []byte) int {
	for i := len(fn) - 1; i >= 0; i-- {
		if fn[i] != '/' {
			continue
		}
		if i+1 < len(fn) && fn[i+1] >= '0' && fn[i+1] <= '9' {
			continue
		}
		if bytes.ContainsAny(fn[:i], "$() \t") {
			return -1
		}
		return i
	}
	return -1
}

// jvmLockPrefixes are the lock line forms, longest first where they share
// a prefix.
var jvmLockPrefixes = []struct {
	text string
	kind stack.LockKind
}{
	{"locked ", stack.LockHeld},
	{"waiting to lock ", stack.LockWaitEnter},
	{"waiting to re-lock in wait() ", stack.LockWaitEnter},
	{"blocked on ", stack.LockWaitEnter}, // ThreadInfo.toString
	{"waiting on ", stack.LockWaitOn},
	{"parking to wait for ", stack.LockParked},
	{"eliminated ", stack.LockEliminated},
}

// parseJVMLock parses the text of a lock line after "- ":
//
//	locked <0x000000069e01ac20> (a java.lang.Object)
//	parking to wait for  <0x…> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)
//	waiting on <no object reference available>
//	waiting on the Class initialization monitor for com.example.Foo
//	eliminated <owner is scalar replaced> (a java.lang.Object)
//	locked <java.io.BufferedInputStream@6f477fe2>          (Thread.dump_to_file, JDK 25)
//	lock is eliminated                                     (Thread.dump_to_file, JDK 25)
//	locked java.io.BufferedInputStream@5284339c            (VisualVM, ThreadInfo)
//	<0x000000069e01ad98> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)  (ownable synchronizer)
//
// "waiting to re-lock in wait()" and ThreadInfo's "blocked on" are read as LockWaitEnter: the thread is
// blocked entering the monitor again. ok is false for "None" and for text
// that is not a lock line.
func parseJVMLock(text []byte) (l stack.Lock, ok bool) {
	text = bytes.TrimSpace(text)
	if string(text) == "None" || len(text) == 0 {
		return l, false
	}
	if string(text) == "lock is eliminated" {
		return stack.Lock{Kind: stack.LockEliminated}, true
	}
	l.Kind = stack.LockOwnable
	for _, p := range jvmLockPrefixes {
		if bytes.HasPrefix(text, []byte(p.text)) {
			l.Kind, text = p.kind, bytes.TrimLeft(text[len(p.text):], " ")
			break
		}
	}
	if l.Kind == stack.LockOwnable && text[0] != '<' {
		return l, false
	}
	l.Addr, l.Class = parseJVMObject(text)
	return l, true
}

// parseJVMObject splits the object of a lock line into address and class.
// An identity string "java.lang.Object@4554617c" gives Addr "@4554617c" and
// Class "java.lang.Object", so that Class+Addr is the identity string again.
func parseJVMObject(obj []byte) (addr, class string) {
	if rest, ok := bytes.CutPrefix(obj, []byte("the Class initialization monitor for ")); ok {
		return "", string(rest)
	}
	if len(obj) > 0 && obj[0] == '<' {
		end := bytes.IndexByte(obj, '>')
		if end < 0 {
			return jvmSplitIdentity(obj[1:])
		}
		if obj[len(obj)-1] == '>' || !bytes.Contains(obj[end:], []byte("(a ")) {
			// No "(a X)" after it (HotSpot's "<0x…> (a X)" ends with
			// ')'): the whole <…> is one object, which may itself hold
			// '>' (an identity string).
			end = bytes.LastIndexByte(obj, '>')
		}
		inside, rest := obj[1:end], bytes.TrimSpace(obj[end+1:])
		// "(a X)" normally follows at once; tolerate text spliced in between.
		if i := bytes.Index(rest, []byte("(a ")); i >= 0 {
			class = string(bytes.TrimSuffix(rest[i+3:], []byte(")")))
		}
		switch string(inside) {
		case "owner is scalar replaced", "no object reference available":
			return "", class
		}
		if class == "" && bytes.IndexByte(inside, '@') > 0 {
			return jvmSplitIdentity(inside)
		}
		return string(inside), class
	}
	return jvmSplitIdentity(obj)
}

// jvmSplitIdentity splits "java.lang.Object@4554617c" into "@4554617c" and
// "java.lang.Object"; text without '@' is all class.
func jvmSplitIdentity(s []byte) (addr, class string) {
	s = bytes.TrimSpace(s)
	if i := bytes.LastIndexByte(s, '@'); i > 0 {
		return string(s[i:]), string(s[:i])
	}
	return "", string(s)
}

// appendJVMLockObject writes a lock's object the way HotSpot prints it,
// or as Thread.dump_to_file does for identity strings.
func appendJVMLockObject(b []byte, l stack.Lock) []byte {
	switch {
	case strings.HasPrefix(l.Addr, "@"):
		b = append(b, '<')
		b = append(b, l.Class...)
		b = append(b, l.Addr...)
		return append(b, '>')
	case l.Addr == "" && l.Class == "":
		return append(b, "<no object reference available>"...)
	case l.Addr == "" && l.Kind == stack.LockWaitOn:
		b = append(b, "the Class initialization monitor for "...)
		return append(b, l.Class...)
	case l.Addr == "":
		b = append(b, "<owner is scalar replaced>"...)
	default:
		b = append(b, '<')
		b = append(b, l.Addr...)
		b = append(b, '>')
	}
	if l.Class != "" {
		b = append(b, " (a "...)
		b = append(b, l.Class...)
		b = append(b, ')')
	}
	return b
}

// jvmAtoi parses a non-negative decimal integer.
func jvmAtoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseJVMNid parses an OS thread id, hex with "0x" (JDK ≤ 17) or decimal.
func parseJVMNid(b []byte) (int64, bool) {
	if h, ok := bytes.CutPrefix(b, []byte("0x")); ok {
		if len(h) > 15 { // beyond int64
			return 0, false
		}
		n, ok := codec.ParseHexDigits(h)
		return int64(n), ok
	}
	return jvmAtoi(b)
}
