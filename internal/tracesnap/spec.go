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

// specs is indexed by event type; a type it has no timed spec for is not
// a timed event. (A literal, not built by a function: nothing runs at
// init, and a program that never decodes a trace links none of it.)
var specs = [numSpecs]spec{
	evProcsChange:         {timed: true, nargs: 3, stack: 2},
	evProcStart:           {timed: true, nargs: 3},
	evProcStop:            {timed: true, nargs: 1},
	evProcSteal:           {timed: true, nargs: 4},
	evProcStatus:          {timed: true, nargs: 3},
	evGoCreate:            {timed: true, nargs: 4, stack: 3, stack2: 2},
	evGoCreateSyscall:     {timed: true, nargs: 2},
	evGoStart:             {timed: true, nargs: 3},
	evGoDestroy:           {timed: true, nargs: 1},
	evGoDestroySyscall:    {timed: true, nargs: 1},
	evGoStop:              {timed: true, nargs: 3, stack: 2, strings: [2]uint8{1}},
	evGoBlock:             {timed: true, nargs: 3, stack: 2, strings: [2]uint8{1}},
	evGoUnblock:           {timed: true, nargs: 4, stack: 3},
	evGoSyscallBegin:      {timed: true, nargs: 3, stack: 2},
	evGoSyscallEnd:        {timed: true, nargs: 1},
	evGoSyscallEndBlocked: {timed: true, nargs: 1},
	evGoStatus:            {timed: true, nargs: 4},
	evSTWBegin:            {timed: true, nargs: 3, stack: 2, strings: [2]uint8{1}},
	evSTWEnd:              {timed: true, nargs: 1},
	evGCActive:            {timed: true, nargs: 2},
	evGCBegin:             {timed: true, nargs: 3, stack: 2},
	evGCEnd:               {timed: true, nargs: 2},
	evGCSweepActive:       {timed: true, nargs: 2},
	evGCSweepBegin:        {timed: true, nargs: 2, stack: 1},
	evGCSweepEnd:          {timed: true, nargs: 3},
	evGCMarkAssistActive:  {timed: true, nargs: 2},
	evGCMarkAssistBegin:   {timed: true, nargs: 2, stack: 1},
	evGCMarkAssistEnd:     {timed: true, nargs: 1},
	evHeapAlloc:           {timed: true, nargs: 2},
	evHeapGoal:            {timed: true, nargs: 2},
	evGoLabel:             {timed: true, nargs: 2, strings: [2]uint8{1}},
	evUserTaskBegin:       {timed: true, nargs: 5, stack: 4, strings: [2]uint8{3}},
	evUserTaskEnd:         {timed: true, nargs: 3, stack: 2},
	evUserRegionBegin:     {timed: true, nargs: 4, stack: 3, strings: [2]uint8{2}},
	evUserRegionEnd:       {timed: true, nargs: 4, stack: 3, strings: [2]uint8{2}},
	evUserLog:             {timed: true, nargs: 5, stack: 4, strings: [2]uint8{2, 3}},
	evGoSwitch:            {timed: true, nargs: 3},
	evGoSwitchDestroy:     {timed: true, nargs: 3},
	evGoCreateBlocked:     {timed: true, nargs: 4, stack: 3, stack2: 2},
	evGoStatusStack:       {timed: true, nargs: 5, stack: 4},
	evClockSnapshot:       {timed: true, nargs: 4},
	evSpan:                {timed: true, nargs: 4},
	evSpanAlloc:           {timed: true, nargs: 4},
	evSpanFree:            {timed: true, nargs: 2},
	evHeapObject:          {timed: true, nargs: 3},
	evHeapObjectAlloc:     {timed: true, nargs: 3},
	evHeapObjectFree:      {timed: true, nargs: 2},
	evGoroutineStack:      {timed: true, nargs: 3},
	evGoroutineStackAlloc: {timed: true, nargs: 3},
	evGoroutineStackFree:  {timed: true, nargs: 2},
}

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
