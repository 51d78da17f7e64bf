package profilepb

import (
	"encoding/binary"
	"strconv"
)

// Error is a Profile message that cannot be decoded: a broken framing, a
// field of the wrong wire type, a string index or id that points at
// nothing. Offset is where, in the decoded bytes, the field at fault
// starts (0 for what is missing from the whole message).
type Error struct {
	Offset int
	Msg    string
	// Framing is true when the bytes are no well-framed message (a bad
	// varint, a length past the end, a field of the wrong wire type);
	// Msg then starts with the field's name or "bad field tag".
	Framing bool
}

// Error returns "offset N: what".
func (e *Error) Error() string { return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg }

// The field names of profile.proto's messages, for error messages; the
// index is the field number.
var (
	profileFields = []string{1: "sample_type", 2: "sample", 3: "mapping", 4: "location", 5: "function",
		6: "string_table", 7: "drop_frames", 8: "keep_frames", 9: "time_nanos", 10: "duration_nanos",
		11: "period_type", 12: "period", 13: "comment", 14: "default_sample_type", 15: "doc_url"}
	valueTypeFields = []string{1: "type", 2: "unit"}
	sampleFields    = []string{1: "location_id", 2: "value", 3: "label"}
	labelFields     = []string{1: "key", 2: "str", 3: "num", 4: "num_unit"}
	mappingFields   = []string{1: "id", 2: "memory_start", 3: "memory_limit", 4: "file_offset", 5: "filename",
		6: "build_id", 7: "has_functions", 8: "has_filenames", 9: "has_line_numbers", 10: "has_inline_frames"}
	locationFields = []string{1: "id", 2: "mapping_id", 3: "address", 4: "line", 5: "is_folded"}
	lineFields     = []string{1: "function_id", 2: "line", 3: "column"}
	functionFields = []string{1: "id", 2: "name", 3: "system_name", 4: "filename", 5: "start_line"}
)

// field is one field of a message.
type field struct {
	num  uint64
	wire uint64
	off  int    // offset of the tag in the whole input
	val  uint64 // the value of a varint or fixed field
	data []byte // the bytes of a length-delimited field
	doff int    // offset of data in the whole input
}

// msgReader reads the fields of one message, data, which starts at base
// in the whole input; names names its fields and within says which
// message it is, for errors.
type msgReader struct {
	data   []byte
	off    int
	base   int
	names  []string
	within string
}

func (m *msgReader) name(num uint64) string {
	n := strconv.FormatUint(num, 10)
	if num < uint64(len(m.names)) && m.names[num] != "" {
		return "field " + m.names[num] + " (" + n + ")" + m.within
	}
	return "field " + n + m.within
}

// next returns the next field; ok is false at the end of the message.
func (m *msgReader) next() (f field, ok bool, err error) {
	if m.off >= len(m.data) {
		return field{}, false, nil
	}
	start := m.off
	tag, n := uvarint(m.data[m.off:])
	if n <= 0 {
		return field{}, false, &Error{m.base + start, "bad field tag varint" + m.within, true}
	}
	f = field{num: tag >> 3, wire: tag & 7, off: m.base + start}
	m.off += n
	switch f.wire {
	case 0:
		v, n := uvarint(m.data[m.off:])
		if n <= 0 {
			return field{}, false, &Error{f.off, m.name(f.num) + ": bad varint", true}
		}
		f.val = v
		m.off += n
	case 1, 5:
		size := 8
		if f.wire == 5 {
			size = 4
		}
		if len(m.data)-m.off < size {
			return field{}, false, &Error{f.off, m.name(f.num) + ": needs " + strconv.Itoa(size) + " bytes, " + strconv.Itoa(len(m.data)-m.off) + " left", true}
		}
		if size == 8 {
			f.val = binary.LittleEndian.Uint64(m.data[m.off:])
		} else {
			f.val = uint64(binary.LittleEndian.Uint32(m.data[m.off:]))
		}
		m.off += size
	case 2:
		l, n := uvarint(m.data[m.off:])
		if n <= 0 {
			return field{}, false, &Error{f.off, m.name(f.num) + ": bad length varint", true}
		}
		m.off += n
		if l > uint64(len(m.data)-m.off) {
			return field{}, false, &Error{f.off, m.name(f.num) + ": needs " + strconv.FormatUint(l, 10) + " bytes, " + strconv.Itoa(len(m.data)-m.off) + " left", true}
		}
		f.data, f.doff = m.data[m.off:m.off+int(l)], m.base+m.off
		m.off += int(l)
	default:
		return field{}, false, &Error{f.off, m.name(f.num) + ": unknown wire type " + strconv.FormatUint(f.wire, 10), true}
	}
	return f, true, nil
}

