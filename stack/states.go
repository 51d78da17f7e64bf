package stack

// States the JVM text reader gives threads that HotSpot prints without a
// java.lang.Thread.State line, so that every thread of a dump is counted
// under a state and the counts add up to the total. The text writer
// prints them back as HotSpot does: without a state line.
const (
	// StateVMThread is the state of a JVM-internal thread (VM Thread, GC
	// and compiler threads, Thread.Native): no Java stack and no state.
	StateVMThread = "VM thread"
	// StateCarrier is the state of a carrier thread whose block says
	// "Carrying virtual thread #N" instead of a state (JDK 21+).
	StateCarrier = "carrying virtual thread"
	// StateMounted is the state of the virtual thread a carrier's block
	// names ("Mounted virtual thread #N", JDK 24+): running on its carrier.
	StateMounted = "mounted virtual thread"
)
