package tracesnap

// Wait reasons for goroutines read from an execution trace.
//
// A trace says only that a goroutine is waiting. For a goroutine that
// blocked before the trace started, the runtime's wait reason
// (g.waitreason, the text between the brackets of a debug=2 header) is not
// recorded at all; for one that blocked inside the traced window the trace
// carries one of ~17 coarse block reasons ("sync", "forever", "network").
// Both are turned into the debug=2 wording here, from the runtime
// functions on the goroutine's stack: every gopark call site in the
// runtime passes a fixed wait reason, so the frame that called gopark (or
// the linknamed entry point above semacquire1) names it.

// traceWaitFrames maps a function on a waiting goroutine's stack to the
// wait reason the runtime gives goroutines parked under it. The innermost
// match wins. The semaphore entry points are the linknamed names the
// runtime's sema.go exports: each passes its own wait reason to
// semacquire1, so they also tell a sync.RWMutex writer queued behind
// another writer (blocked in the inner sync.Mutex: "sync.Mutex.Lock") from
// one waiting for readers ("sync.RWMutex.Lock"), exactly as debug=2 does,
// and give the Go 1.23-era "semacquire" for sync.WaitGroup.Wait.
var traceWaitFrames = map[string]string{
	"runtime.chanrecv":                      "chan receive",
	"runtime.chanrecv1":                     "chan receive",
	"runtime.chanrecv2":                     "chan receive",
	"runtime.chansend":                      "chan send",
	"runtime.chansend1":                     "chan send",
	"runtime.selectgo":                      "select",
	"runtime.block":                         "select (no cases)",
	"internal/poll.runtime_pollWait":        "IO wait",
	"runtime.netpollblock":                  "IO wait",
	"time.Sleep":                            "sleep",
	"sync.runtime_notifyListWait":           "sync.Cond.Wait",
	"internal/sync.runtime_SemacquireMutex": "sync.Mutex.Lock",
	"sync.runtime_SemacquireMutex":          "sync.Mutex.Lock", // Go 1.23
	"sync.runtime_SemacquireRWMutexR":       "sync.RWMutex.RLock",
	"sync.runtime_SemacquireRWMutex":        "sync.RWMutex.Lock",
	"sync.runtime_SemacquireWaitGroup":      "sync.WaitGroup.Wait",
	"sync.runtime_Semacquire":               "semacquire",
	"internal/poll.runtime_Semacquire":      "semacquire",
	"internal/synctest.Run":                 "synctest.Run",
	"internal/synctest.Wait":                "synctest.Wait",
	"runtime.coroswitch":                    "coroutine",
	"runtime.gcParkAssist":                  "GC assist wait",
	"runtime.gcWaitOnMark":                  "wait for GC cycle",
	"runtime.runFinalizers":                 "finalizer wait",
	"runtime.runCleanups":                   "cleanup wait",
	"runtime.forcegchelper":                 "force gc (idle)",
	"runtime.bgsweep":                       "GC sweep wait",
	"runtime.bgscavenge":                    "GC scavenge wait",
	"runtime.gcBgMarkWorker":                "GC worker (idle)",
	"runtime.updateMaxProcsGoroutine":       "GOMAXPROCS updater (idle)",
	"runtime.ReadTrace":                     "trace reader (blocked)",
}

// traceWaitFallback names reasons for runtime internals reached from many
// places; they apply only when no frame of traceWaitFrames is on the stack.
var traceWaitFallback = map[string]string{
	"runtime.semacquire1": "semacquire",
	"runtime.semacquire":  "semacquire",
}

// inferWaitReason returns the debug=2 wait reason of a goroutine parked
// with the given functions on its stack (innermost first), or "" when no
// frame says.
func inferWaitReason(funcs []string) string {
	for _, fn := range funcs {
		if r, ok := traceWaitFrames[fn]; ok {
			return r
		}
	}
	for _, fn := range funcs {
		if r, ok := traceWaitFallback[fn]; ok {
			return r
		}
	}
	return ""
}

// waitReasonFromTrace turns the block reason a trace recorded for a
// goroutine that blocked inside the window into the debug=2 wording,
// refined by the reason inferred from its stack where the trace's is
// coarse: "sync" covers every semaphore wait, "forever" both `select {}`
// and operations on a nil channel, which debug=2 tells apart.
func waitReasonFromTrace(traceReason, inferred string) string {
	switch traceReason {
	case "chan receive", "chan send", "select", "sleep":
		return traceReason
	case "network":
		return "IO wait"
	case "sync.(*Cond).Wait":
		return "sync.Cond.Wait"
	case "forever":
		switch inferred {
		case "chan receive", "chan send":
			return inferred + " (nil chan)"
		}
		return "select (no cases)"
	case "sync":
		if inferred != "" {
			return inferred
		}
		return "semacquire"
	case "preempted":
		return "preempted"
	}
	if inferred != "" {
		return inferred
	}
	return traceReason
}