// sub returns a reader of the message f holds.
func (m *msgReader) sub(f field, names []string, what string) (*msgReader, error) {
	if f.wire != 2 {
		return nil, m.wireError(f, 2)
	}
	return &msgReader{data: f.data, base: f.doff, names: names, within: " in " + what + " at offset " + strconv.Itoa(f.off)}, nil
}

func (m *msgReader) wireError(f field, want uint64) error {
	return &Error{f.off, m.name(f.num) + ": wire type " + strconv.FormatUint(f.wire, 10) + " where profile.proto has " + strconv.FormatUint(want, 10), true}
}

// varint returns the value of a scalar varint field.
func (m *msgReader) varint(f field) (uint64, error) {
	if f.wire != 0 {
		return 0, m.wireError(f, 0)
	}
	return f.val, nil
}

// varints appends the values of a repeated varint field, packed or not.
func (m *msgReader) varints(dst []uint64, f field) ([]uint64, error) {
	switch f.wire {
	case 0:
		return append(dst, f.val), nil
	case 2:
		for off := 0; off < len(f.data); {
			v, n := uvarint(f.data[off:])
			if n <= 0 {
				return dst, &Error{f.doff + off, m.name(f.num) + ": bad packed varint", true}
			}
			dst = append(dst, v)
			off += n
		}
		return dst, nil
	}
	return dst, m.wireError(f, 0)
}

// uvarint reads a varint as google/pprof/profile does: at most 10 bytes,
// the bits past 64 dropped. n is 0 when b ends first or after 10 bytes
// with the continuation bit set.
func uvarint(b []byte) (v uint64, n int) {
	for i := 0; i < 10 && i < len(b); i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// decoder decodes one Profile message.
type decoder struct {
	strs []string
	p    *Profile

	// What refers by id, resolved once every message is read.
	sampleLocs  []idRefs // per sample
	lineFuncs   []idRefs // per location: the function id of each line
	locMappings []uint64 // per location
}

// idRefs are the ids a message refers to and where the message starts.
type idRefs struct {
	off int
	ids []uint64
}

// Decode decodes data, an uncompressed Profile message. A failure is an
// *Error naming the byte offset of the field at fault.
func Decode(data []byte) (*Profile, error) {
	d := &decoder{p: &Profile{}}
	if err := d.readStrings(data); err != nil {
		return nil, err
	}
	if err := d.readProfile(data); err != nil {
		return nil, err
	}
	if err := d.resolve(); err != nil {
		return nil, err
	}
	return d.p, nil
}

// readStrings reads the string table: every other field refers to it and
// it may come last (runtime/pprof writes it last).
func (d *decoder) readStrings(data []byte) error {
	m := &msgReader{data: data, names: profileFields}
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.num != 6 {
			continue
		}
		if f.wire != 2 {
			return m.wireError(f, 2)
		}
		if len(d.strs) == 0 && len(f.data) != 0 {
			return &Error{f.off, "string_table[0] must be empty, is " + strconv.Quote(string(f.data)), false}
		}
		d.strs = append(d.strs, string(f.data))
	}
	if len(d.strs) == 0 {
		return &Error{0, "no string_table (field 6)", false}
	}
	return nil
}

// str returns the string a scalar field's index names.
func (d *decoder) str(m *msgReader, f field) (string, error) {
	i, err := m.varint(f)
	if err != nil {
		return "", err
	}
	if i >= uint64(len(d.strs)) {
		return "", &Error{f.off, m.name(f.num) + ": string index " + strconv.FormatInt(int64(i), 10) + " out of range (" + strconv.Itoa(len(d.strs)) + " strings)", false}
	}
	return d.strs[i], nil
}

