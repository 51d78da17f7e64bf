// Package remote captures dumps from other processes: Go services through
// net/http/pprof's /debug/pprof/goroutine or stackdump's own endpoint, gops
// agents, JVMs through jcmd or jstack, and Go processes on this machine
// read from their memory (pid:PID, package goproc: no endpoint, no signal,
// stopped at most Options.MaxPause; pid.go). It is what `stackdump
// capture` and `stackdump watch` run, for programs that capture on their
// own.
//
// [ParseTarget] reads a target as a person writes it (`localhost:6060`,
// `http://host:port/debug/pprof/goroutine?token=…`, `gops://host:port`,
// `jvm:PID`, `pid:PID`), and a [Mode] says what to fetch (full, grouped, trace, leak
// or debug=1 counts; docs/modes.md). [OpenDocument] captures one target
// as one dump, read as a formats.Reader is:
//
//	t, err := remote.ParseTarget("localhost:6060", "")
//	if err != nil {
//		return err
//	}
//	doc, err := remote.OpenDocument(ctx, t, remote.Options{Mode: remote.ModeFull}, formats.ReadOptions{})
//	if err != nil {
//		return err // in words: the address, what was tried, what to do
//	}
//	_, err = formats.Copy(enc, doc, nil) // or doc.Next, then doc.Routines
//	if cerr := doc.Close(); err == nil {
//		err = cerr // a body past Options.MaxBytes, say
//	}
//	return err
//
// A capture is a stream: [Open] returns the response body as an io.Reader
// that the formats reader consumes while it arrives, with a read-ahead pump
// so that a high-latency link costs about one round trip rather than one per
// read. Nothing holds a whole dump in memory, except debug=2 from
// net/http/pprof, which the runtime caps at 64 MiB.
//
// [OpenDocument] reads a capture as one dump (Next, then Routines, as a
// formats.Reader) and makes a full capture of a net/http/pprof target
// complete: past the runtime's 64 MiB cut of debug=2, every goroutine
// comes from an execution-trace snapshot with debug=1's labels joined
// (document.go). stackdump's capture and watch commands read targets
// through it.
//
// A full capture can be held to a pause budget (Options.MaxPause,
// budget.go): the goroutines are counted first and the traceback, whose
// stop-the-world pause grows with them, is taken only when its predicted
// pause fits; otherwise the trace snapshot, or the counts. Options.Timeout
// bounds the whole capture of a target, retries included, and its
// requests share one connection. Failures are told in words
// (failures.go): the address, what was tried, what to do, naming the
// option that helps (Options.Timeout), never a command-line flag; a
// caller recognises them with errors.Is (ErrTimeout, ErrTooLarge,
// ErrNoTrace, ErrPauseBudget, ErrModeNotServed, ErrNoLeakProfile, …).
//
// A jvm:PID target is first proven a HotSpot JVM process (not a thread)
// the current user can attach to (jvmcheck.go): an attach signals the
// process, and the signal kills most other programs. On Linux stackdump
// then starts the JVM's attach listener itself with at most one SIGQUIT,
// and runs jcmd or jstack only while its socket exists, so that they send
// none (jvmcheck_attach.go).
package remote
