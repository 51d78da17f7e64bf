package dedupe

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// keyOf groups one routine and returns its group key.
func keyOf(r *stack.Routine, opts Options) string {
	return Group(&stack.Dump{Routines: []*stack.Routine{r}}, opts)[0].Key
}

// sampleRoutine is a debug=2 goroutine with runtime frames at both ends,
// arguments, offsets and a creator.
func sampleRoutine(t *stack.Table) *stack.Routine {
	fr := func(fn, file string, line int, off uint64) *stack.Frame {
		return t.Frame(stack.Frame{Func: fn, File: file, Line: line, Offset: off, HasOffset: off != 0})
	}
	return &stack.Routine{
		ID: 7, State: "chan receive",
		Stack: t.Stack([]*stack.Frame{
			fr("runtime.gopark", "/go/src/runtime/proc.go", 435, 0xce),
			fr("main.worker", "/src/app/main.go", 42, 0x1c),
			fr("main.main.func1", "/src/app/main.go", 17, 0),
			fr("runtime.goexit", "/go/src/runtime/asm_amd64.s", 1700, 0x1),
		}, stack.Elision{}),
		Values:    t.Values([]stack.FrameValue{{Args: "0x0?"}, {Args: `{0xc000, "x"}`}, {}, {}}),
		CreatedBy: fr("main.main", "/src/app/main.go", 16, 0x2f),
		ParentID:  1,
	}
}

// The canonical forms are a stored format: keys written today must match
// keys computed by later versions. Changing a form means changing
// keyVersion.
func TestCanonicalForms(t *testing.T) {
	r := sampleRoutine(stack.NewTable())
	cases := []struct {
		by      By
		creator bool
		want    string
	}{
		{ByStack, false, `stackdump-key/1 stack
f "main.worker" "/src/app/main.go" 42
f "main.main.func1" "/src/app/main.go" 17
`},
		{ByStack, true, `stackdump-key/1 stack
f "main.worker" "/src/app/main.go" 42
f "main.main.func1" "/src/app/main.go" 17
c "main.main" "/src/app/main.go" 16
`},
		{ByFunc, false, `stackdump-key/1 func
f "main.worker"
f "main.main.func1"
`},
		{ByExact, false, `stackdump-key/1 exact
s "chan receive"
f "runtime.gopark" "/go/src/runtime/proc.go" 435 +0xce "0x0?"
f "main.worker" "/src/app/main.go" 42 +0x1c "{0xc000, \"x\"}"
f "main.main.func1" "/src/app/main.go" 17 - ""
f "runtime.goexit" "/go/src/runtime/asm_amd64.s" 1700 +0x1 ""
c "main.main" "/src/app/main.go" 16 +0x2f
`},
	}
	for _, c := range cases {
		got := string(appendCanonical(nil, r, c.by, c.creator))
		if got != c.want {
			t.Errorf("%s (creator %v): form\n%s\nwant\n%s", c.by, c.creator, got, c.want)
		}
		sum := sha256.Sum256([]byte(c.want))
		if key, want := keyOf(r, Options{By: c.by, SplitByCreator: c.creator}), hex.EncodeToString(sum[:8]); key != want {
			t.Errorf("%s: key %s, want %s (SHA-256 of the form)", c.by, key, want)
		}
	}
}

func TestKeyIsTheSameAcrossTables(t *testing.T) {
	t1, t2 := stack.NewTable(), stack.NewTable()
	t2.Frame(stack.Frame{Func: "unrelated"}) // shift t2's frame and stack ids
	t2.Stack(nil, stack.Elision{})
	for _, by := range Levels() {
		if a, b := keyOf(sampleRoutine(t1), Options{By: by}), keyOf(sampleRoutine(t2), Options{By: by}); a != b {
			t.Errorf("%s: key %s in one table, %s in another", by, a, b)
		}
	}
}

func TestKeyDiffersBetweenLevels(t *testing.T) {
	r := sampleRoutine(stack.NewTable())
	seen := map[string]By{}
	for _, by := range Levels() {
		k := keyOf(r, Options{By: by})
		if other, dup := seen[k]; dup {
			t.Errorf("levels %s and %s share key %s", other, by, k)
		}
		seen[k] = by
	}
}