// strRef is a string-index field read but not looked up yet: the last
// occurrence of a field wins in profile.proto, and google/pprof/profile
// looks an index up only once its message is read, so an index a later
// occurrence replaces is never an error.
type strRef struct {
	m  *msgReader
	f  field
	ok bool
}

// set records f as the field's latest occurrence.
func (r *strRef) set(m *msgReader, f field) error {
	if _, err := m.varint(f); err != nil {
		return err
	}
	*r = strRef{m: m, f: f, ok: true}
	return nil
}

// lookup stores the string r names in dst, if r was set.
func (d *decoder) lookup(r strRef, dst *string) error {
	if !r.ok {
		return nil
	}
	v, err := d.str(r.m, r.f)
	if err == nil {
		*dst = v
	}
	return err
}

// valueTypeRef is a ValueType whose strings are not looked up yet.
type valueTypeRef struct{ typ, unit strRef }

func (d *decoder) lookupValueType(r valueTypeRef) (ValueType, error) {
	var vt ValueType
	if err := d.lookup(r.typ, &vt.Type); err != nil {
		return vt, err
	}
	return vt, d.lookup(r.unit, &vt.Unit)
}

func (d *decoder) readProfile(data []byte) error {
	p := d.p
	m := &msgReader{data: data, names: profileFields}
	var drop, keep, defaultType, docURL strRef
	var period valueTypeRef
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch f.num {
		case 1:
			r, err := d.readValueType(m, f)
			if err != nil {
				return err
			}
			vt, err := d.lookupValueType(r)
			if err != nil {
				return err
			}
			p.SampleType = append(p.SampleType, vt)
		case 2:
			err = d.readSample(m, f)
		case 3:
			err = d.readMapping(m, f)
		case 4:
			err = d.readLocation(m, f)
		case 5:
			err = d.readFunction(m, f)
		case 7:
			err = drop.set(m, f)
		case 8:
			err = keep.set(m, f)
		case 9:
			if p.TimeNanos != 0 {
				return &Error{f.off, m.name(f.num) + ": a second one: concatenated profiles", false}
			}
			var v uint64
			v, err = m.varint(f)
			p.TimeNanos = int64(v)
		case 10:
			var v uint64
			v, err = m.varint(f)
			p.DurationNanos = int64(v)
		case 11:
			period, err = d.readValueType(m, f)
		case 12:
			var v uint64
			v, err = m.varint(f)
			p.Period = int64(v)
		case 13:
			var idx []uint64
			if idx, err = m.varints(nil, f); err == nil {
				for _, i := range idx {
					if i >= uint64(len(d.strs)) {
						return &Error{f.off, m.name(f.num) + ": string index " + strconv.FormatInt(int64(i), 10) + " out of range (" + strconv.Itoa(len(d.strs)) + " strings)", false}
					}
					p.Comments = append(p.Comments, d.strs[i])
				}
			}
		case 14:
			err = defaultType.set(m, f)
		case 15:
			err = docURL.set(m, f)
		}
		if err != nil {
			return err
		}
	}
	for _, r := range []struct {
		ref strRef
		dst *string
	}{{drop, &p.DropFrames}, {keep, &p.KeepFrames}, {defaultType, &p.DefaultSampleType}, {docURL, &p.DocURL}} {
		if err := d.lookup(r.ref, r.dst); err != nil {
			return err
		}
	}
	var err error
	p.PeriodType, err = d.lookupValueType(period)
	return err
}

func (d *decoder) readValueType(pm *msgReader, pf field) (valueTypeRef, error) {
	var r valueTypeRef
	m, err := pm.sub(pf, valueTypeFields, pm.names[pf.num])
	if err != nil {
		return r, err
	}
	for {
		f, ok, err := m.next()
		if err != nil || !ok {
			return r, err
		}
		switch f.num {
		case 1:
			err = r.typ.set(m, f)
		case 2:
			err = r.unit.set(m, f)
		}
		if err != nil {
			return r, err
		}
	}
}

