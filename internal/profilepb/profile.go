// Package profilepb decodes and encodes pprof's profile.proto Profile
// message, uncompressed, with the standard library alone: the part of
// github.com/google/pprof/profile that stackdump's pprof reader and
// writer and the endpoint's ?seconds= delta need, without the regexp and
// legacy-format parsers that package links
// (https://github.com/google/pprof/blob/main/proto/profile.proto).
//
// [Decode] resolves the string table and the ids the message refers by,
// and checks them as profile.ParseUncompressed and Profile.CheckValid do:
// a sample pointing at a missing location, a line at a missing function,
// a string index past the table, a reused or zero id are errors that name
// the byte offset of the field at fault. [Profile.Marshal] writes the
// message back. The tests check both against google/pprof/profile.
package profilepb

// Profile is a decoded Profile message, its strings resolved and its ids
// turned into pointers.
type Profile struct {
	SampleType []ValueType
	Sample     []*Sample
	// Mapping is the profile's mappings; the first is the main binary.
	Mapping  []*Mapping
	Location []*Location
	Function []*Function

	// DropFrames and KeepFrames are regular expressions over function
	// names, kept as text.
	DropFrames, KeepFrames string
	TimeNanos              int64
	DurationNanos          int64
	PeriodType             ValueType
	Period                 int64
	Comments               []string
	DefaultSampleType      string
	DocURL                 string
}

// ValueType is a sample value's or the period's type and unit
// ("goroutine", "count").
type ValueType struct {
	Type, Unit string
}

// Sample is one sample: its stack, innermost location first, one value
// per sample type, and its labels.
type Sample struct {
	Location []*Location
	Value    []int64
	Label    []Label
}

// Label is a sample label. profile.proto's str and num are exclusive: a
// label whose Str is not empty is a string label, one with an empty Str
// is numeric (Num, in NumUnit when not empty). Labels with neither are
// dropped when decoding, as google/pprof/profile drops them.
type Label struct {
	Key     string
	Str     string
	Num     int64
	NumUnit string
}

// IsString reports whether l is a string label.
func (l Label) IsString() bool { return l.Str != "" }

// Mapping is a mapping of the profiled program's address space.
type Mapping struct {
	ID              uint64
	Start, Limit    uint64
	Offset          uint64
	File, BuildID   string
	HasFunctions    bool
	HasFilenames    bool
	HasLineNumbers  bool
	HasInlineFrames bool
}

// Location is a program counter and the source lines it stands for,
// innermost (the inlined ones) first. Mapping is nil when the message
// names none or one that is not in the profile.
type Location struct {
	ID       uint64
	Mapping  *Mapping
	Address  uint64
	Line     []Line
	IsFolded bool
}

// Line is a source line of a location; Function is never nil in a
// decoded profile.
type Line struct {
	Function *Function
	Line     int64
	Column   int64
}

// Function is a function of the profiled program.
type Function struct {
	ID         uint64
	Name       string
	SystemName string
	Filename   string
	StartLine  int64
}
