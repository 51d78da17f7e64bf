package formats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// TestGo127LeakProfile reads the goroutineleak profile (GA in Go 1.27) at
// debug=0, 1 and 2 and checks that the three agree: the three leaked
// goroutines, their labels, their stack.
func TestGo127LeakProfile(t *testing.T) {
	for _, c := range []struct {
		name string
		kind stack.Kind
	}{
		{"leak_debug0_go127.pb.gz", stack.KindGoPprof},
		{"leak_debug1_go127.txt", stack.KindGoDebug1},
		{"leak_debug2_go127.txt", stack.KindGoTraceback},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, dumps := readFixture(t, c.name)
			if len(dumps) != 1 {
				t.Fatalf("%d dumps, want 1", len(dumps))
			}
			d := dumps[0]
			if d.Source.Kind != c.kind {
				t.Errorf("kind %s, want %s", d.Source.Kind, c.kind)
			}
			var leaked int64
			seen := map[string]bool{}
			for _, r := range d.Routines {
				if !r.Leaked {
					continue
				}
				leaked += r.Goroutines()
				v, _ := r.Labels.Get("leaker")
				seen[v] = true
				if fs := r.Frames(); len(fs) == 0 || !strings.HasPrefix(fs[len(fs)-1].Func, "runtime") && !containsFunc(fs, "main.modeLeak.func1") {
					t.Errorf("leaked routine without main.modeLeak.func1: %v", r.Frames())
				}
			}
			if leaked != 3 || len(seen) != 3 || !seen["0"] || !seen["1"] || !seen["2"] {
				t.Errorf("%d leaked goroutines with leaker labels %v, want 3 (0, 1, 2)", leaked, seen)
			}
			if c.kind != stack.KindGoTraceback && d.Total != 3 {
				t.Errorf("total %d, want 3 (debug=0 and 1 hold only leaked goroutines)", d.Total)
			}
		})
	}
}

func containsFunc(fs []*stack.Frame, fn string) bool {
	for _, f := range fs {
		if f.Func == fn {
			return true
		}
	}
	return false
}

func readFixture(t *testing.T, name string) ([]byte, []*stack.Dump) {
	t.Helper()
	data, err := os.ReadFile("../testdata/go/" + name)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	for _, d := range dumps {
		for _, w := range d.Warnings {
			t.Errorf("warning: %v", w)
		}
		if d.Truncated {
			t.Error("read as truncated")
		}
	}
	return data, dumps
}
