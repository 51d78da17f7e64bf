package formats

import (
	"bytes"
	"os"
	"testing"
)

// TestStackTrieFollowsTable reads a real traceback twice through two
// readers: sharing a Table, the second reader finds every stack already in
// the Table's trie (no node added, the same Stacks); with its own Table,
// a reader builds a trie of its own.
func TestStackTrieFollowsTable(t *testing.T) {
	data, err := os.ReadFile("../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	read := func(tab *Table) []*Stack {
		dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{Kind: KindGoTraceback, Table: tab})
		if err != nil || len(dumps) == 0 {
			t.Fatalf("%d dumps, %v", len(dumps), err)
		}
		var stacks []*Stack
		for _, r := range dumps[0].Routines {
			stacks = append(stacks, r.Stack)
		}
		return stacks
	}
	shared := NewTable()
	first := read(shared)
	trie := shared.goStacks
	nodes := trie.nodes()
	if trie == nil || nodes < 2 {
		t.Fatalf("no trie after a read: %v, %d nodes", trie, nodes)
	}
	second := read(shared)
	if shared.goStacks != trie || trie.nodes() != nodes {
		t.Errorf("second reader over the same Table: trie %p → %p, %d → %d nodes", trie, shared.goStacks, nodes, trie.nodes())
	}
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("routine %d: a new Stack for the same stack over one Table", i)
		}
	}
	other := NewTable()
	read(other)
	if other.goStacks == trie || other.goStacks.nodes() != nodes {
		t.Errorf("another Table: trie %p (shared %p), %d nodes, want %d", other.goStacks, trie, other.goStacks.nodes(), nodes)
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
