// Package layers holds the tests that keep the package graph as
// ARCHITECTURE.md draws it: the leaves (the model, the Go traceback codec,
// leakcheck) link the standard library and the few packages of this
// module they need, no codec imports another or the door, and the
// in-process capture links only the codecs a service serves dumps with.
// And the modules: the library's go.mod declares the oldest Go it
// supports and requires only what its packages link and named test
// references, each at a version whose go line is no newer, so that a
// service or a test suite importing it keeps its go line and every
// version it had (modules_test.go, with real importers tidied through the
// module proxy).
package layers
