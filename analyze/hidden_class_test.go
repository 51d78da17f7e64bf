package analyze

import (
	"regexp"
	"testing"
)

// JVMHiddenClass on the lambda frames of real JDK 17 dumps names their
// class; it leaves every Go frame of a real dump, and other forms of
// names (JDK 21's, JDK 8's, the JDK's own LambdaForm), as they should be.
func TestJVMHiddenClass(t *testing.T) {
	hidden := regexp.MustCompile(`^(Samp\$\$Lambda\$\d+)/0x[0-9a-f]+(\.run)$`)
	n := 0
	for _, d := range readDumps(t, "../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt") {
		for _, r := range d.Routines {
			for _, f := range r.Frames() {
				m := hidden.FindStringSubmatch(f.Func)
				if m == nil {
					if got := JVMHiddenClass(f.Func); got != f.Func {
						t.Errorf("%s → %s", f.Func, got)
					}
					continue
				}
				n++
				if got := JVMHiddenClass(f.Func); got != m[1]+m[2] {
					t.Errorf("%s → %s, want %s", f.Func, got, m[1]+m[2])
				}
				if got := shortFunc(f.Func); got != m[1]+m[2] {
					t.Errorf("shortFunc(%s) = %s", f.Func, got)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no lambda frame in the dump")
	}
	for _, d := range readDumps(t, "../testdata/go/demo_go126.txt") {
		for _, r := range d.Routines {
			for _, f := range r.Frames() {
				if got := JVMHiddenClass(f.Func); got != f.Func {
					t.Errorf("Go frame %s → %s", f.Func, got)
				}
			}
		}
	}
	for in, want := range map[string]string{
		"com.example.Foo$$Lambda/0x000001c0010a1b20.run":                   "com.example.Foo$$Lambda.run",
		"Foo$$Lambda$1/1831932724.run":                                     "Foo$$Lambda$1.run",
		"java.lang.invoke.LambdaForm$DMH/0x0000380001228000.invokeVirtual": "java.lang.invoke.LambdaForm$DMH.invokeVirtual",
		"github.com/a$b/c.F":                                               "github.com/a$b/c.F",
		"example.com/x$y/0xzz.F":                                           "example.com/x$y/0xzz.F",
	} {
		if got := JVMHiddenClass(in); got != want {
			t.Errorf("JVMHiddenClass(%q) = %q, want %q", in, got, want)
		}
	}
}
