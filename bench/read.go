package bench

import (
	"fmt"
	"io"

	"github.com/DataDog/gostackparse"
	ppstack "github.com/maruel/panicparse/v2/stack"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// Result is what a parser found in a dump. Sum folds every field a parser
// returned into one number, so that reading them cannot be optimised away
// and every parser pays for touching what it produced.
type Result struct {
	Goroutines int
	Frames     int
	Errors     int // goroutines or lines the parser reported as bad
	Sum        uint64
}

// Parser reads a whole dump and touches every field of every goroutine.
type Parser struct {
	Name string
	Read func(io.Reader) (Result, error)
}

// Parsers are the contestants, stackdump first. "stackdump" is the
// streaming mode every stackdump pipeline (convert, capture, group) reads
// with; "stackdump-fresh" is the default mode, in which each routine is a
// new allocation the caller may keep (formats.ReadAll).
var Parsers = []Parser{
	{"stackdump", ReadStackdump},
	{"gostackparse", ReadGostackparse},
	{"panicparse", ReadPanicparse},
	{"stackdump-fresh", ReadStackdumpFresh},
}

// ReadStackdump streams the dump with formats.NewReader in its streaming
// mode (ReadOptions.ReuseRoutines), one routine at a time, and drops each
// routine after touching it.
func ReadStackdump(r io.Reader) (Result, error) {
	return readStackdump(r, formats.ReadOptions{ReuseRoutines: true})
}

// ReadStackdumpFresh is ReadStackdump with a new routine per goroutine.
func ReadStackdumpFresh(r io.Reader) (Result, error) {
	return readStackdump(r, formats.ReadOptions{})
}

func readStackdump(r io.Reader, opts formats.ReadOptions) (Result, error) {
	var res Result
	rd := formats.NewReader(r, opts)
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("stackdump: %w", err)
		}
		for rt, err := range rd.Routines() {
			if err != nil {
				res.Errors++
				continue
			}
			res.Goroutines++
			res.Frames += len(rt.Stack.Frames)
			res.Sum += touchRoutine(rt)
		}
	}
}

func touchRoutine(rt *stack.Routine) uint64 {
	s := uint64(rt.ID) + uint64(rt.Count) + uint64(len(rt.Name)) + uint64(len(rt.State)) +
		uint64(rt.WaitMinutes) + b2u(rt.Locked) + b2u(rt.Leaked) + b2u(rt.Durable) + b2u(rt.Scan) +
		uint64(rt.Bubble) + rt.GP + rt.MP + uint64(rt.M) + b2u(rt.HasGP) + uint64(rt.ParentID) +
		b2u(rt.Unavailable) + uint64(rt.Line) + uint64(len(rt.Inferred)) + b2u(rt.Stale)
	for _, l := range rt.Labels {
		s += uint64(len(l.Key) + len(l.Value))
	}
	if rt.CreatedBy != nil {
		s += touchFrame(rt.CreatedBy)
	}
	if rt.CreatedByValues != nil {
		s += rt.CreatedByValues.PC
	}
	s += touchStack(rt.Stack, rt.Values)
	for _, a := range rt.Ancestors {
		s += uint64(a.ID) + touchStack(a.Stack, a.Values)
	}
	return s
}

func touchStack(st *stack.Stack, vs *stack.FrameValues) uint64 {
	var s uint64
	if st != nil {
		s += uint64(st.ID) + uint64(st.ElidedCount) + uint64(st.ElidedAt) + b2u(st.Elided)
		for _, f := range st.Frames {
			s += touchFrame(f)
		}
	}
	if vs != nil {
		for _, v := range vs.Frames {
			s += uint64(len(v.Args)) + v.FP + v.SP + v.PC + uint64(len(v.Locks))
		}
	}
	return s
}

func touchFrame(f *stack.Frame) uint64 {
	return uint64(len(f.Func)+len(f.File)+f.Line+len(f.Module)) + f.Offset + b2u(f.HasOffset) + b2u(f.Inlined) + b2u(f.Native)
}

// ReadGostackparse parses the dump with gostackparse.Parse, which returns
// every goroutine at once.
func ReadGostackparse(r io.Reader) (Result, error) {
	gs, errs := gostackparse.Parse(r)
	res := Result{Goroutines: len(gs), Errors: len(errs)}
	for _, g := range gs {
		for ; g != nil; g = g.Ancestor {
			res.Sum += uint64(g.ID) + uint64(len(g.State)) + uint64(g.Wait) + b2u(g.LockedToThread) + b2u(g.FramesElided)
			res.Frames += len(g.Stack)
			for _, f := range g.Stack {
				res.Sum += uint64(len(f.Func) + len(f.File) + f.Line)
			}
			if f := g.CreatedBy; f != nil {
				res.Sum += uint64(len(f.Func) + len(f.File) + f.Line)
			}
		}
	}
	return res, nil
}

// ReadPanicparse parses the dump with ppstack.ScanSnapshot and zero Opts:
// parsing only, without ppstack.DefaultOpts' argument naming (quadratic),
// GOROOT/GOPATH guessing (disk scans) or source analysis.
func ReadPanicparse(r io.Reader) (Result, error) {
	snap, err := ScanPanicparse(r)
	if err != nil {
		return Result{}, err
	}
	res := Result{Goroutines: len(snap.Goroutines)}
	for _, g := range snap.Goroutines {
		res.Sum += uint64(g.ID) + b2u(g.First) + b2u(g.RaceWrite) + g.RaceAddr +
			uint64(len(g.State)) + uint64(g.SleepMin+g.SleepMax) + b2u(g.Locked)
		res.Frames += len(g.Stack.Calls)
		res.Sum += touchCalls(g.Stack) + touchCalls(g.CreatedBy)
	}
	return res, nil
}

// ScanPanicparse reads one snapshot with panicparse, junk discarded.
func ScanPanicparse(r io.Reader) (*ppstack.Snapshot, error) {
	snap, _, err := ppstack.ScanSnapshot(r, io.Discard, &ppstack.Opts{})
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("panicparse: %w", err)
	}
	if snap == nil {
		return nil, fmt.Errorf("panicparse: no goroutines found")
	}
	return snap, nil
}

func touchCalls(st ppstack.Stack) uint64 {
	s := b2u(st.Elided)
	for i := range st.Calls {
		c := &st.Calls[i]
		s += uint64(len(c.Func.Complete)+len(c.Func.ImportPath)+len(c.Func.DirName)+len(c.Func.Name)) +
			b2u(c.Func.IsExported) + b2u(c.Func.IsPkgMain) +
			uint64(len(c.RemoteSrcPath)+c.Line+len(c.SrcName)+len(c.DirSrc)) + touchArgs(&c.Args)
	}
	return s
}

func touchArgs(a *ppstack.Args) uint64 {
	s := b2u(a.Elided) + uint64(len(a.Processed))
	for i := range a.Values {
		v := &a.Values[i]
		s += v.Value + uint64(len(v.Name)) + b2u(v.IsPtr) + b2u(v.IsAggregate) + b2u(v.IsOffsetTooLarge) + b2u(v.IsInaccurate)
		if v.IsAggregate {
			s += touchArgs(&v.Fields)
		}
	}
	return s
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
