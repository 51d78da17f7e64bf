package tracesnap

import "testing"

func TestInferWaitReason(t *testing.T) {
	for _, tc := range []struct {
		funcs []string
		want  string
	}{
		{[]string{"runtime.gopark", "runtime.chanrecv", "runtime.chanrecv1", "main.f"}, "chan receive"},
		{[]string{"runtime.gopark", "runtime.chansend", "runtime.chansend1", "main.f"}, "chan send"},
		{[]string{"runtime.gopark", "runtime.selectgo", "main.f"}, "select"},
		{[]string{"runtime.gopark", "runtime.block", "main.f"}, "select (no cases)"},
		{[]string{"runtime.gopark", "runtime.netpollblock", "internal/poll.runtime_pollWait", "internal/poll.(*pollDesc).wait"}, "IO wait"},
		{[]string{"runtime.gopark", "time.Sleep", "main.f"}, "sleep"},
		{[]string{"runtime.gopark", "runtime.goparkunlock", "sync.runtime_notifyListWait", "sync.(*Cond).Wait"}, "sync.Cond.Wait"},
		// The semaphore entry point, not semacquire1 below it, names the reason.
		{[]string{"runtime.gopark", "runtime.semacquire1", "internal/sync.runtime_SemacquireMutex", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock"}, "sync.Mutex.Lock"},
		{[]string{"runtime.gopark", "runtime.semacquire1", "sync.runtime_SemacquireRWMutexR", "sync.(*RWMutex).RLock"}, "sync.RWMutex.RLock"},
		{[]string{"runtime.gopark", "runtime.semacquire1", "sync.runtime_SemacquireRWMutex", "sync.(*RWMutex).Lock"}, "sync.RWMutex.Lock"},
		// A writer queued behind another writer waits in the inner Mutex, as debug=2 says.
		{[]string{"runtime.gopark", "runtime.semacquire1", "internal/sync.runtime_SemacquireMutex", "sync.(*Mutex).Lock", "sync.(*RWMutex).Lock"}, "sync.Mutex.Lock"},
		{[]string{"runtime.gopark", "runtime.semacquire1", "sync.runtime_SemacquireWaitGroup", "sync.(*WaitGroup).Wait"}, "sync.WaitGroup.Wait"},
		{[]string{"runtime.gopark", "runtime.semacquire1", "sync.runtime_Semacquire", "sync.(*WaitGroup).Wait"}, "semacquire"}, // Go 1.23
		{[]string{"runtime.gopark", "runtime.semacquire1", "runtime.semacquire", "runtime.GC"}, "semacquire"},
		// The innermost blocking call wins over callers further out.
		{[]string{"runtime.gopark", "runtime.chanrecv", "runtime.chanrecv1", "main.f", "time.Sleep"}, "chan receive"},
		{[]string{"runtime.gopark", "main.custom"}, ""},
		{nil, ""},
	} {
		if got := inferWaitReason(tc.funcs); got != tc.want {
			t.Errorf("inferWaitReason(%v) = %q, want %q", tc.funcs, got, tc.want)
		}
	}
}

func TestWaitReasonFromTrace(t *testing.T) {
	for _, tc := range []struct{ trace, inferred, want string }{
		{"chan receive", "chan receive", "chan receive"},
		{"network", "IO wait", "IO wait"},
		{"network", "", "IO wait"},
		{"sync.(*Cond).Wait", "sync.Cond.Wait", "sync.Cond.Wait"},
		{"forever", "chan receive", "chan receive (nil chan)"},
		{"forever", "chan send", "chan send (nil chan)"},
		{"forever", "select (no cases)", "select (no cases)"},
		{"sync", "sync.RWMutex.RLock", "sync.RWMutex.RLock"},
		{"sync", "", "semacquire"},
		{"sleep", "sleep", "sleep"},
		{"GC mark assist wait for work", "GC assist wait", "GC assist wait"},
		{"unspecified", "", "unspecified"},
	} {
		if got := waitReasonFromTrace(tc.trace, tc.inferred); got != tc.want {
			t.Errorf("waitReasonFromTrace(%q, %q) = %q, want %q", tc.trace, tc.inferred, got, tc.want)
		}
	}
}

func TestShowTraceFrame(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.gopark":              false,
		"runtime.chanrecv1":           false,
		"runtime.Gosched":             true,
		"runtime.":                    false,
		"runtime.runFinalizers":       true,
		"internal/runtime/sys.Foo":    true,
		"time.Sleep":                  true,
		"main.main":                   true,
		"noDot":                       false,
		"runtime/trace.Start":         true,
		"internal/sync.(*Mutex).Lock": true,
	} {
		if got := showTraceFrame(fn, false); got != want {
			t.Errorf("showTraceFrame(%q) = %v, want %v", fn, got, want)
		}
	}
	if showTraceFrame("runtime.gopanic", true) || !showTraceFrame("runtime.gopanic", false) {
		t.Error("runtime.gopanic: want hidden as the innermost frame, shown further out")
	}
}

func TestIDList(t *testing.T) {
	for _, tc := range []struct {
		ids  []int64
		want string
	}{
		{[]int64{7}, "7"},
		{[]int64{1, 2, 3}, "1, 2, 3"},
		{[]int64{1, 2, 3, 4, 5}, "1, 2, 3 and 2 more"},
	} {
		if got := idList(tc.ids, 3); got != tc.want {
			t.Errorf("idList(%v, 3) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}
