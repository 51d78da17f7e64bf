package tracesnap

// Wire event types of trace version go 1.26 (x/exp/trace/internal/tracev2
// events.go), as numbered on the wire.
const (
	evNone = iota
	evEventBatch
	evStacks
	evStack
	evStrings
	evString
	evCPUSamples
	evCPUSample
	evFrequency
	evProcsChange
	evProcStart
	evProcStop
	evProcSteal
	evProcStatus
	evGoCreate
	evGoCreateSyscall
	evGoStart
	evGoDestroy
	evGoDestroySyscall
	evGoStop
	evGoBlock
	evGoUnblock
	evGoSyscallBegin
	evGoSyscallEnd
	evGoSyscallEndBlocked
	evGoStatus
	evSTWBegin
	evSTWEnd
	evGCActive
	evGCBegin
	evGCEnd
	evGCSweepActive
	evGCSweepBegin
	evGCSweepEnd
	evGCMarkAssistActive
	evGCMarkAssistBegin
	evGCMarkAssistEnd
	evHeapAlloc
	evHeapGoal
	evGoLabel
	evUserTaskBegin
	evUserTaskEnd
	evUserRegionBegin
	evUserRegionEnd
	evUserLog
	evGoSwitch
	evGoSwitchDestroy
	evGoCreateBlocked
	evGoStatusStack
	evExperimentalBatch
	evSync
	evClockSnapshot
	evEndOfGeneration
)

// Experimental events (the AllocFree experiment), timed like the others.
const (
	evSpan = 128 + iota
	evSpanAlloc
	evSpanFree
	evHeapObject
	evHeapObjectAlloc
	evHeapObjectFree
	evGoroutineStack
	evGoroutineStackAlloc
	evGoroutineStackFree
	numSpecs // the length of x/exp's spec table: types at or past it are invalid
)

// Wire limits (tracev2 spec.go).
const (
	maxBatchSize      = 64 << 10
	maxFramesPerStack = 128
	maxStringSize     = 1 << 10
)

// spec is what the decoder needs to know about a timed event type: how many
// arguments follow the type byte (the timestamp delta included), which of
// them (1-based, the delta being 0) is the event's own stack and which are
// string ids, all as in tracev2's specs.
type spec struct {
	timed   bool
	nargs   uint8 // including the timestamp delta
	stack   uint8 // argument index of the event's stack id, 0 when none
	stack2  uint8 // a second stack id (GoCreate's new goroutine's), 0 when none
	strings [2]uint8
}

var specs = func() [numSpecs]spec {
	var s [numSpecs]spec
	t := func(ev int, nargs, stack, stack2 uint8, strs ...uint8) {
		s[ev] = spec{timed: true, nargs: nargs, stack: stack, stack2: stack2}
		copy(s[ev].strings[:], strs)
	}
	t(evProcsChange, 3, 2, 0)
	t(evProcStart, 3, 0, 0)
	t(evProcStop, 1, 0, 0)
	t(evProcSteal, 4, 0, 0)
	t(evProcStatus, 3, 0, 0)
	t(evGoCreate, 4, 3, 2)
	t(evGoCreateSyscall, 2, 0, 0)
	t(evGoStart, 3, 0, 0)
	t(evGoDestroy, 1, 0, 0)
	t(evGoDestroySyscall, 1, 0, 0)
	t(evGoStop, 3, 2, 0, 1)
	t(evGoBlock, 3, 2, 0, 1)
	t(evGoUnblock, 4, 3, 0)
	t(evGoSyscallBegin, 3, 2, 0)
	t(evGoSyscallEnd, 1, 0, 0)
	t(evGoSyscallEndBlocked, 1, 0, 0)
	t(evGoStatus, 4, 0, 0)
	t(evSTWBegin, 3, 2, 0, 1)
	t(evSTWEnd, 1, 0, 0)
	t(evGCActive, 2, 0, 0)
	t(evGCBegin, 3, 2, 0)
	t(evGCEnd, 2, 0, 0)
	t(evGCSweepActive, 2, 0, 0)
	t(evGCSweepBegin, 2, 1, 0)
	t(evGCSweepEnd, 3, 0, 0)
	t(evGCMarkAssistActive, 2, 0, 0)
	t(evGCMarkAssistBegin, 2, 1, 0)
	t(evGCMarkAssistEnd, 1, 0, 0)
	t(evHeapAlloc, 2, 0, 0)
	t(evHeapGoal, 2, 0, 0)
	t(evGoLabel, 2, 0, 0, 1)
	t(evUserTaskBegin, 5, 4, 0, 3)
	t(evUserTaskEnd, 3, 2, 0)
	t(evUserRegionBegin, 4, 3, 0, 2)
	t(evUserRegionEnd, 4, 3, 0, 2)
	t(evUserLog, 5, 4, 0, 2, 3)
	t(evGoSwitch, 3, 0, 0)
	t(evGoSwitchDestroy, 3, 0, 0)
	t(evGoCreateBlocked, 4, 3, 2)
	t(evGoStatusStack, 5, 4, 0)
	t(evClockSnapshot, 4, 0, 0)
	for ev := evSpan; ev <= evGoroutineStackFree; ev++ {
		n := uint8(4)
		switch ev {
		case evSpanFree, evHeapObjectFree, evGoroutineStackFree:
			n = 2
		case evHeapObject, evHeapObjectAlloc, evGoroutineStack, evGoroutineStackAlloc:
			n = 3
		}
		t(ev, n, 0, 0)
	}
	return s
}()

// Wire goroutine statuses (tracev2.GoStatus) and proc statuses
// (tracev2.ProcStatus).
const (
	wireGoBad = iota
	wireGoRunnable
	wireGoRunning
	wireGoSyscall
	wireGoWaiting
	numWireGoStatus
)

const (
	procBad = iota
	procRunning
	procIdle
	procSyscall
	procSyscallAbandoned
	numProcStatus
)
