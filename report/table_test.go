package report

import (
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestJVMPackage(t *testing.T) {
	for fn, want := range map[string]string{
		"java.util.concurrent.locks.LockSupport.park":       "java.util.concurrent.locks",
		"java.lang.Thread.run":                              "java.lang",
		"org.apache.tomcat.util.net.NioEndpoint$Poller.run": "org.apache.tomcat.util.net",
		"Main.main":  "",
		"noDotsHere": "",
	} {
		if got := jvmPackage(fn); got != want {
			t.Errorf("jvmPackage(%q) = %q, want %q", fn, got, want)
		}
	}
}

func TestStdFrames(t *testing.T) {
	tab := newDocTable()
	b := newDump(stack.KindGoTraceback, "")
	// Runtime frames tell where the Go installation is: Go 1.5+ and Go 1.4's src/pkg layout.
	b.add(1, 1, stack.Routine{Stack: b.stack("runtime.gopark@/opt/go/src/runtime/proc.go:1", "main.main@/app/main.go:2")})
	b.add(2, 1, stack.Routine{Stack: b.stack("runtime.park@/old/go/src/pkg/runtime/proc.c:3")})
	tab.addGoroots(groupsOf(b.dump))
	for _, c := range []struct {
		fn, file string
		std      bool
	}{
		{"internal/poll.runtime_pollWait", "/opt/go/src/runtime/netpoll.go", true}, // linknamed into the runtime's file
		{"time.Sleep", "/opt/go/src/runtime/time.go", true},
		{"testing.tRunner", "/old/go/src/pkg/testing/testing.go", true},
		{"net/http.(*conn).serve", "/elsewhere/go/src/net/http/server.go", true}, // by import path
		{"main.main", "/opt/go/src/main.go", false},
		{"github.com/x/y.F", "/opt/go/src/github.com/x/y/f.go", false},
		{"myapp/internal/db.Query", "/home/u/myapp/internal/db/q.go", false},
		{"golang.org/x/sys/unix.Nanosleep", "/go/pkg/mod/golang.org/x/sys/unix/z.go", false},
	} {
		f := &stack.Frame{Func: c.fn, File: c.file}
		if got := isStd(f, f.Package(), false, tab.goroots); got != c.std {
			t.Errorf("isStd(%s %s) = %v, want %v", c.fn, c.file, got, c.std)
		}
	}
}
