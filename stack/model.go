package stack

import (
	"sort"
	"strings"
	"time"
)

// Kind names the encoding a dump was read from.
type Kind string

// The kinds of dump stackdump reads and writes.
const (
	KindGoTraceback Kind = "go-traceback" // runtime.Stack, debug=2, panic and fatal output
	KindGoDebug1    Kind = "go-debug1"    // /debug/pprof/goroutine?debug=1
	KindGoPprof     Kind = "go-pprof"     // /debug/pprof/goroutine?debug=0 (protobuf)
	KindGoTrace     Kind = "go-trace"     // a runtime/trace execution trace snapshot
	KindJSON        Kind = "stackdump-json"
	KindJVMText     Kind = "jvm-text" // jstack, jcmd Thread.print, kill -3, Thread.dump_to_file plain
	KindJVMJSON     Kind = "jvm-json" // jcmd Thread.dump_to_file -format=json
)

// Source says where a dump came from.
type Source struct {
	Kind       Kind      // encoding it was read from
	Runtime    string    // "go1.26.8", "OpenJDK 64-Bit Server VM (17.0.15+6)"; empty when unknown
	Target     string    // URL, pid or file name it was captured from; empty when unknown
	CapturedAt time.Time // zero when unknown
	// Capture describes how a live capture was taken (mode, its cost); nil for files.
	Capture *Capture
}

// Capture records what a live capture cost the target process.
type Capture struct {
	Mode       string        // "full", "grouped", "trace", "debug2", ...
	Goroutines int           // runtime.NumGoroutine() at capture time
	Duration   time.Duration // wall time of the capture
	// Pause is the stop-the-world time the capture cost, from runtime/metrics
	// /sched/pauses/total/other:seconds; Pauses counts the pauses.
	Pause  time.Duration
	Pauses int
	// PausePredicted is the longest stop-the-world pause a capture from
	// another process was predicted to cost the target before it was
	// taken: a traceback's from the goroutine count and the cost per
	// goroutine, the other methods' a constant (docs/modes.md). 0: none.
	PausePredicted time.Duration
	// PauseObserved is an upper bound of a remote traceback's pause, seen
	// from outside: how long the target took to answer its debug=2 request
	// (the runtime takes the whole traceback before it sends a byte). 0:
	// not observed.
	PauseObserved time.Duration
	// Missing names fields this mode cannot provide ("wait_minutes", "args", ...),
	// so that consumers never mistake an absent value for zero.
	Missing []string
	// Methods lists, in order, what was fetched from another process to
	// make this one document ("debug1", "debug2", "trace", "debug0"); each
	// method's pause is in docs/modes.md. Empty for in-process captures.
	Methods []string
	// Joined says what was joined into the routines from another method
	// than the one they were read from, as "FIELD from METHOD" ("labels
	// from debug1").
	Joined []string
}

// Dump is one goroutine or thread dump: its metadata and its routines.
//
// A streaming reader ([DumpSource]) fills Routines only when asked to
// ([ReadAll]); while streaming, routines are yielded one at a time and
// Dump holds the metadata.
// Truncated, Warnings, Races, SystemStack and ThreadBlocks are final once
// the dump's routines were all read.
type Dump struct {
	Source Source
	// Preamble holds the lines that explain the dump: panic values (with
	// [recovered] chains), "fatal error: …", signal lines, "SIGQUIT: quit",
	// runtime diagnostics. Verbatim, in order, without the line terminator.
	Preamble []string
	// Truncated is set when the dump ends mid-routine or is exactly 64 MiB
	// (the runtime's silent debug=2 cap).
	Truncated bool
	// Warnings are recoverable problems met while reading, with line numbers.
	Warnings []*ParseError
	// Routines is filled by ReadAll and by producers that build dumps in memory.
	Routines []*Routine
	// Total is the number of goroutines or threads the dump stands for: the
	// sum of Routine.Count. Readers keep it current.
	Total int64
	// Races are the data race reports (`WARNING: DATA RACE`) read with the
	// dump, in input order. Their accesses are not goroutines: they are
	// neither Routines nor counted in Total.
	Races []*Race
	// SystemStack is the runtime's system stack a throw prints under
	// `runtime stack:` (a fatal error's M, not a goroutine); nil when none.
	SystemStack *SystemStack
	// ThreadBlocks counts the blocks of a dump the runtime printed once per
	// OS thread (GOTRACEBACK=crash or system on a signal: "SIGQUIT: quit",
	// the thread's goroutines, "-----", the next thread), read as one dump
	// of the process; 0 for other dumps.
	ThreadBlocks int
}

