package pprof

import (
	"encoding/binary"
	"io"
	"sort"

	"slices"

	"github.com/stackdump/stackdump/formats/internal/aggregate"
	"github.com/stackdump/stackdump/internal/profilepb"
	"github.com/stackdump/stackdump/stack"
)

// pprofEncoder writes a dump as a pprof goroutine profile, the form of
// /debug/pprof/goroutine (debug=0), for `go tool pprof`, speedscope and
// every other pprof consumer: sample type goroutine/count (goroutineleak/count
// when every routine is Leaked, thread/count for JVM dumps), one sample per
// distinct (stack, state, labels, wait bucket) whose value is the goroutine
// count, the program's pprof labels as string sample labels, the state as
// the sample label "state" ("goroutine_state" if the program has a label
// named "state"), and, when the dump carries wait times (pprofWaitsKnown),
// how long the goroutines have been blocked as the sample label "wait"
// (likewise "goroutine_wait"): one of four buckets, "<1m", "1-10m",
// "10-60m" and ">=1h", so that profile stores see a handful of label
// values, never goroutine ids or minutes. stackdump's reader turns the
// state label back into the State and the wait bucket into the
// WaitMinutes it starts at. Profile comments name those labels; the dump's
// Preamble (panic values, fatal errors) follows as comments, except for
// JVM dumps, whose preamble is the JVM's deadlock report: it describes
// threads, not the profile.
//
// Functions and locations are shared between samples: one Function per
// (name, file), one Location per run of frames that were inlined into one
// another (Frame.Inlined), at the frames' PC when known. pprof has no field
// for function offsets, ids, wait times or creators; they are left out.
//
// The profile is written uncompressed (profilepb.Profile.Marshal) at
// EndDump; compression is the Output's job (`-o goroutines.pb.gz`).
type pprofEncoder struct {
	w     io.Writer
	agg   *aggregate.Routines
	dumps int
}

func newPprofEncoder(w io.Writer) stack.Encoder {
	return &pprofEncoder{w: w, agg: aggregate.New(true)}
}

// BeginDump starts the profile; a second dump is an error.
func (e *pprofEncoder) BeginDump(*stack.Dump) error {
	if e.dumps > 0 {
		return stack.ErrOneDumpPerProfile
	}
	e.dumps++
	e.agg.Reset()
	return nil
}

// WriteRoutine counts r in its sample.
func (e *pprofEncoder) WriteRoutine(r *stack.Routine) error {
	e.agg.Add(r)
	return nil
}

// EndDump builds and writes the profile.
func (e *pprofEncoder) EndDump(d *stack.Dump) error {
	name := "goroutine"
	jvm := d.Source.Kind == stack.KindJVMText || d.Source.Kind == stack.KindJVMJSON
	switch {
	case jvm:
		name = "thread"
	case e.agg.AllLeaked():
		name = "goroutineleak"
	}
	b := newPprofBuilder(name, e.freeKey("state"))
	waits := pprofWaitsKnown(d, e.agg) && len(e.agg.Entries) > 0
	if waits {
		b.waitKey = e.freeKey("wait")
	}
	if !d.Source.CapturedAt.IsZero() {
		b.p.TimeNanos = d.Source.CapturedAt.UnixNano()
	}
	states := false
	for _, ent := range e.agg.Entries {
		states = b.addSample(ent) || states
	}
	if states {
		b.p.Comments = append(b.p.Comments, pprofStateComment(b.stateKey))
	}
	if waits {
		b.p.Comments = append(b.p.Comments, pprofWaitComment(b.waitKey))
	}
	if !jvm {
		b.p.Comments = append(b.p.Comments, d.Preamble...)
	}
	_, err := e.w.Write(b.p.Marshal())
	return err
}

// freeKey picks the sample label for base ("state", "wait"): base, unless
// a program label has that name, then "goroutine_"+base, and so on.
func (e *pprofEncoder) freeKey(base string) string {
	key := base
	for taken := true; taken; {
		taken = false
		for _, ent := range e.agg.Entries {
			if _, ok := ent.Labels.Get(key); ok {
				taken = true
				key = "goroutine_" + key
				break
			}
		}
	}
	return key
}

