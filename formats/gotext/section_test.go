package gotext

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// countNodes counts the nodes of a section trie below n.
func countNodes(n *stackNode) int {
	seen := map[*stackNode]bool{}
	var walk func(n *stackNode)
	walk = func(n *stackNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		walk(n.last)
		walk(n.sibling)
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(n)
	return len(seen)
}

// TestSectionTrie reads goroutines whose stacks share frames, differ in a
// call site's line only, or branch at several depths, in an order that
// defeats the trie's guess of the next frame: every routine must get its
// own stack, equal stacks one pointer, and the trie must hold each
// distinct frame position once.
func TestSectionTrie(t *testing.T) {
	stacks := []string{
		"main.a(0x1)\n\t/s/a.go:1 +0x1\nmain.main()\n\t/s/m.go:9 +0x9\n",
		"main.a(0x2)\n\t/s/a.go:2 +0x1\nmain.main()\n\t/s/m.go:9 +0x9\n", // a at another line
		"main.b()\n\t/s/b.go:1 +0x1\nmain.main()\n\t/s/m.go:9 +0x9\n",
		"main.a(...)\n\t/s/a.go:1\nmain.main()\n\t/s/m.go:9 +0x9\n",       // inlined a
		"main.a(0x1)\n\t/s/a.go:1 +0x1\nmain.main()\n\t/s/m.go:10 +0xa\n", // branches at depth 1
		"main.a(0x1)\n\t/s/a.go:1 +0x1\n",
		"main.a()\n\t/s/a.go:1\nmain.main()\n\t/s/m.go:9 +0x9\n",                              // the inlined a's file line, not inlined
		"main.a(0x1)\n\t/s/a.go:1 +0x1 fp=0x1 sp=0x2 pc=0x3\nmain.main()\n\t/s/m.go:9 +0x9\n", // values: same frames
		"",
	}
	var in strings.Builder
	var want []int
	for i := range 600 {
		k := (i*i + i/7) % len(stacks)
		fmt.Fprintf(&in, "goroutine %d [select]:\n%s\n", i+1, stacks[k])
		want = append(want, k)
	}
	rd := NewReader(bytes.NewReader([]byte(in.String())), ReadOptions{ReuseRoutines: true})
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	byKind := map[int]*stack.Stack{}
	i := 0
	for r, err := range rd.Routines() {
		if err != nil {
			t.Fatal(err)
		}
		k := want[i]
		var text strings.Builder
		for _, f := range r.Stack.Frames {
			fmt.Fprintf(&text, "%s:%s:%d:%v ", f.Func, f.File, f.Line, f.Inlined)
		}
		if k == 7 { // values: the stack of stacks[0]
			k = 0
		}
		if s, ok := byKind[k]; ok && s != r.Stack {
			t.Fatalf("routine %d: stack %d read as %s, before as another pointer", i, k, text.String())
		}
		byKind[k] = r.Stack
		for j, other := range byKind {
			if j != k && other == r.Stack {
				t.Fatalf("routine %d: stacks %d and %d share a pointer", i, k, j)
			}
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("read %d routines, want %d", i, len(want))
	}
	if _, stacksN := rd.Table().Len(); stacksN != len(stacks)-1 { // the one with values shares a stack
		t.Errorf("Table holds %d stacks, want %d", stacksN, len(stacks)-1)
	}
	dec := rd.dec
	// root, a:1, a:2, b, a:1 inlined, a:1 without offset, then main.main
	// under each, and main.main:10 under a:1.
	if n := countNodes(dec.rt.frames.root); n != 12 {
		t.Errorf("trie holds %d nodes, want 12", n)
	}
}