func (d *decoder) readSample(pm *msgReader, pf field) error {
	m, err := pm.sub(pf, sampleFields, "sample "+strconv.Itoa(len(d.p.Sample)+1))
	if err != nil {
		return err
	}
	s := &Sample{}
	refs := idRefs{off: pf.off}
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch f.num {
		case 1:
			refs.ids, err = m.varints(refs.ids, f)
		case 2:
			var vs []uint64
			vs, err = m.varints(nil, f)
			for _, v := range vs {
				s.Value = append(s.Value, int64(v))
			}
		case 3:
			var l Label
			var keep bool
			if l, keep, err = d.readLabel(m, f); keep {
				s.Label = append(s.Label, l)
			}
		}
		if err != nil {
			return err
		}
	}
	d.p.Sample = append(d.p.Sample, s)
	d.sampleLocs = append(d.sampleLocs, refs)
	return nil
}

// readLabel reads a label; keep is false for one with neither a string
// nor a number.
func (d *decoder) readLabel(pm *msgReader, pf field) (l Label, keep bool, err error) {
	m, err := pm.sub(pf, labelFields, "label")
	if err != nil {
		return l, false, err
	}
	var str uint64
	var key, strField strRef
	unit := field{num: 0}
	for {
		f, ok, err := m.next()
		if err != nil {
			return l, false, err
		}
		if !ok {
			break
		}
		switch f.num {
		case 1:
			err = key.set(m, f)
		case 2:
			if err = strField.set(m, f); err == nil {
				str = f.val
			}
		case 3:
			var v uint64
			v, err = m.varint(f)
			l.Num = int64(v)
		case 4:
			// Resolved below: a string label's unit is not read.
			if _, err = m.varint(f); err == nil {
				unit = f
			}
		}
		if err != nil {
			return l, false, err
		}
	}
	if err := d.lookup(key, &l.Key); err != nil {
		return l, false, err
	}
	if err := d.lookup(strField, &l.Str); err != nil {
		return l, false, err
	}
	if str != 0 {
		l.Num = 0
		return l, true, nil
	}
	if unit.num != 0 && unit.val != 0 {
		if l.NumUnit, err = d.str(m, unit); err != nil {
			return l, false, err
		}
	}
	return l, l.Num != 0 || unit.val != 0, nil
}

func (d *decoder) readMapping(pm *msgReader, pf field) error {
	m, err := pm.sub(pf, mappingFields, "mapping")
	if err != nil {
		return err
	}
	mp := &Mapping{}
	var file, buildID strRef
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var v uint64
		switch f.num {
		case 1, 2, 3, 4, 7, 8, 9, 10:
			v, err = m.varint(f)
		case 5:
			err = file.set(m, f)
		case 6:
			err = buildID.set(m, f)
		}
		if err != nil {
			return err
		}
		switch f.num {
		case 1:
			mp.ID = v
		case 2:
			mp.Start = v
		case 3:
			mp.Limit = v
		case 4:
			mp.Offset = v
		case 7:
			mp.HasFunctions = v != 0
		case 8:
			mp.HasFilenames = v != 0
		case 9:
			mp.HasLineNumbers = v != 0
		case 10:
			mp.HasInlineFrames = v != 0
		}
	}
	if err := d.lookup(file, &mp.File); err != nil {
		return err
	}
	if err := d.lookup(buildID, &mp.BuildID); err != nil {
		return err
	}
	if mp.ID == 0 {
		return &Error{pf.off, "mapping with the reserved id 0", false}
	}
	d.p.Mapping = append(d.p.Mapping, mp)
	return nil
}

func (d *decoder) readLocation(pm *msgReader, pf field) error {
	m, err := pm.sub(pf, locationFields, "location")
	if err != nil {
		return err
	}
	loc := &Location{}
	refs := idRefs{off: pf.off}
	var mapping uint64
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var v uint64
		switch f.num {
		case 1, 2, 3, 5:
			v, err = m.varint(f)
		case 4:
			var ln Line
			var fn uint64
			if ln, fn, err = d.readLine(m, f); err == nil {
				loc.Line = append(loc.Line, ln)
				refs.ids = append(refs.ids, fn)
			}
		}
		if err != nil {
			return err
		}
		switch f.num {
		case 1:
			loc.ID = v
		case 2:
			mapping = v
		case 3:
			loc.Address = v
		case 5:
			loc.IsFolded = v != 0
		}
	}
	if loc.ID == 0 {
		return &Error{pf.off, "location with the reserved id 0", false}
	}
	d.p.Location = append(d.p.Location, loc)
	d.lineFuncs = append(d.lineFuncs, refs)
	d.locMappings = append(d.locMappings, mapping)
	return nil
}