// Routine is one goroutine or thread, or, for grouped inputs (debug=1,
// pprof), one record standing for Count identical goroutines.
type Routine struct {
	// ID is the goroutine id (`goroutine 17`) or the JVM thread id (`#17`);
	// 0 when the input carries none (debug=1, pprof).
	ID int64
	// Count is how many routines this record stands for: 1 for debug=2 text
	// and thread dumps, N for a debug=1 `N @ …` record or a pprof sample.
	Count int64
	// Name is a thread's name; empty for goroutines.
	Name string
	// State is the status or wait reason exactly as the runtime wrote it
	// (g.atomicstatus or g.waitreason: "chan receive", "IO wait",
	// "running"), with the suffixes below removed. For JVM threads it is the
	// Thread.State ("WAITING (parking)").
	State string
	// WaitMinutes is how long the goroutine has been blocked, rounded down,
	// from g.waitsince; 0 when the header has none. The runtime stamps
	// waitsince at the first GC that sees the goroutine blocked, so it can
	// over-estimate by up to one GC interval.
	WaitMinutes int
	// Locked is set for `locked to thread` (g.lockedm != 0).
	Locked bool
	// Leaked is set for `(leaked)` (Go 1.26 goroutine leak profile).
	Leaked bool
	// Durable is set for `(durable)` (Go 1.25 synctest).
	Durable bool
	// Scan is set for `(scan)`: the stack was being scanned by the GC.
	Scan bool
	// Bubble is the synctest bubble id (`synctest bubble N`), 0 when none.
	Bubble int64
	// Labels are pprof labels, sorted by key; nil when none.
	Labels Labels
	// GP, M and MP are the `gp=0x… m=N mp=0x…` header values (Go 1.22+ at
	// GOTRACEBACK=system and on throws); M is -1 for `m=nil`. HasGP says
	// whether the header carried them.
	GP, MP uint64
	M      int64
	HasGP  bool
	// ParentID is the creating goroutine (`created by F in goroutine N`), 0 when unknown.
	ParentID int64
	// CreatedBy is the go statement that started the goroutine; nil when none.
	CreatedBy *Frame
	// Stack is the interned call stack, innermost frame first. Never nil:
	// an empty stack has no frames.
	Stack *Stack
	// Values holds per-frame values that differ between goroutines sharing a
	// stack (arguments, fp/sp/pc); nil when no frame has any.
	Values *FrameValues
	// CreatedByValues holds the creator frame's fp/sp/pc when present.
	CreatedByValues *FrameValue
	// Unavailable is set for `goroutine running on other thread; stack unavailable`.
	Unavailable bool
	// Ancestors are the `[originating from goroutine N]:` sections
	// (GODEBUG=tracebackancestors), nearest first.
	Ancestors []Ancestor
	// Inferred names fields that were inferred rather than read (trace mode:
	// "state"); Stale is set when the stack may be out of date (trace mode
	// goroutines that ran during the window).
	Inferred []string
	Stale    bool
	// Thread carries JVM thread details; nil for goroutines.
	Thread *Thread
	// Line is the 1-based input line of the routine's header; 0 when not
	// read from text, or from text the caller never sees (the traceback an
	// in-process capture reads and drops).
	Line int
}

// Goroutines returns how many goroutines r stands for: Count, or 1 when a
// record built by hand left Count at zero.
func (r *Routine) Goroutines() int64 {
	if r.Count <= 0 {
		return 1
	}
	return r.Count
}

// Frames returns the routine's frames, innermost first.
func (r *Routine) Frames() []*Frame {
	if r.Stack == nil {
		return nil
	}
	return r.Stack.Frames
}

