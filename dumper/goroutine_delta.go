package dumper

import (
	"encoding/binary"
	"errors"
	"slices"
	"sort"

	"github.com/stackdump/stackdump/internal/profilepb"
)

// goroutineDelta returns after minus before, the profile net/http/pprof
// serves for ?seconds=N: what profile.Merge of before scaled by -1 and
// after gives, without linking google/pprof/profile. Samples are matched
// by their stacks — each location's mapping, address within it and
// lines (function name, system name, file, start line, line, column) —
// and labels; their values are subtracted and the samples that come to
// zero dropped, with the locations, functions and mappings only they
// used. The header is Merge's: before's sample and period types, the
// larger period, the comments of both once each. The caller sets
// TimeNanos and DurationNanos.
func goroutineDelta(before, after *profilepb.Profile) (*profilepb.Profile, error) {
	if before.PeriodType != after.PeriodType {
		return nil, errors.New("incompatible period types " + valueTypeText(before.PeriodType) + " and " + valueTypeText(after.PeriodType))
	}
	if !slices.Equal(before.SampleType, after.SampleType) {
		return nil, errors.New("incompatible sample types")
	}
	m := newDeltaMerger(before, after)
	m.add(before, -1)
	m.add(after, 1)
	if slices.ContainsFunc(m.out.Sample, zeroSample) {
		// Merge once more without them, as profile.Merge does, so that
		// what only they used goes too.
		m.out.Sample = slices.DeleteFunc(m.out.Sample, zeroSample)
		again := newDeltaMerger(m.out)
		again.add(m.out, 1)
		return again.out, nil
	}
	return m.out, nil
}

func valueTypeText(vt profilepb.ValueType) string { return vt.Type + "/" + vt.Unit }

func zeroSample(s *profilepb.Sample) bool {
	for _, v := range s.Value {
		if v != 0 {
			return false
		}
	}
	return true
}

// deltaMerger sums samples of profiles into one, sharing the locations,
// functions and mappings that are the same.
type deltaMerger struct {
	out      *profilepb.Profile
	samples  map[string]*profilepb.Sample
	locs     map[string]*profilepb.Location
	funcs    map[profilepb.Function]*profilepb.Function // by Function with ID 0
	mappings map[deltaMappingKey]*profilepb.Mapping

	// For the profile being added: what its own entities became.
	srcLocs     map[*profilepb.Location]*profilepb.Location
	srcFuncs    map[*profilepb.Function]*profilepb.Function
	srcMappings map[*profilepb.Mapping]deltaMapping

	key, locKey []byte
	labels      []profilepb.Label
}

// deltaMapping is the merged mapping of a source one, and how far its
// addresses move (the same binary loaded elsewhere).
type deltaMapping struct {
	m      *profilepb.Mapping
	offset uint64
}

// deltaMappingKey is what makes two mappings the same, as profile.Merge
// has it: the size rounded up to 4 KiB, the file offset, the build id
// or else the file.
type deltaMappingKey struct {
	size, offset  uint64
	buildIDOrFile string
}

// newDeltaMerger returns a merger into a profile with the header of
// srcs merged.
func newDeltaMerger(srcs ...*profilepb.Profile) *deltaMerger {
	first := srcs[0]
	out := &profilepb.Profile{
		SampleType: slices.Clone(first.SampleType),
		DropFrames: first.DropFrames, KeepFrames: first.KeepFrames,
		PeriodType: first.PeriodType,
	}
	seen := map[string]bool{}
	for _, p := range srcs {
		if out.TimeNanos == 0 || p.TimeNanos < out.TimeNanos {
			out.TimeNanos = p.TimeNanos
		}
		out.DurationNanos += p.DurationNanos
		out.Period = max(out.Period, p.Period)
		for _, c := range p.Comments {
			if !seen[c] {
				seen[c] = true
				out.Comments = append(out.Comments, c)
			}
		}
		if out.DefaultSampleType == "" {
			out.DefaultSampleType = p.DefaultSampleType
		}
		if out.DocURL == "" {
			out.DocURL = p.DocURL
		}
	}
	return &deltaMerger{
		out:      out,
		samples:  make(map[string]*profilepb.Sample),
		locs:     make(map[string]*profilepb.Location),
		funcs:    make(map[profilepb.Function]*profilepb.Function),
		mappings: make(map[deltaMappingKey]*profilepb.Mapping),
	}
}