// pprofBuilder builds a profile with shared functions and locations.
type pprofBuilder struct {
	p      *profilepb.Profile
	funcs  map[pprofFuncKey]*profilepb.Function
	locs   map[string]*profilepb.Location
	frames map[*stack.Frame]uint64 // a number per distinct frame, for location keys
	key    []byte

	stateKey string // the sample label for states
	waitKey  string // the sample label for wait buckets; "" for none
}

type pprofFuncKey struct{ name, file string }

func newPprofBuilder(name, stateKey string) *pprofBuilder {
	vt := profilepb.ValueType{Type: name, Unit: "count"}
	// One mapping that says the locations are symbolized already, so that
	// pprof does not look for the binary to symbolize them.
	m := &profilepb.Mapping{ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	return &pprofBuilder{
		p: &profilepb.Profile{
			SampleType: []profilepb.ValueType{vt}, PeriodType: vt, Period: 1,
			Mapping: []*profilepb.Mapping{m},
		},
		funcs:    make(map[pprofFuncKey]*profilepb.Function),
		locs:     make(map[string]*profilepb.Location),
		frames:   make(map[*stack.Frame]uint64),
		stateKey: stateKey,
	}
}

// addSample adds the entry's sample and reports whether it has a state
// label.
func (b *pprofBuilder) addSample(e *aggregate.Entry) (hasState bool) {
	s := &profilepb.Sample{Value: []int64{e.Count}}
	frames := e.Frames()
	for i := 0; i < len(frames); {
		// A location holds a frame and the frames inlined into it.
		j := i
		for j < len(frames)-1 && frames[j].Inlined {
			j++
		}
		s.Location = append(s.Location, b.location(e, i, j+1))
		i = j + 1
	}
	for _, l := range e.Labels {
		s.Label = append(s.Label, profilepb.Label{Key: l.Key, Str: l.Value})
	}
	if e.State != "" {
		s.Label = append(s.Label, profilepb.Label{Key: b.stateKey, Str: e.State})
		hasState = true
	}
	if b.waitKey != "" {
		s.Label = append(s.Label, profilepb.Label{Key: b.waitKey, Str: e.Wait.String()})
	}
	// By key, each key's values in order, as google/pprof/profile writes
	// them. A label whose value is empty says nothing (profile.proto's
	// str 0), as before.
	s.Label = slices.DeleteFunc(s.Label, func(l profilepb.Label) bool { return l.Str == "" })
	sort.SliceStable(s.Label, func(i, j int) bool { return s.Label[i].Key < s.Label[j].Key }) // not generic: smaller
	b.p.Sample = append(b.p.Sample, s)
	return hasState
}

// location returns the shared location of frames [i, j) of e: frame j-1
// and the frames inlined into it, at the PC of frame j-1 when known.
func (b *pprofBuilder) location(e *aggregate.Entry, i, j int) *profilepb.Location {
	frames := e.Frames()
	var addr uint64
	for k := j - 1; k >= i && addr == 0; k-- {
		addr = e.PC(k)
	}
	key := binary.AppendUvarint(b.key[:0], addr)
	for _, f := range frames[i:j] {
		n, ok := b.frames[f]
		if !ok {
			n = uint64(len(b.frames) + 1)
			b.frames[f] = n
		}
		key = binary.AppendUvarint(key, n)
	}
	b.key = key
	if loc, ok := b.locs[string(key)]; ok {
		return loc
	}
	loc := &profilepb.Location{ID: uint64(len(b.p.Location) + 1), Address: addr, Mapping: b.p.Mapping[0]}
	for _, f := range frames[i:j] {
		if f.Func == "" && f.Native {
			continue // a PC without symbol: the address says it all
		}
		loc.Line = append(loc.Line, profilepb.Line{Function: b.function(f), Line: int64(f.Line)})
	}
	b.locs[string(key)] = loc
	b.p.Location = append(b.p.Location, loc)
	return loc
}

// function returns the shared function of f.
func (b *pprofBuilder) function(f *stack.Frame) *profilepb.Function {
	k := pprofFuncKey{f.Func, f.File}
	if fn, ok := b.funcs[k]; ok {
		return fn
	}
	fn := &profilepb.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Func, SystemName: f.Func, Filename: f.File}
	b.funcs[k] = fn
	b.p.Function = append(b.p.Function, fn)
	return fn
}
