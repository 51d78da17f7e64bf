// Package compat holds leakcheck's compatibility tests with goleak, in a
// module of its own so that goleak stays out of stackdump's go.mod.
//
// The tests of this package are written against goleak's API through the
// names impl_leakcheck_test.go (the default) and impl_goleak_test.go
// (`go test -tags goleak`) bind, so each expectation runs against both
// leakcheck and go.uber.org/goleak v1.3.0: a test that passes with the tag
// shows that its expectation is goleak's behaviour. Where leakcheck
// deliberately differs, the test says so through the consts those files
// set. suite_test.go runs goleak v1.3.0's own tests, taken from the module
// cache, against leakcheck through a shim (see docs/leaks.md).
package compat
