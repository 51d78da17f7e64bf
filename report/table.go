package report

import (
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// docTable interns the strings and frames of the page's document, so that
// a frame shared by a thousand groups and several dumps is written once.
type docTable struct {
	strs   []string
	strIdx map[string]int
	frames []frameRow
	byPtr  map[*stack.Frame]int
	byVal  map[frameKey]int
}

// frameKey is a frame's identity in the page: dumps read with different
// stack.Tables have different pointers for the same frame.
type frameKey struct {
	fn, file, module string
	line             int
	inlined, native  bool
}

func newDocTable() *docTable {
	return &docTable{
		strIdx: make(map[string]int),
		byPtr:  make(map[*stack.Frame]int),
		byVal:  make(map[frameKey]int),
	}
}

func (t *docTable) str(s string) int {
	if i, ok := t.strIdx[s]; ok {
		return i
	}
	i := len(t.strs)
	t.strs = append(t.strs, s)
	t.strIdx[s] = i
	return i
}

// frame returns the index of f's row, adding it on first use.
func (t *docTable) frame(f *stack.Frame, jvm bool) int {
	if i, ok := t.byPtr[f]; ok {
		return i
	}
	k := frameKey{fn: f.Func, file: f.File, module: f.Module, line: f.Line, inlined: f.Inlined, native: f.Native}
	i, ok := t.byVal[k]
	if !ok {
		i = len(t.frames)
		t.byVal[k] = i
		t.frames = append(t.frames, t.row(f, jvm))
	}
	t.byPtr[f] = i
	return i
}

func (t *docTable) row(f *stack.Frame, jvm bool) frameRow {
	var flags int
	pkg := f.Package()
	if jvm {
		pkg = jvmPackage(f.Func)
	}
	if f.IsRuntime() {
		flags |= flagRuntime
	}
	if f.Inlined {
		flags |= flagInlined
	}
	if f.Native {
		flags |= flagNative
	}
	if f.IsStdlib() {
		flags |= flagStd
	}
	row := frameRow{t.str(f.Func), t.str(f.File), f.Line, flags, t.str(pkg)}
	if f.Module != "" {
		row = append(row, t.str(f.Module))
	}
	return row
}

// jvmPackage returns the package of a JVM method name: the dotted
// segments before the first one that starts with an upper-case letter
// ("java.util.concurrent" for "java.util.concurrent.locks.LockSupport.park"
// has "locks" too: "java.util.concurrent.locks").
func jvmPackage(fn string) string {
	end := 0
	for i := 0; i < len(fn); {
		j := strings.IndexByte(fn[i:], '.')
		if j < 0 || (fn[i] >= 'A' && fn[i] <= 'Z') {
			break
		}
		end = i + j
		i += j + 1
	}
	return fn[:end]
}