// readLine reads a line and returns its function id.
func (d *decoder) readLine(pm *msgReader, pf field) (Line, uint64, error) {
	var ln Line
	var fn uint64
	m, err := pm.sub(pf, lineFields, "line")
	if err != nil {
		return ln, 0, err
	}
	for {
		f, ok, err := m.next()
		if err != nil || !ok {
			return ln, fn, err
		}
		var v uint64
		switch f.num {
		case 1, 2, 3:
			if v, err = m.varint(f); err != nil {
				return ln, 0, err
			}
		}
		switch f.num {
		case 1:
			fn = v
		case 2:
			ln.Line = int64(v)
		case 3:
			ln.Column = int64(v)
		}
	}
}

func (d *decoder) readFunction(pm *msgReader, pf field) error {
	m, err := pm.sub(pf, functionFields, "function")
	if err != nil {
		return err
	}
	fn := &Function{}
	var name, systemName, filename strRef
	for {
		f, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var v uint64
		switch f.num {
		case 1:
			fn.ID, err = m.varint(f)
		case 2:
			err = name.set(m, f)
		case 3:
			err = systemName.set(m, f)
		case 4:
			err = filename.set(m, f)
		case 5:
			v, err = m.varint(f)
			fn.StartLine = int64(v)
		}
		if err != nil {
			return err
		}
	}
	for _, r := range []struct {
		ref strRef
		dst *string
	}{{name, &fn.Name}, {systemName, &fn.SystemName}, {filename, &fn.Filename}} {
		if err := d.lookup(r.ref, r.dst); err != nil {
			return err
		}
	}
	if fn.ID == 0 {
		return &Error{pf.off, "function with the reserved id 0", false}
	}
	d.p.Function = append(d.p.Function, fn)
	return nil
}

// resolve turns ids into pointers and checks the profile as
// Profile.CheckValid does.
func (d *decoder) resolve() error {
	p := d.p
	mappings := make(map[uint64]*Mapping, len(p.Mapping))
	for _, m := range p.Mapping {
		if mappings[m.ID] != nil {
			return &Error{0, "two mappings with id " + strconv.FormatUint(m.ID, 10), false}
		}
		mappings[m.ID] = m
	}
	functions := make(map[uint64]*Function, len(p.Function))
	for _, f := range p.Function {
		if functions[f.ID] != nil {
			return &Error{0, "two functions with id " + strconv.FormatUint(f.ID, 10), false}
		}
		functions[f.ID] = f
	}
	locations := make(map[uint64]*Location, len(p.Location))
	for i, loc := range p.Location {
		if locations[loc.ID] != nil {
			return &Error{d.lineFuncs[i].off, "two locations with id " + strconv.FormatUint(loc.ID, 10), false}
		}
		locations[loc.ID] = loc
		loc.Mapping = mappings[d.locMappings[i]]
		for j, id := range d.lineFuncs[i].ids {
			fn := functions[id]
			if fn == nil {
				return &Error{d.lineFuncs[i].off, "location " + strconv.FormatUint(loc.ID, 10) + ": line " + strconv.Itoa(j+1) + " names function id " + strconv.FormatUint(id, 10) + ", not in the profile", false}
			}
			loc.Line[j].Function = fn
		}
	}
	if len(p.SampleType) == 0 && len(p.Sample) != 0 {
		return &Error{0, "samples without sample_type", false}
	}
	for i, s := range p.Sample {
		refs := d.sampleLocs[i]
		if len(s.Value) != len(p.SampleType) {
			return &Error{refs.off, "sample " + strconv.Itoa(i+1) + " has " + strconv.Itoa(len(s.Value)) + " values for " + strconv.Itoa(len(p.SampleType)) + " sample types", false}
		}
		s.Location = make([]*Location, len(refs.ids))
		for j, id := range refs.ids {
			loc := locations[id]
			if loc == nil {
				return &Error{refs.off, "sample " + strconv.Itoa(i+1) + ": location id " + strconv.FormatUint(id, 10) + " not in the profile", false}
			}
			s.Location[j] = loc
		}
	}
	return nil
}
