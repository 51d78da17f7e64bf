package dedupe

import (
	"fmt"
	"path"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// Place is where the routines of one stack are, named by the one rule
// every table of stackdump uses for a group (analyze, the report,
// capture's summary, watch, diff, the metrics): the code of the program
// or of its libraries, with the platform's primitive it waits in as
// detail. See [PlaceOf].
type Place struct {
	// Frame names the place; nil for an empty stack.
	Frame *stack.Frame
	// Wait is the call Frame made into the runtime or the standard
	// library that the routines are in: the waiting primitive
	// ("sync.(*Mutex).Lock", "net.(*conn).Read",
	// "java.util.concurrent.LinkedBlockingQueue.take"), kept as detail;
	// nil when the frame just inside Frame is the runtime's (the state
	// names that wait: "chan receive", "select") or Frame is the
	// innermost frame.
	Wait *stack.Frame
}

// PlaceOf names where a routine of stack s is:
//
//  1. the innermost frame of the program's own code or of its libraries:
//     a frame that is neither the runtime's nor the standard library's
//     (Go: an import path whose first element has a dot, or main, or a
//     module path that is no standard library root; JVM: a class outside
//     java.*, javax.*, jdk.*, sun.* and com.sun.*) — so that a goroutine
//     waiting in internal/sync.runtime_SemacquireMutex under
//     sync.(*Mutex).Lock is named by the function that called Lock, and a
//     thread in jdk.internal.misc.Unsafe.park by the code that parked it;
//  2. when every frame is the platform's (net/http's connections, the
//     JVM's Reference Handler), the innermost frame past the runtime and
//     the waiting primitives of the standard library (packages internal/*,
//     sync, time, net, os, os/signal, syscall, io, bufio; the JDK's
//     jdk.internal.*, sun.misc.*, sun.nio.ch.*,
//     java.util.concurrent.locks.*, Object.wait, Thread.sleep and
//     Thread.join, VirtualThread, ForkJoinPool.managedBlock);
//  3. when the stack has nothing but those, its outermost frame that is
//     not runtime.goexit (the goroutine's own function: runtime.bgsweep,
//     runtime.gcBgMarkWorker).
//
// The rule reads package paths and class names of the platform only,
// never a project's function names. Wait is the frame just inside Frame
// when that frame is the standard library's (not the runtime's, whose
// waits the state names).
func PlaceOf(s *stack.Stack) Place {
	if s == nil || len(s.Frames) == 0 {
		return Place{}
	}
	frames := s.Frames
	at := -1
	for i, f := range frames {
		if !isPlatform(f) {
			at = i
			break
		}
	}
	if at < 0 {
		for i, f := range frames {
			if !isRuntimeFrame(f) && !isWaitPrimitive(f) {
				at = i
				break
			}
		}
	}
	if at < 0 {
		at = len(frames) - 1
		for at > 0 && frames[at].Func == "runtime.goexit" {
			at--
		}
	}
	p := Place{Frame: frames[at]}
	if at > 0 && isPlatform(frames[at-1]) && !isRuntimeFrame(frames[at-1]) {
		p.Wait = frames[at-1]
	}
	return p
}

// NameFrame is PlaceOf(s).Frame: the frame that names a routine of
// stack s; nil for an empty or nil stack.
func NameFrame(s *stack.Stack) *stack.Frame { return PlaceOf(s).Frame }

// GroupPlace is the place of a group: that of its sample's stack.
func GroupPlace(g *stack.Group) Place {
	if g == nil || g.Sample == nil {
		return Place{}
	}
	return PlaceOf(g.Sample.Stack)
}

// GroupName names a group for a table: its place as "func (file.go:line)"
// (see [PlaceOf]); "(stack unavailable)" or "(no frames)" for a sample
// without frames, "-" for a group without a sample.
func GroupName(g *stack.Group) string {
	if g == nil || g.Sample == nil {
		return "-"
	}
	f := PlaceOf(g.Sample.Stack).Frame
	if f == nil {
		if g.Sample.Unavailable {
			return "(stack unavailable)"
		}
		return "(no frames)"
	}
	return FrameText(f)
}

// FrameText is "func (file.go:line)", the function alone when the file is
// unknown.
func FrameText(f *stack.Frame) string {
	if f == nil {
		return "-"
	}
	if f.File == "" {
		return f.Func
	}
	return fmt.Sprintf("%s (%s:%d)", f.Func, path.Base(strings.ReplaceAll(f.File, `\`, "/")), f.Line)
}

// String is "func (file.go:line) in primitive", or the frame alone when
// the place has no primitive under it.
func (p Place) String() string {
	if p.Frame == nil {
		return "(no frames)"
	}
	if p.Wait == nil {
		return FrameText(p.Frame)
	}
	return FrameText(p.Frame) + " in " + p.Wait.Func
}

// IsPlatform reports whether f is the platform's rather than the
// program's: the runtime's, or the standard library's (Go packages whose
// import path starts with a standard library root such as net, sync or
// internal; the JDK's java.*, javax.*, jdk.*, sun.* and com.sun.*
// classes). A Go package without a dot in its path that is no standard
// library root ("myapp/server" of a module named myapp) is the program's.
func IsPlatform(f *stack.Frame) bool { return isPlatform(f) }

func isPlatform(f *stack.Frame) bool {
	if isRuntimeFrame(f) {
		return true
	}
	if !f.IsStdlib() {
		return false
	}
	for _, p := range jvmPlatform {
		if strings.HasPrefix(f.Func, p) {
			return true
		}
	}
	root, _, _ := strings.Cut(f.Package(), "/")
	return goStdRoots[root]
}

var jvmPlatform = [...]string{"java.", "javax.", "jdk.", "sun.", "com.sun."}

// goStdRoots are the first elements of the Go standard library's import
// paths ($GOROOT/src), vendor included.
var goStdRoots = map[string]bool{
	"archive": true, "arena": true, "bufio": true, "builtin": true, "bytes": true,
	"cmp": true, "compress": true, "container": true, "context": true, "crypto": true,
	"database": true, "debug": true, "embed": true, "encoding": true, "errors": true,
	"expvar": true, "flag": true, "fmt": true, "go": true, "hash": true, "html": true,
	"image": true, "index": true, "internal": true, "io": true, "iter": true, "log": true,
	"maps": true, "math": true, "mime": true, "net": true, "os": true, "path": true,
	"plugin": true, "reflect": true, "regexp": true, "runtime": true, "simd": true,
	"slices": true, "sort": true, "strconv": true, "strings": true, "structs": true,
	"sync": true, "syscall": true, "testing": true, "text": true, "time": true,
	"unicode": true, "unique": true, "unsafe": true, "vendor": true, "weak": true,
}

// goWaitPackages are the standard library packages whose frames are a
// wait's plumbing: the lock, the poller, the timer, the read.
var goWaitPackages = map[string]bool{
	"sync": true, "sync/atomic": true, "time": true, "net": true, "os": true,
	"os/signal": true, "syscall": true, "io": true, "bufio": true,
}

// jvmWaitPrefixes are the JDK's waiting primitives, by class or method.
var jvmWaitPrefixes = [...]string{
	"jdk.internal.", "sun.misc.", "sun.nio.ch.", "java.util.concurrent.locks.",
	"java.lang.Object.wait", "java.lang.Thread.sleep", "java.lang.Thread.join",
	"java.lang.VirtualThread.", "java.util.concurrent.ForkJoinPool.managedBlock",
	"java.util.concurrent.ForkJoinPool.unmanagedBlock",
}

// isWaitPrimitive reports whether f is a waiting primitive of the
// standard library (see PlaceOf).
func isWaitPrimitive(f *stack.Frame) bool {
	if !isPlatform(f) {
		return false
	}
	for _, p := range jvmWaitPrefixes {
		if strings.HasPrefix(f.Func, p) {
			return true
		}
	}
	for _, p := range jvmPlatform {
		if strings.HasPrefix(f.Func, p) {
			return false
		}
	}
	pkg := f.Package()
	return strings.HasPrefix(pkg, "internal/") || goWaitPackages[pkg]
}