// Arg returns the argument text of frame i as written, or "".
func (r *Routine) Arg(i int) string {
	if r.Values == nil || i >= len(r.Values.Frames) {
		return ""
	}
	return r.Values.Frames[i].Args
}

// Clone returns a copy of r that shares only what the Table interned
// (stacks, frames, label sets, names and states) and copies the rest:
// Values and their Args, CreatedByValues, Ancestors, Inferred and
// Thread. Use it to keep a routine read with ReadOptions.ReuseRoutines.
func (r *Routine) Clone() *Routine {
	c := *r
	c.Values = r.Values.Clone()
	if r.CreatedByValues != nil {
		v := *r.CreatedByValues
		v.Locks = cloneLocks(v.Locks)
		c.CreatedByValues = &v
	}
	if r.Ancestors != nil {
		c.Ancestors = make([]Ancestor, len(r.Ancestors))
		for i, a := range r.Ancestors {
			a.Values = a.Values.Clone()
			c.Ancestors[i] = a
		}
	}
	if r.Inferred != nil {
		c.Inferred = append([]string(nil), r.Inferred...)
	}
	if r.Thread != nil {
		th := *r.Thread
		th.Synchronizers = cloneLocks(th.Synchronizers)
		c.Thread = &th
	}
	return &c
}

// Clone deep-copies v; the arguments of every frame share one new string.
func (v *FrameValues) Clone() *FrameValues {
	if v == nil {
		return nil
	}
	size := 0
	for i := range v.Frames {
		size += len(v.Frames[i].Args)
	}
	var b strings.Builder
	b.Grow(size)
	for i := range v.Frames {
		b.WriteString(v.Frames[i].Args)
	}
	all := b.String()
	c := &FrameValues{Frames: make([]FrameValue, len(v.Frames))}
	for i, f := range v.Frames {
		f.Args, all = all[:len(f.Args)], all[len(f.Args):]
		f.Locks = cloneLocks(f.Locks)
		c.Frames[i] = f
	}
	return c
}

func cloneLocks(ls []Lock) []Lock {
	if ls == nil {
		return nil
	}
	return append([]Lock(nil), ls...)
}

// Ancestor is one `[originating from goroutine N]:` section.
type Ancestor struct {
	ID        int64
	Stack     *Stack
	CreatedBy *Frame
	Values    *FrameValues
}

// Label is one pprof label.
type Label struct{ Key, Value string }

// Labels is a label set sorted by key.
type Labels []Label

// Sort sorts ls by key, then value. It sorts through sort.Slice rather
// than a generic sort: every program that links the model would otherwise
// carry a sort of its own for label sets.
func (ls Labels) Sort() {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Key != ls[j].Key {
			return ls[i].Key < ls[j].Key
		}
		return ls[i].Value < ls[j].Value
	})
}

// Get returns the value of key and whether it is set.
func (ls Labels) Get(key string) (string, bool) {
	for _, l := range ls {
		if l.Key == key {
			return l.Value, true
		}
	}
	return "", false
}

// Stack is an interned sequence of frames, innermost first. Stacks are
// shared by every routine with the same frames; compare them by pointer
// within one [Table].
type Stack struct {
	// ID is the stack's index in its Table, starting at 1.
	ID     int
	Frames []*Frame
	// Elided is set when the runtime left frames out. ElidedCount is N from
	// `...N frames elided...` (Go 1.21+); 0 for `...additional frames
	// elided...` whose count is unknown. ElidedAt is the index in Frames
	// where the marker stood.
	Elided      bool
	ElidedCount int
	ElidedAt    int
}

// Frame is one interned call site. Everything that varies between
// goroutines at the same site (arguments, fp/sp/pc) is in [FrameValue].
type Frame struct {
	// Func is the function as printed: "main.(*T).Method", "net/http.(*conn).serve",
	// "main.Generic[...]", "java.lang.Thread.run".
	Func string
	File string // "/src/x.go", "C:/a/b.go", "<autogenerated>", "Thread.java"; "" when unknown
	Line int
	// Offset is the `+0x…` pc offset from the function entry; HasOffset says
	// whether the line carried one (inlined frames do not).
	Offset    uint64
	HasOffset bool
	// Inlined is set for `(...)`: the call was inlined and its args are not printed.
	Inlined bool
	// Module is a JVM frame's module ("java.base@17.0.15"); empty for Go.
	Module string
	// Native marks a JVM `(Native Method)` frame or a cgo frame without Go symbols.
	Native bool

	id int32 // index in its Table plus one; 0 in lookup keys
}

