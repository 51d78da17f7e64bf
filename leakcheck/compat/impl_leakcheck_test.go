//go:build !goleak

package compat

import lib "github.com/stackdump/stackdump/leakcheck"

// impl names the leak checker under test.
const impl = "leakcheck"

// panicsOnNilTB: goleak calls Helper on any TestingT that has it, so a
// fake embedding a nil testing.TB panics there; leakcheck does not.
const panicsOnNilTB = false

// goleak's API, bound to leakcheck.
type (
	TestingT = lib.TestingT
	TestingM = lib.TestingM
	Option   = lib.Option
)

var (
	Find              = lib.Find
	VerifyNone        = lib.VerifyNone
	VerifyTestMain    = lib.VerifyTestMain
	IgnoreCurrent     = lib.IgnoreCurrent
	IgnoreTopFunction = lib.IgnoreTopFunction
	IgnoreAnyFunction = lib.IgnoreAnyFunction
	Cleanup           = lib.Cleanup
)

// Beyond goleak v1.3.0: goleak's main branch (no release yet).
var (
	RunOnFailure    = lib.RunOnFailure
	IgnoreCreatedBy = lib.IgnoreCreatedBy
)

// fastSleep keeps failing checks short: goleak's tests use their
// package's unexported maxSleep for this, leakcheck has MaxSleep.
var fastSleep = lib.MaxSleep

// runOnFailureOrNothing is RunOnFailure where the implementation has it.
func runOnFailureOrNothing() []Option { return []Option{RunOnFailure()} }
