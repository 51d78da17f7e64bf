package profilepb

import "encoding/binary"

// encoder builds a Profile message: the fields in profile.proto's order,
// as google/pprof/profile writes them, with the string table gathered on
// the way and written after the messages that refer to it.
type encoder struct {
	strs  map[string]uint64
	table []string
	buf   []byte // the message
	msg   []byte // a message being built, appended to buf whole
	inner []byte // a message inside msg (a location's line)
}

// Marshal returns p as an uncompressed Profile message. Locations,
// functions and mappings are referred to by their IDs, which must be
// unique and not zero (Decode's checks); a nil Location.Mapping or
// Line.Function is written as id 0.
func (p *Profile) Marshal() []byte {
	e := &encoder{strs: map[string]uint64{"": 0}, table: []string{""}}
	for _, st := range p.SampleType {
		e.valueType(1, st)
	}
	for _, s := range p.Sample {
		e.msg = e.msg[:0]
		if len(s.Location) > 2 {
			e.inner = e.inner[:0]
			for _, loc := range s.Location {
				e.inner = appendUvarint(e.inner, loc.ID)
			}
			e.msg = appendBytes(e.msg, 1, e.inner)
		} else {
			for _, loc := range s.Location {
				e.msg = appendVarint(e.msg, 1, loc.ID)
			}
		}
		if len(s.Value) > 2 {
			e.inner = e.inner[:0]
			for _, v := range s.Value {
				e.inner = appendUvarint(e.inner, uint64(v))
			}
			e.msg = appendBytes(e.msg, 2, e.inner)
		} else {
			for _, v := range s.Value {
				e.msg = appendVarint(e.msg, 2, uint64(v))
			}
		}
		for _, l := range s.Label {
			e.inner = e.inner[:0]
			e.inner = appendOpt(e.inner, 1, e.str(l.Key))
			if l.Str != "" {
				e.inner = appendOpt(e.inner, 2, e.str(l.Str))
			} else {
				e.inner = appendOpt(e.inner, 3, uint64(l.Num))
				e.inner = appendOpt(e.inner, 4, e.str(l.NumUnit))
			}
			e.msg = appendBytes(e.msg, 3, e.inner)
		}
		e.buf = appendBytes(e.buf, 2, e.msg)
	}
	for _, m := range p.Mapping {
		e.msg = e.msg[:0]
		e.msg = appendOpt(e.msg, 1, m.ID)
		e.msg = appendOpt(e.msg, 2, m.Start)
		e.msg = appendOpt(e.msg, 3, m.Limit)
		e.msg = appendOpt(e.msg, 4, m.Offset)
		e.msg = appendOpt(e.msg, 5, e.str(m.File))
		e.msg = appendOpt(e.msg, 6, e.str(m.BuildID))
		e.msg = appendOpt(e.msg, 7, boolValue(m.HasFunctions))
		e.msg = appendOpt(e.msg, 8, boolValue(m.HasFilenames))
		e.msg = appendOpt(e.msg, 9, boolValue(m.HasLineNumbers))
		e.msg = appendOpt(e.msg, 10, boolValue(m.HasInlineFrames))
		e.buf = appendBytes(e.buf, 3, e.msg)
	}
	for _, loc := range p.Location {
		e.msg = e.msg[:0]
		e.msg = appendOpt(e.msg, 1, loc.ID)
		if loc.Mapping != nil {
			e.msg = appendOpt(e.msg, 2, loc.Mapping.ID)
		}
		e.msg = appendOpt(e.msg, 3, loc.Address)
		for _, ln := range loc.Line {
			e.inner = e.inner[:0]
			if ln.Function != nil {
				e.inner = appendOpt(e.inner, 1, ln.Function.ID)
			}
			e.inner = appendOpt(e.inner, 2, uint64(ln.Line))
			e.inner = appendOpt(e.inner, 3, uint64(ln.Column))
			e.msg = appendBytes(e.msg, 4, e.inner)
		}
		e.msg = appendOpt(e.msg, 5, boolValue(loc.IsFolded))
		e.buf = appendBytes(e.buf, 4, e.msg)
	}
	for _, f := range p.Function {
		e.msg = e.msg[:0]
		e.msg = appendOpt(e.msg, 1, f.ID)
		e.msg = appendOpt(e.msg, 2, e.str(f.Name))
		e.msg = appendOpt(e.msg, 3, e.str(f.SystemName))
		e.msg = appendOpt(e.msg, 4, e.str(f.Filename))
		e.msg = appendOpt(e.msg, 5, uint64(f.StartLine))
		e.buf = appendBytes(e.buf, 5, e.msg)
	}
	// The strings of the fields after the table, then the table.
	dropFrames, keepFrames := e.str(p.DropFrames), e.str(p.KeepFrames)
	periodType, periodUnit := e.str(p.PeriodType.Type), e.str(p.PeriodType.Unit)
	comments := make([]uint64, len(p.Comments))
	for i, c := range p.Comments {
		comments[i] = e.str(c)
	}
	defaultSampleType, docURL := e.str(p.DefaultSampleType), e.str(p.DocURL)
	for _, s := range e.table {
		e.buf = appendBytes(e.buf, 6, []byte(s))
	}
	e.buf = appendOpt(e.buf, 7, dropFrames)
	e.buf = appendOpt(e.buf, 8, keepFrames)
	e.buf = appendOpt(e.buf, 9, uint64(p.TimeNanos))
	e.buf = appendOpt(e.buf, 10, uint64(p.DurationNanos))
	if periodType != 0 || periodUnit != 0 {
		e.msg = e.msg[:0]
		e.msg = appendOpt(e.msg, 1, periodType)
		e.msg = appendOpt(e.msg, 2, periodUnit)
		e.buf = appendBytes(e.buf, 11, e.msg)
	}
	e.buf = appendOpt(e.buf, 12, uint64(p.Period))
	if len(comments) > 2 {
		e.inner = e.inner[:0]
		for _, c := range comments {
			e.inner = appendUvarint(e.inner, c)
		}
		e.buf = appendBytes(e.buf, 13, e.inner)
	} else {
		for _, c := range comments {
			e.buf = appendVarint(e.buf, 13, c)
		}
	}
	// default_sample_type is written even when 0, as
	// google/pprof/profile does.
	e.buf = appendVarint(e.buf, 14, defaultSampleType)
	e.buf = appendOpt(e.buf, 15, docURL)
	return e.buf
}

