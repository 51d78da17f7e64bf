// Package analyze says what is wrong in a dump: what crashed, where the
// goroutines wait, what leaks, who holds the lock everyone waits for, and,
// across snapshots of one process, what did not move. It is what
// `stackdump analyze` and `stackdump timeline` print, and what the HTML
// report shows (package report).
//
//	rd := formats.NewReader(f, formats.ReadOptions{})
//	s, _, err := analyze.SummarizeNext(rd, analyze.StreamOptions{Name: "goroutines.txt"})
//	if err != nil {
//		return err // io.EOF: no dump; else s, if not nil, is what was read
//	}
//	return analyze.WriteText(os.Stdout, s, analyze.TextOptions{})
//
// # Findings (finding*.go)
//
// A [Finding] is a verdict with its evidence: what is claimed (a kind and
// one sentence), about what (its [Subject]: how many routines, where,
// which lock), why (each piece of [Evidence]), how sure ([Confidence]),
// and, when one dump cannot settle it, what would ([Finding.WouldProve]:
// a second snapshot, the leak profile). Summaries ([Summary.Findings])
// and timelines ([TimelineReport.Findings]) make them; the text, the
// JSON, the HTML report and watch's metrics all show these, so that a
// verdict reads the same wherever it is shown. docs/verdicts.md states
// each kind's rule.
//
// # Summaries (summary*.go, leaks*.go, contention*.go, creators*.go, render*.go)
//
// [Summarize] turns one dump and its groups (package dedupe) into a
// [Summary]: what an on-call engineer wants on one screen. Its sections:
//
//   - what crashed, when the dump comes from a crash ([Crash]: a panic, a
//     fatal error, a deadlock, a go test timeout or a signal, with the
//     message as printed and the goroutine that crashed);
//   - totals by state, the largest groups and the longest waits;
//   - its findings ([Summary.Findings], above): deadlocks, goroutines the
//     runtime proved leaked (Go 1.27+), routines blocked on what nothing
//     in the dump can give them, likely leaks and leak suspects (groups
//     parked on channels with evidence they are not a pool; with
//     [Options.History], growth across dumps of one process), contention
//     and growth (growth.go: network and timer waiters grow only with
//     evidence that they stay, not with a server's load);
//   - Go locks by address ([GoLock], golocks.go): the goroutines waiting
//     on one sync.Mutex, sync.RWMutex or WaitGroup, read from the
//     traceback's arguments, with the probable holder and lock cycles;
//   - lock contention: goroutines waiting on a sync.Mutex, a sync.RWMutex,
//     a sync.Once, a file descriptor's lock or a runtime semaphore, by the
//     frame that waits;
//   - data races, identical reports folded ([RaceRows]);
//   - the creator tree: which go statements and which parent goroutines
//     started the goroutines that are alive;
//   - for JVM dumps, the deadlocks and top blockers of [Locks];
//   - truncation and parse warnings.
//
// [WriteText] renders a Summary for a terminal and [WriteJSON] as JSON
// ([JSONSchema]; docs/analyze.md has the schema). Summaries are built
// while a dump streams: [SummarizeNext] reads the next dump of a
// formats.Reader, and an [Analyzer] sees each routine once and keeps
// aggregates keyed by interned frames and stacks, so memory follows the
// number of distinct stacks, creators and parents (counted up to a bound),
// not the number of goroutines.
//
// # Timelines (timeline*.go)
//
// A [Timeline] follows snapshots of one process taken one after another —
// repeated debug=2 captures of a Go program, repeated `jcmd PID
// Thread.print` of a JVM — and says what did not move, and whether that
// is stuck or idle. A routine is unchanged when it kept the same state
// and stack, without progress, over the longest run of consecutive
// snapshots that ends at the last one (two snapshots at least). Progress
// is what a dump shows of work: for JVM threads, CPU time (cpu=…ms) that
// advanced by a millisecond or more (less is the JVM's bookkeeping, not
// progress) or an elapsed= that went back (another thread under the same
// ids); for goroutines, a running or runnable state (Go dumps carry no
// CPU time) or wait minutes that fell behind the wall clock (the goroutine
// woke up in between). Wait minutes that grow with the wall clock are
// progress of nothing.
//
// An unchanged routine is stuck when its wait shows it cannot progress,
// for at least TimelineOptions.MinStuck between the captures:
//
//   - it is in a deadlock: a cycle of the lock graph, or a deadlock the
//     JVM reported (always stuck, whatever its CPU time did);
//   - it waits to acquire a lock (a sync.Mutex or sync.RWMutex, a file
//     descriptor's lock; a JVM monitor it is BLOCKED on, a lock it is
//     parked acquiring): a lock that no one released for that long;
//   - it waits on a channel nothing in the dump can serve: at least
//     Options.LeakMinCount goroutines on one object no other goroutine
//     carries, or at least that many at one place each on a channel of
//     its own no other goroutine carries (objects.go);
//   - it is parked on a channel or in a select while the goroutines of
//     its stack grew across its run of three snapshots or more without
//     falling, by at least max(10, a quarter): more joined it, and what
//     they wait for did not come.
//
// Every other unchanged routine is idle, listed apart: goroutines waiting
// for the network, a timer, a select, a condition, a channel or a
// WaitGroup (by any number: idle streams, pool workers, accept loops,
// signal handlers); JVM threads waiting, sleeping, parked for a signal or
// RUNNABLE in native I/O. Unchanged routines that are the platform's own
// work — JVM threads without a Java stack (GC, compiler, VM Thread,
// Signal Dispatcher, Attach Listener), threads and goroutines whose every
// frame is the runtime's or the standard library's ([dedupe.AppFrame] is
// nil: Reference Handler, Finalizer, Common-Cleaner, net/http's idle
// connections) and idle pool workers parked in their pool's getTask — are
// housekeeping, listed apart too.
//
// A timeline also counts the ids that appeared and went away between
// snapshots, the size of each group of identical stacks over time (ranked
// by its peak; a group that grew across three snapshots or more is a
// growth finding, by the rule of growth.go), and, for JVM threads, the CPU time each thread used
// between snapshots, busiest first. [TimelineReport.Findings] are its
// verdicts: stuck rows, deadlocks of the last snapshot, growth.
//
// Snapshots are added one at a time ([Timeline.Add], or BeginSnapshot,
// AddRoutine and EndSnapshot while a dump streams) and nothing of a
// snapshot is kept but what describes the routines alive in the last one
// (a few words and an interned stack per routine), the top of the busiest
// threads that went away, and one count per group and kept snapshot: a
// long-running watcher can feed it forever with bounded memory.
//
// # JVM locks and deadlocks
//
// [Locks] rebuilds, from the lock lines of a JVM thread dump (jstack,
// jcmd Thread.print, kill -3, Thread.dump_to_file), who holds each monitor
// and java.util.concurrent synchronizer and who waits for it:
//
//   - `- locked <A>` under a frame, and an entry `- <A>` of "Locked ownable
//     synchronizers" (jstack -l), make the routine A's owner. A routine that
//     is in Object.wait() on A (`- waiting on <A>`), or waiting to re-enter
//     it, still shows `- locked <A>` lower in its stack, but it released the
//     monitor: it is not the owner.
//   - `- waiting to lock <A>` (BLOCKED entering a monitor, also "waiting to
//     re-lock in wait()") and `- parking to wait for <A>` (LockSupport.park
//     on a lock or condition) make the routine blocked on A.
//   - `- waiting on <A>` (Object.wait) makes the routine a waiter that
//     released A and waits for a notify: it blocks no one.
//   - Thread.dump_to_file JSON (JDK 25+) gives the same relations as
//     blockedOn, parkBlocker (with its owner) and waitingOn.
//
// Locks are identified by address (`0x…`) or, in dumps that print identity
// strings ("java.lang.Object@4554617c"), by class and identity hash.
//
// Each blocked routine waits for the one lock printed first (topmost) in
// its stack; the routine holding it is the next node of the wait-for graph.
// A cycle of that graph is a deadlock: [LockReport.Deadlocks] lists each
// cycle once, in wait order, starting with the routine that comes first in
// the dump.
//
// When a dump lists no ownable synchronizers (jstack without -l, kill -3)
// the owner of a ReentrantLock is not in the stacks. The JVM's own deadlock
// report ("Found one Java-level deadlock:", kept by the reader in
// Dump.Preamble) names the holder of each lock in a cycle, so Locks takes
// the owner from there when the stacks do not say; [Lock.OwnerFrom] tells
// which. [LockReport.Reported] is that report, parsed, so that callers can
// compare: on every dump of the test corpus the cycles found agree with
// "Found N deadlocks".
//
// [LockReport.Blockers] are the locks routines are blocked on, most
// blocked routines first, with their owners: a monitor with threads
// waiting to enter it, or a lock with a known owner and parked threads.
// Threads parked on a condition, a latch or a semaphore have no owner to
// blame; they are in [LockReport.Locks] but not among the blockers.
//
// While a dump streams, a [LockWatch] keeps only the threads with lock
// lines, so that Locks runs once the dump is read without holding the
// others (the Analyzer's JVM section and the HTML report use it).
package analyze