// FrameValues holds the per-goroutine values of every frame of a stack, in
// the same order as Stack.Frames. Interned like stacks.
type FrameValues struct {
	Frames []FrameValue
}

// FrameValue is what a goroutine adds to a shared frame.
type FrameValue struct {
	// Args are the arguments as written between the parentheses, without
	// them: "0xc000010000, {0x0?, 0x1}, ...". "" for `()` and `(...)`.
	Args string
	// FP, SP and PC are the `fp= sp= pc=` annotations; 0 when absent.
	FP, SP, PC uint64
	// Locks are the JVM lock lines printed under this frame.
	Locks []Lock
}

// Package returns the import path of the frame's function: "net/http" for
// "net/http.(*conn).serve", "" when there is none.
func (f *Frame) Package() string {
	pkg, _, _ := splitFunc(f.Func)
	return pkg
}

// Receiver returns the method receiver without parentheses and star
// ("*conn" for "net/http.(*conn).serve", "W" for "main.W.M"), or "".
func (f *Frame) Receiver() string {
	_, recv, _ := splitFunc(f.Func)
	return recv
}

// Name returns the function or method name without package and receiver:
// "serve" for "net/http.(*conn).serve", "func1" for "main.main.func1".
func (f *Frame) Name() string {
	_, _, name := splitFunc(f.Func)
	return name
}

// IsRuntime reports whether the frame belongs to the Go runtime
// ("runtime.gopark", "internal/runtime/…", "runtime/internal/…") or to the
// JVM's internals ("jdk.internal.misc.Unsafe.park"). Such a frame is also
// IsStdlib.
func (f *Frame) IsRuntime() bool {
	fn := f.Func
	return strings.HasPrefix(fn, "runtime.") ||
		strings.HasPrefix(fn, "internal/runtime/") ||
		strings.HasPrefix(fn, "runtime/internal/") ||
		strings.HasPrefix(fn, "jdk.internal.")
}

