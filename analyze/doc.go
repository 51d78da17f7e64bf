// Package analyze finds what a dump says only across routines.
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
