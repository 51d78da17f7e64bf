// Package folded writes Brendan Gregg's folded stacks, the input of flame
// graph tools (flamegraph.pl, inferno, speedscope): one line per distinct
// stack, outermost frame first, with its count of goroutines.
//
//	main.startAll.func1.1;main.startAll.func11;sync.(*WaitGroup).Wait;sync.runtime_SemacquireWaitGroup 1
//
// [NewEncoder] writes one dump of any format; a second is refused with
// stack.ErrOneDumpPerProfile, since a flame graph stands for one moment of
// one process. There is no reader: folded stacks keep too little of a dump
// to read back.
//
//	if err := stack.WriteDump(folded.NewEncoder(w), d); err != nil {
//		return err
//	}
package folded
