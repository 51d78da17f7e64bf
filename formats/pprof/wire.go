package pprof

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// The walker below reads the wire framing of profile.proto's messages
// without decoding them, so that the reader can refuse binary junk from
// its first KiBs (pprofHeadProblem) before reading the input whole; the
// error names the byte offset of the first field that cannot be read:
// "offset 1234: field sample (2) needs 40 bytes, 12 left". Decoding
// (internal/profilepb) names offsets the same way.

// pprofWireField names a field of profile.proto and, for message fields,
// the fields of the message.
type pprofWireField struct {
	name string
	msg  map[uint64]pprofWireField
}

var (
	pprofWireValueType = map[uint64]pprofWireField{}
	pprofWireLabel     = map[uint64]pprofWireField{}
	pprofWireLine      = map[uint64]pprofWireField{}
	pprofWireSample    = map[uint64]pprofWireField{
		1: {name: "location_id"}, 2: {name: "value"}, 3: {name: "label", msg: pprofWireLabel},
	}
	pprofWireLocation = map[uint64]pprofWireField{4: {name: "line", msg: pprofWireLine}}
	pprofWireProfile  = map[uint64]pprofWireField{
		1: {name: "sample_type", msg: pprofWireValueType},
		2: {name: "sample", msg: pprofWireSample},
		3: {name: "mapping", msg: map[uint64]pprofWireField{}},
		4: {name: "location", msg: pprofWireLocation},
		5: {name: "function", msg: map[uint64]pprofWireField{}},
		6: {name: "string_table"}, 7: {name: "drop_frames"}, 8: {name: "keep_frames"},
		9: {name: "time_nanos"}, 10: {name: "duration_nanos"},
		11: {name: "period_type", msg: pprofWireValueType},
		12: {name: "period"}, 13: {name: "comment"}, 14: {name: "default_sample_type"},
		15: {name: "doc_url"},
	}
)

func walkPprofWire(data []byte, base int, fields map[uint64]pprofWireField, within string) (int, string, bool) {
	for off := 0; off < len(data); {
		tag, n := binary.Uvarint(data[off:])
		if n <= 0 {
			return base + off, "bad field tag varint" + within, true
		}
		num, wire := tag>>3, tag&7
		f, known := fields[num]
		name := "field " + strconv.FormatUint(num, 10)
		if known {
			name = "field " + f.name + " (" + strconv.FormatUint(num, 10) + ")"
		}
		start := off
		off += n
		switch wire {
		case 0:
			if _, n := binary.Uvarint(data[off:]); n <= 0 {
				return base + start, name + ": bad varint" + within, true
			} else {
				off += n
			}
		case 1, 5:
			size := 8
			if wire == 5 {
				size = 4
			}
			if len(data)-off < size {
				return base + start, name + ": needs " + strconv.Itoa(size) + " bytes, " + strconv.Itoa(len(data)-off) + " left" + within, true
			}
			off += size
		case 2:
			l, n := binary.Uvarint(data[off:])
			if n <= 0 {
				return base + start, name + ": bad length varint" + within, true
			}
			off += n
			if l > uint64(len(data)-off) {
				return base + start, name + ": needs " + strconv.FormatUint(l, 10) + " bytes, " + strconv.Itoa(len(data)-off) + " left" + within, true
			}
			if known && f.msg != nil {
				if o, m, bad := walkPprofWire(data[off:off+int(l)], base+off, f.msg, " in "+f.name+" at offset "+strconv.Itoa(base+start)); bad {
					return o, m, true
				}
			}
			off += int(l)
		default:
			return base + start, name + ": unknown wire type " + strconv.FormatUint(wire, 10) + within, true
		}
	}
	return 0, "", false
}

// pprofWireTypes are the wire types of profile.proto's top-level fields
// (13, comment, is a repeated int64: packed or not).
var pprofWireTypes = map[uint64][]uint64{
	1: {2}, 2: {2}, 3: {2}, 4: {2}, 5: {2}, 6: {2}, 7: {0}, 8: {0},
	9: {0}, 10: {0}, 11: {2}, 12: {0}, 13: {0, 2}, 14: {0}, 15: {2},
}

// pprofHeadProblem checks the top-level framing of head, the first bytes
// of a Profile message that may be cut anywhere: every field must have a
// valid number and the wire type profile.proto gives it (fields it does
// not know may have any valid wire type), no length may pass limit, and
// the messages that end within head must be well framed.
// It lets the reader refuse binary junk before reading it whole.
func pprofHeadProblem(head []byte, limit int64) (offset int, msg string, bad bool) {
	for off := 0; off < len(head); {
		tag, n := binary.Uvarint(head[off:])
		if n == 0 {
			return 0, "", false // cut by the end of head
		}
		if n < 0 {
			return off, "bad field tag varint", true
		}
		num, wire := tag>>3, tag&7
		if num == 0 {
			return off, "field number 0", true
		}
		name := "field " + strconv.FormatUint(num, 10)
		if want, known := pprofWireTypes[num]; known {
			if !slices.Contains(want, wire) {
				return off, name + ": wire type " + strconv.FormatUint(wire, 10) + " where profile.proto has " + strconv.FormatUint(want[0], 10), true
			}
		} else if wire != 0 && wire != 1 && wire != 2 && wire != 5 {
			return off, name + ": unknown wire type " + strconv.FormatUint(wire, 10), true
		}
		start := off
		off += n
		switch wire {
		case 0:
			_, n := binary.Uvarint(head[off:])
			if n == 0 {
				return 0, "", false
			}
			if n < 0 {
				return start, name + ": bad varint", true
			}
			off += n
		case 1:
			off += 8
		case 5:
			off += 4
		case 2:
			l, n := binary.Uvarint(head[off:])
			if n == 0 {
				return 0, "", false
			}
			if n < 0 || l > uint64(limit) {
				return start, name + ": length past the size limit", true
			}
			off += n
			if _, known := pprofWireTypes[num]; !known && off+int(l) > len(head) {
				return start, name + ": unknown field longer than the first KiBs", true
			}
			if end := off + int(l); end <= len(head) {
				if f := pprofWireProfile[num]; f.msg != nil {
					if o, m, bad := walkPprofWire(head[off:end], off, f.msg, " in "+f.name+" at offset "+strconv.Itoa(start)); bad {
						return o, m, true
					}
				}
			}
			off += int(l)
		}
	}
	return 0, "", false
}