// debug=1 and pprof hide the leading runtime frames and debug=2 the
// trailing ones and those in between: keys must not see any of them.
func TestKeyIgnoresRuntimeFrames(t *testing.T) {
	tab := stack.NewTable()
	f := func(fn string, line int) *stack.Frame { return frame(tab, fn, "/src/x.go", line) }
	user := []*stack.Frame{f("main.block", 10), f("reflect.Value.call", 586), f("main.viaReflect", 13)}
	debug2 := stackOf(tab, user...)
	debug1 := stackOf(tab, f("runtime.gopark", 435), f("runtime.chanrecv1", 506), user[0], user[1], f("runtime.call16", 747), user[2], f("runtime.goexit", 1700))
	mainG := stackOf(tab, f("main.main", 22), f("runtime.main", 290))
	for _, by := range []By{ByStack, ByFunc} {
		a := keyOf(&stack.Routine{Stack: debug2}, Options{By: by})
		b := keyOf(&stack.Routine{Stack: debug1}, Options{By: by})
		if a != b {
			t.Errorf("%s: runtime frames changed the key: %s vs %s", by, a, b)
		}
		if keyOf(&stack.Routine{Stack: mainG}, Options{By: by}) != keyOf(&stack.Routine{Stack: stackOf(tab, f("main.main", 22))}, Options{By: by}) {
			t.Errorf("%s: trailing runtime.main changed the key", by)
		}
	}
	if keyOf(&stack.Routine{Stack: debug2}, Options{By: ByExact}) == keyOf(&stack.Routine{Stack: debug1}, Options{By: ByExact}) {
		t.Errorf("exact: runtime frames should count")
	}
}

func TestKeyOfRuntimeOnlyStacks(t *testing.T) {
	tab := stack.NewTable()
	f := func(fn string) *stack.Frame { return frame(tab, fn, "/go/src/runtime/x.go", 1) }
	bgMark := stackOf(tab, f("runtime.gopark"), f("runtime.gcBgMarkWorker"), f("runtime.goexit"))
	bgMarkNoExit := stackOf(tab, f("runtime.gopark"), f("runtime.gcBgMarkWorker"))
	sweep := stackOf(tab, f("runtime.gopark"), f("runtime.bgsweep"), f("runtime.goexit"))
	k := func(s *stack.Stack) string { return keyOf(&stack.Routine{Stack: s}, Options{}) }
	if k(bgMark) == k(sweep) {
		t.Errorf("runtime-only stacks of different workers share a key")
	}
	if k(bgMark) != k(bgMarkNoExit) {
		t.Errorf("runtime.goexit (shown by debug=1, hidden by debug=2) changed a runtime-only key")
	}
	if k(bgMark) == k(stackOf(tab)) {
		t.Errorf("a runtime-only stack has the key of an empty one")
	}
}

func TestKeySeesElision(t *testing.T) {
	tab := stack.NewTable()
	fs := []*stack.Frame{frame(tab, "main.rec", "/src/x.go", 5), frame(tab, "main.rec", "/src/x.go", 5), frame(tab, "main.main", "/src/x.go", 9)}
	full := tab.Stack(fs, stack.Elision{})
	cut50 := tab.Stack(fs, stack.Elision{Elided: true, Count: 50, At: 2})
	cut70 := tab.Stack(fs, stack.Elision{Elided: true, Count: 70, At: 2})
	k := func(s *stack.Stack, by By) string { return keyOf(&stack.Routine{Stack: s}, Options{By: by}) }
	if k(full, ByStack) == k(cut50, ByStack) {
		t.Errorf("stack: elided and whole stacks share a key")
	}
	if k(cut50, ByStack) != k(cut70, ByStack) {
		t.Errorf("stack: the elided frame count changed the key")
	}
	if k(cut50, ByExact) == k(cut70, ByExact) {
		t.Errorf("exact: the elided frame count should count")
	}
}

func TestParseBy(t *testing.T) {
	for _, b := range Levels() {
		got, err := ParseBy(b.String())
		if err != nil || got != b {
			t.Errorf("ParseBy(%q) = %v, %v", b.String(), got, err)
		}
	}
	if got, err := ParseBy("FUNC"); err != nil || got != ByFunc {
		t.Errorf("ParseBy(FUNC) = %v, %v", got, err)
	}
	if got, err := ParseBy(""); err != nil || got != ByStack {
		t.Errorf(`ParseBy("") = %v, %v; want the default, stack`, got, err)
	}
	_, err := ParseBy("lines")
	if err == nil || err.Error() != `unknown similarity "lines" (want exact, stack or func)` {
		t.Errorf("ParseBy(lines) error = %v", err)
	}
}

func TestTopFrame(t *testing.T) {
	tab := stack.NewTable()
	park, user := frame(tab, "runtime.gopark", "/go/src/runtime/proc.go", 435), frame(tab, "main.worker", "/src/x.go", 3)
	if got := TopFrame(stackOf(tab, park, user)); got != user {
		t.Errorf("TopFrame = %v, want main.worker", got)
	}
	if got := TopFrame(stackOf(tab, park)); got != park {
		t.Errorf("TopFrame of a runtime-only stack = %v, want its first frame", got)
	}
	if TopFrame(stackOf(tab)) != nil || TopFrame(nil) != nil {
		t.Errorf("TopFrame of an empty stack should be nil")
	}
}