// add adds the samples of src, their values times sign; samples whose
// values are all zero stand for nothing and are skipped.
func (m *deltaMerger) add(src *profilepb.Profile, sign int64) {
	m.srcLocs = make(map[*profilepb.Location]*profilepb.Location, len(src.Location))
	m.srcFuncs = make(map[*profilepb.Function]*profilepb.Function, len(src.Function))
	m.srcMappings = make(map[*profilepb.Mapping]deltaMapping, len(src.Mapping))
	if len(m.out.Mapping) == 0 && len(src.Mapping) > 0 {
		m.mapping(src.Mapping[0]) // the main binary stays first
	}
	for _, s := range src.Sample {
		if zeroSample(s) {
			continue
		}
		locs := make([]*profilepb.Location, len(s.Location))
		key := m.key[:0]
		for i, loc := range s.Location {
			locs[i] = m.location(loc)
			key = binary.AppendUvarint(key, locs[i].ID)
		}
		key = append(key, 0)
		key = m.appendLabelsKey(key, s.Label)
		m.key = key
		if ms, ok := m.samples[string(key)]; ok {
			for i, v := range s.Value {
				ms.Value[i] += sign * v
			}
			continue
		}
		ms := &profilepb.Sample{Location: locs, Value: make([]int64, len(s.Value)), Label: slices.Clone(s.Label)}
		for i, v := range s.Value {
			ms.Value[i] = sign * v
		}
		m.samples[string(key)] = ms
		m.out.Sample = append(m.out.Sample, ms)
	}
}

// appendLabelsKey appends what identifies a label set: the string
// labels, then the numeric ones, each sorted by key, each key's values in
// order.
func (m *deltaMerger) appendLabelsKey(key []byte, ls []profilepb.Label) []byte {
	m.labels = append(m.labels[:0], ls...)
	ls = m.labels
	sort.SliceStable(ls, func(i, j int) bool { // not generic: smaller
		if ls[i].IsString() != ls[j].IsString() {
			return ls[i].IsString()
		}
		return ls[i].Key < ls[j].Key
	})
	for _, l := range m.labels {
		key = appendKeyString(key, l.Key)
		if l.IsString() {
			key = append(key, 's')
			key = appendKeyString(key, l.Str)
			continue
		}
		key = append(key, 'n')
		key = binary.AppendUvarint(key, uint64(l.Num))
		key = appendKeyString(key, l.NumUnit)
	}
	return key
}

func appendKeyString(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}

// location returns the merged location of src.
func (m *deltaMerger) location(src *profilepb.Location) *profilepb.Location {
	if l, ok := m.srcLocs[src]; ok {
		return l
	}
	mi := m.mapping(src.Mapping)
	l := &profilepb.Location{Mapping: mi.m, Address: src.Address + mi.offset, IsFolded: src.IsFolded, Line: make([]profilepb.Line, len(src.Line))}
	for i, ln := range src.Line {
		l.Line[i] = profilepb.Line{Function: m.function(ln.Function), Line: ln.Line, Column: ln.Column}
	}
	key := m.locKey[:0]
	addr := l.Address
	if l.Mapping != nil {
		addr -= l.Mapping.Start
		key = binary.AppendUvarint(key, l.Mapping.ID)
	} else {
		key = append(key, 0)
	}
	key = binary.AppendUvarint(key, addr)
	if l.IsFolded {
		key = append(key, 1)
	} else {
		key = append(key, 0)
	}
	for _, ln := range l.Line {
		key = binary.AppendUvarint(key, ln.Function.ID)
		key = binary.AppendUvarint(key, uint64(ln.Line))
		key = binary.AppendUvarint(key, uint64(ln.Column))
	}
	m.locKey = key
	if same, ok := m.locs[string(key)]; ok {
		m.srcLocs[src] = same
		return same
	}
	l.ID = uint64(len(m.out.Location) + 1)
	m.locs[string(key)] = l
	m.srcLocs[src] = l
	m.out.Location = append(m.out.Location, l)
	return l
}

// function returns the merged function of src, which is never nil in a
// decoded profile.
func (m *deltaMerger) function(src *profilepb.Function) *profilepb.Function {
	if f, ok := m.srcFuncs[src]; ok {
		return f
	}
	k := *src
	k.ID = 0
	f, ok := m.funcs[k]
	if !ok {
		f = &profilepb.Function{ID: uint64(len(m.out.Function) + 1), Name: src.Name, SystemName: src.SystemName, Filename: src.Filename, StartLine: src.StartLine}
		m.funcs[k] = f
		m.out.Function = append(m.out.Function, f)
	}
	m.srcFuncs[src] = f
	return f
}

// mapping returns the merged mapping of src; none for nil.
func (m *deltaMerger) mapping(src *profilepb.Mapping) deltaMapping {
	if src == nil {
		return deltaMapping{}
	}
	if mi, ok := m.srcMappings[src]; ok {
		return mi
	}
	const rounding = 0x1000
	size := src.Limit - src.Start
	size = size + rounding - 1
	size -= size % rounding
	k := deltaMappingKey{size: size, offset: src.Offset, buildIDOrFile: src.BuildID}
	if k.buildIDOrFile == "" {
		k.buildIDOrFile = src.File
	}
	if same, ok := m.mappings[k]; ok {
		mi := deltaMapping{same, same.Start - src.Start}
		m.srcMappings[src] = mi
		return mi
	}
	mp := *src
	mp.ID = uint64(len(m.out.Mapping) + 1)
	m.mappings[k] = &mp
	m.out.Mapping = append(m.out.Mapping, &mp)
	mi := deltaMapping{m: &mp}
	m.srcMappings[src] = mi
	return mi
}
