// Package pprof reads and writes goroutine profiles in pprof's protobuf form
// (stack.KindGoPprof): what /debug/pprof/goroutine?debug=0 serves and
// runtime/pprof writes, gzipped or not, and what `go tool pprof`,
// speedscope, Grafana and Parca read.
//
// A [Reader] turns a profile into one dump with one routine per sample,
// standing for its count of goroutines (Routine.Count), with the sample's
// labels; a profile of something else than goroutines is refused with
// stack.ErrNotGoroutineProfile, and errors name the byte offset of the
// field at fault. [NewEncoder] writes a dump of any format as a profile:
// one sample per distinct stack, state, label set and wait bucket, with
// the goroutine's state as the `state` label and, when the dump has wait
// times, a `wait` label (`<1m`, `1-10m`, `10-60m`, `>=1h`) that the
// Reader turns back into WaitMinutes (docs/profiles.md). A profile stands
// for one moment of one process: a second dump is refused with
// stack.ErrOneDumpPerProfile.
//
//	rd := pprof.NewReader(f, pprof.ReadOptions{})
//	d, err := rd.Next()
//	if err != nil {
//		return err
//	}
//	for r, err := range rd.Routines() {
//		if err == nil {
//			fmt.Println(r.Count, r.State, r.Stack.Frames[0].Func)
//		}
//	}
//	_ = d
//
// The protobuf is decoded and encoded by stackdump's own codec of
// profile.proto on the standard library (internal/profilepb), so a
// service that serves profiles links no google/pprof code. Package
// formats reads this form among all others, sniffed.
package pprof
