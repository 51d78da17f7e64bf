package gotext

import (
	"os"
	"testing"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// TestStackTrieFollowsReader reads a real traceback twice through one
// reader, reset onto the same input: the second read finds every stack
// already in the reader's trie (no node added, the same Stacks); a reader
// of its own Table builds a trie of its own.
func TestStackTrieFollowsReader(t *testing.T) {
	data, err := os.ReadFile("../../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	read := func(g *goTextDecoder) []*stack.Stack {
		if _, err := g.NextDump(); err != nil {
			t.Fatal(err)
		}
		var stacks []*stack.Stack
		for {
			r, err := g.NextRoutine()
			if err == codec.ErrEndOfDump {
				return stacks
			}
			if err != nil {
				t.Fatal(err)
			}
			stacks = append(stacks, r.Stack)
		}
	}
	mem := func() *codec.Stream { return memStream(data) }
	g := newGoTextDecoder(mem(), codec.Options{Table: stack.NewTable()}, false)
	first := read(g)
	trie := g.trie
	nodes := trie.nodes()
	if trie == nil || nodes < 2 {
		t.Fatalf("no trie after a read: %v, %d nodes", trie, nodes)
	}
	g.reset(mem())
	second := read(g)
	if g.trie != trie || trie.nodes() != nodes {
		t.Errorf("the reader reset onto the same input: trie %p → %p, %d → %d nodes", trie, g.trie, nodes, trie.nodes())
	}
	if len(first) != len(second) || len(first) == 0 {
		t.Fatalf("%d routines, then %d", len(first), len(second))
	}
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("routine %d: a new Stack for the same stack from one reader", i)
		}
	}
	other := newGoTextDecoder(mem(), codec.Options{Table: stack.NewTable()}, false)
	read(other)
	if other.trie == trie || other.trie.nodes() != nodes {
		t.Errorf("another reader and Table: trie %p (first %p), %d nodes, want %d", other.trie, trie, other.trie.nodes(), nodes)
	}
}

// nodes counts the trie's nodes, the root included.
func (tr *stackTrie) nodes() int {
	var count func(n *stackNode) int
	count = func(n *stackNode) int {
		c := 1
		seen := map[*stackNode]bool{}
		kids := []*stackNode{n.last}
		for _, k := range n.children {
			for ; k != nil; k = k.sibling {
				kids = append(kids, k)
			}
		}
		for _, k := range kids {
			if k != nil && !seen[k] {
				seen[k] = true
				c += count(k)
			}
		}
		return c
	}
	return count(tr.root())
}
