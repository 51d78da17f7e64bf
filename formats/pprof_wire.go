package formats

import (
	"encoding/binary"
	"strconv"
)

// github.com/google/pprof/profile says what went wrong in a protobuf it
// cannot decode ("not enough data", "bad varint") but not where. The
// walker below re-reads the wire framing of profile.proto's messages to
// find the byte offset of the first field that cannot be read, so that an
// error can say "offset 1234: field sample (2) needs 40 bytes, 12 left".

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

// pprofWireProblem walks data as a Profile message and returns the byte
// offset and description of the first field whose framing is broken (a
// bad varint, an unknown wire type, a length past the end of its message).
// ok is false when the framing is sound.
func pprofWireProblem(data []byte) (offset int, msg string, ok bool) {
	return walkPprofWire(data, 0, pprofWireProfile, "")
}

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
