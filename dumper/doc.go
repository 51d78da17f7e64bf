// Package dumper captures goroutine dumps inside a running Go process,
// serves them over HTTP and writes them to files atomically.
//
// # Capture
//
// [Capture] returns a [stack.Dump] of the calling process in one of three
// modes (docs/capture.md has what each costs, measured):
//
//   - [ModeFull]: every goroutine with id, state, wait time, arguments,
//     creator and labels, from a stop-the-world runtime.Stack pass into a
//     presized buffer. One pass normally suffices; when the goroutines
//     outgrew the estimate a retry is sized from what the failed pass
//     printed, at most four passes in all, and a dump cut then is marked
//     Truncated. /debug/pprof/goroutine?debug=2 instead doubles a 1 MiB
//     buffer, one pass per doubling, and cuts silently at 64 MiB.
//   - [ModeGrouped]: counts per distinct stack and label set from the
//     runtime's concurrent goroutine profile; pauses of microseconds.
//   - [ModeTrace]: every goroutine from a short runtime/trace window,
//     without a long pause.
//
// The dump's Source.Capture records the mode and what the capture cost:
// wall time and the stop-the-world pauses seen by runtime/metrics.
//
// # Serving
//
// [Handler] is an http.Handler to mount where you choose:
//
//	mux.Handle("GET /debug/stackdump", dumper.Handler(dumper.HandlerOptions{
//		Authorize: isAdmin,
//	}))
//
// It serves text, JSON, debug=1, pprof or folded output, optionally
// deduplicated and compressed (gzip, zstd), one dump at a time, with write
// deadlines so that a stalled client cannot hold the process's memory.
// [GoroutineHandler] is a drop-in for net/http/pprof's goroutine handler.
// Nothing is registered on import; [Register] mounts both at their usual
// paths, with method patterns that live beside net/http/pprof's.
//
// # Files
//
// [WriteFile] captures into a file atomically (temporary file, fsync,
// rename); [OnSignal] writes one on each signal, keeping the newest few.
// [CreateAtomic] is the output file underneath both: a regular file (or a
// new path) is replaced atomically keeping its mode, a symbolic link is
// followed and stays a link, and a device, FIFO or socket is written in
// place (so a dump to /dev/null or a FIFO does what it says).
package dumper