func (e *encoder) valueType(num uint64, vt ValueType) {
	e.msg = e.msg[:0]
	e.msg = appendOpt(e.msg, 1, e.str(vt.Type))
	e.msg = appendOpt(e.msg, 2, e.str(vt.Unit))
	e.buf = appendBytes(e.buf, num, e.msg)
}

// str returns the index of s in the string table, adding it.
//
//go:noinline
func (e *encoder) str(s string) uint64 {
	if i, ok := e.strs[s]; ok {
		return i
	}
	i := uint64(len(e.table))
	e.strs[s] = i
	e.table = append(e.table, s)
	return i
}

func boolValue(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// The helpers below are not inlined: Marshal calls them some sixty
// times, and a service links Marshal (issue 21's size target).

// appendUvarint appends v as a varint.
//
//go:noinline
func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// appendVarint appends a varint field.
//
//go:noinline
func appendVarint(b []byte, num, v uint64) []byte {
	b = binary.AppendUvarint(b, num<<3)
	return binary.AppendUvarint(b, v)
}

// appendOpt appends a varint field unless v is 0.
//
//go:noinline
func appendOpt(b []byte, num, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(b, num, v)
}

// appendBytes appends a length-delimited field.
//
//go:noinline
func appendBytes(b []byte, num uint64, data []byte) []byte {
	b = binary.AppendUvarint(b, num<<3|2)
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}
