// Package layers holds the test that keeps the package graph as
// ARCHITECTURE.md draws it: the leaves (the model, the Go traceback codec,
// leakcheck) link the standard library and the few packages of this
// module they need, no codec imports another or the door, and the
// in-process capture links only the codecs a service serves dumps with.
package layers
