//go:build goleak

package compat

import (
	"time"

	lib "go.uber.org/goleak"
)

// impl names the leak checker under test.
const impl = "goleak"

// panicsOnNilTB: goleak calls Helper on any TestingT that has it, so a
// fake embedding a nil testing.TB panics there.
const panicsOnNilTB = true

// goleak's API.
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

// fastSleep: goleak v1.3.0 exports no sleep option; its default (sleeps
// doubling from 1µs to 100ms, 20 retries) is used, so failing checks take
// about half a second each.
func fastSleep(time.Duration) Option {
	return lib.IgnoreTopFunction("compat: no function has this name")
}

// runOnFailureOrNothing is RunOnFailure where the implementation has it:
// goleak v1.3.0 has not.
func runOnFailureOrNothing() []Option { return nil }
