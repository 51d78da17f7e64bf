package gotext

import (
	"strings"
	"unsafe"

	"github.com/stackdump/stackdump/stack"
)

// stackTrie is the Go traceback reader's trie of the stacks it has met
// (see section): each node is a frame after the path of frames above it,
// and the node a stack ends at holds its interned Stack. Its nodes hold
// the frames and stacks of the reader's Table, so a reader keeps it for
// its life, across dumps and across inputs when it is Reset (the parallel
// JSON capture reads each chunk with one reader per worker), and never
// mixes the stacks of two Tables.
type stackTrie struct {
	top stackNode // the empty stack
	// text holds the nodes' known lines and joins, carved from chunks:
	// a few allocations for all of them.
	text []byte
}

// root returns the node of the empty stack.
func (tr *stackTrie) root() *stackNode { return &tr.top }

// stackNode is a node of a section's trie: frame after the frames of the
// nodes above it.
type stackNode struct {
	// fn, inlined and native are frame's Func, Inlined and Native, and
	// loc is the file line frame was read from (see below): what the
	// frame expected next is compared with, first in the node so that
	// taking a frame loads one cache line and not the frame too.
	fn      string
	loc     string
	inlined bool
	native  bool
	// whole is set when goTextDecoder.wholeFrame may take the frame: it
	// is plain, not native, and has a known line that does not end in
	// '\r' (see setLoc).
	whole bool
	plain bool
	// join is the text from the ')' ending the parent's function line to
	// the '(' of this frame's, ")\n" + the parent's known line + "\n" +
	// fn + "(", when the parent may be taken whole; else "". Comparing it
	// checks the parent's file line and this frame's name at once (see
	// goTextDecoder.wholeFrame).
	join  string
	frame *stack.Frame
	// last is the child taken last, tried first. children indexes every
	// child by function once there is more than one; children calling
	// the same function from different lines are chained by sibling.
	last     *stackNode
	children map[string]*stackNode
	sibling  *stackNode
	// stack is the interned stack of the path to this node without
	// elision, once met; creator is the creator met last after it.
	stack   *stack.Stack
	creator *stack.Frame
	// elided is the interned stack of the path to this node with the
	// elision met last (Stack.ElidedCount and ElidedAt say which).
	elided *stack.Stack
	// loc (above) and creatorLoc are the file lines frame and creator
	// were read from, as written, when those carried no fp, sp or pc:
	// the same line again is the same location.
	creatorLoc string
	// plain (above) is set when no line calling frame's function can be
	// one of the lines goTextDecoder.special handles. Those all start
	// with a fixed prefix that holds a space and no '(' (`goroutine `,
	// `created by `, `panic: `, `[signal `, …), or with `PC=`, and the
	// space would have to fall inside the function's name: plain names
	// have no space and do not start with `PC=`.
}

// setLoc sets n's known file line, and whether wholeFrame may take n.
func (n *stackNode) setLoc(loc string, tr *stackTrie) {
	n.loc = loc
	n.whole = n.plain && !n.native && loc != "" && loc[len(loc)-1] != '\r'
	for c := range n.each {
		c.join = tr.joinOf(n, c.fn)
	}
}

// joinOf returns the join of p's child calling fn (see stackNode.join).
func (tr *stackTrie) joinOf(p *stackNode, fn string) string {
	if !p.whole {
		return ""
	}
	start := tr.room(len(")\n") + len(p.loc) + len("\n") + len(fn) + len("("))
	tr.text = append(tr.text, ")\n"...)
	tr.text = append(tr.text, p.loc...)
	tr.text = append(tr.text, '\n')
	tr.text = append(tr.text, fn...)
	tr.text = append(tr.text, '(')
	return tr.carved(start)
}

// str returns b as a string of the trie's text.
func (tr *stackTrie) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	start := tr.room(len(b))
	tr.text = append(tr.text, b...)
	return tr.carved(start)
}

// room makes room for n more bytes of text and returns where they start.
func (tr *stackTrie) room(n int) int {
	if cap(tr.text)-len(tr.text) < n {
		tr.text = make([]byte, 0, max(n, 4<<10))
	}
	return len(tr.text)
}

// carved returns the text appended since start: it is never written
// again.
func (tr *stackTrie) carved(start int) string {
	return unsafe.String(&tr.text[start], len(tr.text)-start)
}

// each yields n's children.
func (n *stackNode) each(yield func(*stackNode) bool) {
	if n.children == nil {
		if n.last != nil {
			yield(n.last)
		}
		return
	}
	for _, c := range n.children {
		for ; c != nil; c = c.sibling {
			if !yield(c) {
				return
			}
		}
	}
}

// add adds a child of n for frame f, a call site no child of n has, and
// returns it; children are indexed by function from the second one on.
func (n *stackNode) add(f *stack.Frame, tr *stackTrie) *stackNode {
	c := &stackNode{frame: f, fn: f.Func, inlined: f.Inlined, native: f.Native,
		plain: !strings.Contains(f.Func, " ") && !strings.HasPrefix(f.Func, "PC="), join: tr.joinOf(n, f.Func)}
	switch {
	case n.children != nil:
		c.sibling = n.children[f.Func]
		n.children[f.Func] = c
	case n.last != nil: // a second child: index them
		n.children = map[string]*stackNode{n.last.fn: n.last}
		c.sibling = n.children[f.Func]
		n.children[f.Func] = c
	}
	return c
}

// child returns the child of n that calls the function name, the newest
// call site of it when there are more (the others are chained by
// sibling), or nil.
func (n *stackNode) child(name []byte) *stackNode {
	if n.children != nil {
		return n.children[string(name)]
	}
	if l := n.last; l != nil && l.fn == string(name) {
		return l
	}
	return nil
}

// calledBy reports whether win starts with a call of n's function, n a
// node wholeFrame may take: its name, then '('.
func (n *stackNode) calledBy(win []byte) bool {
	return n != nil && n.whole && len(n.fn) < len(win) && win[len(n.fn)] == '(' && string(win[:len(n.fn)]) == n.fn
}