// IsStdlib reports whether the frame belongs to the standard library of
// its platform rather than to the application:
//
//   - Go: its package's import path has no dot in its first element
//     ("net/http", "fmt", "internal/poll",
//     "vendor/golang.org/x/net/http2/hpack"), and is not main — whatever
//     its file path, so that a -trimpath binary's "net/http/server.go"
//     reads as "/usr/local/go/src/net/http/server.go" does. The runtime
//     is part of it: IsRuntime implies IsStdlib.
//   - JVM: a class of the JDK, whose name starts with "java.", "javax.",
//     "jdk.", "sun." or "com.sun." (jdk.internal. frames are IsRuntime
//     too).
//
// A frame is read as a JVM frame when it names a module, is a native
// method, its function holds '$' or '<' (no Go name does), or its file is
// a bare name that is not Go source ("Thread.java"): application classes
// such as "org.apache.catalina…" or "io.netty…" are then not taken for Go
// packages without a dot. A frame with no file, module or native mark is
// read as Go.
func (f *Frame) IsStdlib() bool {
	if f.IsRuntime() {
		return true
	}
	if f.isJVM() {
		for _, p := range [...]string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
			if strings.HasPrefix(f.Func, p) {
				return true
			}
		}
		return false
	}
	pkg := f.Package()
	if pkg == "" || pkg == "main" {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// isJVM reports whether f reads as a JVM frame (see IsStdlib).
func (f *Frame) isJVM() bool {
	if f.Module != "" || strings.ContainsAny(f.Func, "$<") {
		return true
	}
	if f.File == "" {
		return f.Native
	}
	return !isGoSourcePath(f.File)
}

// isGoSourcePath reports whether file is a path a Go traceback prints:
// one with a directory, Go, assembly or C source, or "<autogenerated>".
func isGoSourcePath(file string) bool {
	if file == "<autogenerated>" || file == "?" || strings.ContainsAny(file, `/\`) {
		return true
	}
	for _, ext := range [...]string{".go", ".s", ".c", ".h"} {
		if strings.HasSuffix(file, ext) {
			return true
		}
	}
	return false
}

// splitFunc splits a Go function name into package path, receiver and name.
// The package ends at the first '.' after the last '/'; generic brackets and
// closures are kept in the name.
func splitFunc(fn string) (pkg, recv, name string) {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return "", "", fn
	}
	pkg, rest := fn[:slash+1+dot], fn[slash+1+dot+1:]
	if strings.HasPrefix(rest, "(") {
		if end := strings.Index(rest, ")."); end > 0 {
			return pkg, strings.TrimPrefix(rest[1:end], "*"), rest[end+2:]
		}
	}
	// "main.W.M": an upper-case segment followed by another one is a value
	// receiver; "main.main.func1" is a closure, not a method.
	if i := strings.IndexByte(rest, '.'); i > 0 && !strings.HasPrefix(rest[i+1:], "func") && !strings.HasPrefix(rest, "init.") && !strings.HasPrefix(rest, "glob.") {
		head := rest[:i]
		if b := strings.IndexByte(head, '['); b < 0 && head != "" && head[0] >= 'A' && head[0] <= 'Z' {
			return pkg, head, rest[i+1:]
		}
	}
	return pkg, "", rest
}

// Thread carries what a JVM thread dump says about a thread.
type Thread struct {
	OSID     int64 // nid (hex or decimal) or [osId]; 0 when unknown
	Daemon   bool
	Priority int // prio=; 0 when absent
	OSPrio   int
	CPU      time.Duration // cpu=…ms; 0 when absent
	Elapsed  time.Duration // elapsed=…s
	Virtual  bool          // a virtual thread
	Carrier  int64         // carrier thread id of a mounted virtual thread
	// Container is the thread container of a Thread.dump_to_file dump
	// ("<root>", "java.util.concurrent.ThreadPerTaskExecutor@…").
	Container string
	// Native is set for threads without a Java stack (GC, VM Thread, compiler).
	Native bool
	// Detail is the rest of the header line stackdump did not model
	// (tid=, address ranges), kept verbatim.
	Detail string
	// Synchronizers lists `Locked ownable synchronizers`.
	Synchronizers []Lock
}

// LockKind says how a routine relates to a lock.
type LockKind string

// Lock relations, as printed by jstack.
const (
	LockHeld       LockKind = "locked"              // - locked <0x…> (a java.lang.Object)
	LockWaitEnter  LockKind = "waiting to lock"     // blocked entering a monitor
	LockWaitOn     LockKind = "waiting on"          // Object.wait
	LockParked     LockKind = "parking to wait for" // LockSupport.park
	LockOwnable    LockKind = "ownable"             // Locked ownable synchronizers
	LockEliminated LockKind = "eliminated"          // - eliminated <owner is scalar replaced>
)

// Lock is a lock line of a JVM thread dump.
type Lock struct {
	Kind  LockKind
	Addr  string // "0x000000076ab62208"; JSON dumps may give none
	Class string // "java.lang.Object"
}

// Group is a set of routines that share a stack, as built by package dedupe.
type Group struct {
	// Key identifies the group at its similarity level; stable across dumps.
	Key   string
	Count int64
	// IDs are the members' ids, sorted; at most the dedupe cap, with
	// MoreIDs counting the rest.
	IDs     []int64
	MoreIDs int64
	// States counts members per state.
	States map[string]int64
	// WaitMin and WaitMax are the members' wait minutes range.
	WaitMin, WaitMax int
	Locked           int64
	// Leaked counts members the runtime proved leaked (`(leaked)` states,
	// from the Go 1.27+ goroutine leak profile).
	Leaked int64
	// Labels counts members per label set.
	Labels []LabelCount
	// ParentIDs are distinct creators' ids (capped like IDs).
	ParentIDs []int64
	// Sample is a representative member: its stack, creator and values.
	Sample *Routine
}

// LabelCount is a label set and how many group members carry it.
type LabelCount struct {
	Labels Labels
	Count  int64
}
