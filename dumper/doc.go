// Package dumper captures goroutine dumps inside a running Go process,
// serves them over HTTP and writes them to files atomically.
//
// # Capture
//
// [Capture] returns a [stack.Dump] of the calling process in one of four
// modes (docs/modes.md says which to pick, docs/capture.md what each
// costs, measured):
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
//     without a long pause: one stop of tens of microseconds at any
//     goroutine count. No wait minutes or arguments.
//   - [ModeLeak]: every goroutine, with those the runtime proves leaked
//     marked (Go 1.27's goroutine leak profile, looked up at run time, so
//     older releases get an error). It runs a GC cycle that stalls the
//     process, for about a minute at 100k goroutines, so it is refused
//     above CaptureOptions.LeakMaxGoroutines ([DefaultLeakMaxGoroutines]).
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
// deadlines so that a stalled client cannot hold the process's memory. A
// request chooses with its query (`?mode=trace&format=json&dedupe=1`;
// docs/endpoint.md lists them); HandlerOptions set the defaults and the
// bounds no request can pass (trace window, leak bound, rate, auth).
// [GoroutineHandler] is a drop-in for net/http/pprof's goroutine handler.
// Nothing is registered on import; [Register] mounts both at their usual
// paths, with method patterns that live beside net/http/pprof's.
//
// # Files
//
// [WriteFile] captures into a file atomically (temporary file, fsync,
// rename), in the format and compression its name says; [OnSignal] writes
// one on each signal, keeping the newest few:
//
//	err := dumper.WriteFile(ctx, "/var/tmp/goroutines.json.zst", dumper.FileOptions{
//		Capture: dumper.CaptureOptions{Mode: dumper.ModeTrace},
//	})
//	stop := dumper.OnSignal(ctx, syscall.SIGUSR1, "/var/tmp/dumps", dumper.SignalOptions{Keep: 10})
//	defer stop()
//
// [CreateAtomic] is the output file underneath both: a regular file (or a
// new path) is replaced atomically keeping its mode, a symbolic link is
// followed and stays a link, and a device, FIFO or socket is written in
// place (so a dump to /dev/null or a FIFO does what it says).
package dumper
