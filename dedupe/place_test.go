package dedupe

import (
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// readDump reads the first dump of a file of the repository.
func readDump(t *testing.T, path string) *stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumps) == 0 {
		t.Fatalf("%s: %d dumps, %v", path, len(dumps), err)
	}
	return dumps[0]
}

// The demo service's real dump (testdata/go/demo_go126.txt): each group
// is named by the program's code past the runtime's and the standard
// library's primitives, with the primitive as detail; goroutines whose
// every frame is the standard library's are named past the waiting
// primitives (net/http, not internal/poll); the runtime's own by their
// function, not runtime.gopark.
func TestPlaceOfGo(t *testing.T) {
	d := readDump(t, "../testdata/go/demo_go126.txt")
	names := map[int64]Place{}
	for _, r := range d.Routines {
		p := PlaceOf(r.Stack)
		names[r.ID] = p
		if p.Frame == nil {
			t.Errorf("goroutine %d: no place", r.ID)
			continue
		}
		switch {
		case strings.HasPrefix(p.Frame.Func, "internal/"), strings.HasPrefix(p.Frame.Func, "sync."),
			p.Frame.Func == "runtime.gopark", strings.HasPrefix(p.Frame.Func, "net.("):
			t.Errorf("goroutine %d [%s]: named by the primitive %s", r.ID, r.State, p.Frame.Func)
		}
	}
	for _, c := range []struct {
		id         int64
		name, wait string
	}{
		{147, "github.com/stackdump/stackdump/internal/demo.(*priceCache).Get", "sync.(*Mutex).Lock"},
		{100, "net/http.(*connReader).Read", "net.(*conn).Read"},
	} {
		p := names[c.id]
		if p.Frame == nil || p.Frame.Func != c.name || p.Wait == nil || p.Wait.Func != c.wait {
			t.Errorf("goroutine %d: place %v; want %s in %s", c.id, p, c.name, c.wait)
		}
	}
	sys := readDump(t, "../testdata/go/system_go126.txt")
	runtimeOnly := 0
	for _, r := range sys.Routines {
		if AppFrame(r.Stack) != nil || len(r.Frames()) == 0 || !r.Frames()[0].IsRuntime() || !allRuntime(r.Frames()) {
			continue
		}
		runtimeOnly++
		if f := NameFrame(r.Stack); f == nil || f.Func == "runtime.gopark" || f.Func == "runtime.goexit" {
			t.Errorf("goroutine %d (runtime only): named %v; want its own function", r.ID, f)
		}
	}
	if runtimeOnly == 0 {
		t.Error("system_go126.txt: no goroutine of the runtime alone")
	}
}

func allRuntime(fs []*stack.Frame) bool {
	for _, f := range fs {
		if !isRuntimeFrame(f) {
			return false
		}
	}
	return true
}

// A real jstack -l of JDK 17: threads parked by the program are named
// by its code, the JDK's own threads past the JDK's waiting primitives,
// never Unsafe.park or Object.wait.
func TestPlaceOfJVM(t *testing.T) {
	d := readDump(t, "../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")
	for _, r := range d.Routines {
		p := PlaceOf(r.Stack)
		if len(r.Frames()) == 0 {
			continue
		}
		if p.Frame == nil {
			t.Fatalf("%q: no place", r.Name)
		}
		if strings.Contains(p.Frame.Func, "Unsafe.park") || strings.HasPrefix(p.Frame.Func, "java.lang.Object.wait") || strings.HasPrefix(p.Frame.Func, "java.util.concurrent.locks.") {
			t.Errorf("%q: named by the primitive %s", r.Name, p.Frame.Func)
		}
		if strings.HasPrefix(r.Name, "dl-") && !strings.HasPrefix(p.Frame.Func, "Samp") {
			t.Errorf("%q: named %s; want the program's class", r.Name, p.Frame.Func)
		}
		if r.Name == "Finalizer" && p.Frame.Func != "java.lang.ref.ReferenceQueue.remove" {
			t.Errorf("Finalizer: named %s; want ReferenceQueue.remove, past Object.wait", p)
		}
	}
}

// The rule reads package paths: a module without a dot in its path that
// is no standard library root is the program's; vendored standard
// library code is the platform's.
func TestIsPlatform(t *testing.T) {
	for fn, want := range map[string]bool{
		"myapp/server.(*S).run":                    false,
		"main.main":                                false,
		"github.com/x/y.F":                         false,
		"net/http.(*conn).serve":                   true,
		"internal/poll.runtime_pollWait":           true,
		"vendor/golang.org/x/net/http2/hpack.F":    true,
		"runtime.gopark":                           true,
		"google.golang.org/grpc/internal/x.(*T).F": false,
	} {
		f := &stack.Frame{Func: fn, File: "/src/x.go"}
		if got := IsPlatform(f); got != want {
			t.Errorf("IsPlatform(%s) = %v, want %v", fn, got, want)
		}
	}
	jvm := &stack.Frame{Func: "java.util.concurrent.LinkedBlockingQueue.take", File: "LinkedBlockingQueue.java", Module: "java.base@17"}
	app := &stack.Frame{Func: "org.apache.zookeeper.server.NIOServerCnxnFactory$SelectorThread.run", File: "NIOServerCnxnFactory.java"}
	if !IsPlatform(jvm) || IsPlatform(app) {
		t.Errorf("IsPlatform: JDK %v, application %v", IsPlatform(jvm), IsPlatform(app))
	}
}
