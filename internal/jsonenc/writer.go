package jsonenc

import (
	"io"
	"strconv"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// FormatVersion is the "format" value of every stackdump JSON
// document. Version 1 only ever grows: new keys may appear, existing keys
// keep their names, types and meaning (docs/json.md).
const FormatVersion = "stackdump/v1"

// jsonEncoder writes stackdump/v1 documents, one per dump, each on its own
// line. It streams: a document is opened by BeginDump, each routine is
// appended as it comes, and the keys only known at the end (truncated,
// warnings, total) close it.
type jsonEncoder struct {
	w        io.Writer
	buf      []byte
	n        int    // routines written in the current dump
	routines Chunks // shared by every dump
	total    int64  // their counts, for dumps that carry no Total
	head     int    // preamble lines written before the routines
}

// NewEncoder returns an encoder of stackdump/v1 JSON to w
// (formats/dumpjson.NewEncoder).
func NewEncoder(w io.Writer) stack.Encoder {
	return &jsonEncoder{w: w, buf: make([]byte, 0, 2*codec.WriteChunkSize)}
}

// BeginDump opens the dump's document and writes its metadata.
func (e *jsonEncoder) BeginDump(d *stack.Dump) error {
	e.n, e.total, e.head = 0, 0, len(d.Preamble)
	e.buf = appendJSONStart(e.buf, d)
	return e.flushIfFull()
}

// WriteRoutine appends one routine object to the goroutines array.
func (e *jsonEncoder) WriteRoutine(r *stack.Routine) error {
	e.buf = e.routines.AppendRoutine(e.buf, r, e.n == 0)
	e.n++
	e.total += r.Goroutines()
	return e.flushIfFull()
}

// EndDump closes the goroutines array and writes the final metadata.
func (e *jsonEncoder) EndDump(d *stack.Dump) error {
	e.buf = appendJSONEnd(e.buf, d, e.total, d.Preamble[min(e.head, len(d.Preamble)):])
	return e.flush()
}

func (e *jsonEncoder) flushIfFull() error {
	if len(e.buf) < codec.WriteChunkSize {
		return nil
	}
	return e.flush()
}

func (e *jsonEncoder) flush() (err error) {
	e.buf, err = codec.WriteRest(e.w, e.buf)
	return err
}

// Chunks writes one stackdump JSON document in parts made apart — by
// several goroutines, each encoding (and compressing) its share of the
// routines — and joined in order: [Chunks.AppendStart], the routines
// from [Chunks.AppendRoutine], then [Chunks.AppendEnd]. The bytes
// are those the encoder (NewEncoder) writes. A Chunks keeps the
// encoding of every interned frame it meets, so it is worth keeping across
// dumps read into one Table; it is not safe for concurrent use: give each
// goroutine its own. The zero value is ready to use.
type Chunks struct {
	frames jsonFrameCache
}

// AppendStart appends the opening of d's document: its metadata up to
// and including the '[' of the goroutines array.
func (*Chunks) AppendStart(b []byte, d *stack.Dump) []byte {
	return appendJSONStart(b, d)
}

// AppendRoutine appends r's object to b as an element of the goroutines
// array, after a separating comma unless r is the first element.
func (c *Chunks) AppendRoutine(b []byte, r *stack.Routine, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	return appendJSONRoutine(b, r, &c.frames)
}

// AppendEnd appends the rest of d's document after its last routine,
// with its newline. The total written is d.Total, or total when d.Total is
// zero (the sum of Goroutines over the routines written). Preamble lines
// added to d after AppendStart are not written; the streaming encoder
// (NewEncoder) writes them as "epilogue".
func (*Chunks) AppendEnd(b []byte, d *stack.Dump, total int64) []byte {
	return appendJSONEnd(b, d, total, nil)
}

// appendJSONStart appends the opening of d's document (AppendStart).
func appendJSONStart(b []byte, d *stack.Dump) []byte {
	b = append(b, `{"format":"`+FormatVersion+`",`...)
	b = appendJSONHead(b, d)
	return append(b, `,"goroutines":[`...)
}

// appendJSONEnd is AppendEnd that also writes late, the preamble lines
// the reader met after the routines (the JVM's deadlock report), as the
// "epilogue" member when there are any.
func appendJSONEnd(b []byte, d *stack.Dump, total int64, late []string) []byte {
	if d.Total != 0 {
		total = d.Total
	}
	b = append(b, ']')
	b = appendJSONTail(b, d, total)
	if len(late) > 0 {
		b = append(b, `,"epilogue":`...)
		b = appendJSONStrings(b, late)
	}
	return append(b, '}', '\n')
}

// appendJSONHead appends the "source" and "preamble" members, and
// "races" and "system_stack" when the dump has them.
func appendJSONHead(b []byte, d *stack.Dump) []byte {
	b = appendJSONSource(b, &d.Source)
	b = append(b, `,"preamble":`...)
	b = appendJSONStrings(b, d.Preamble)
	return appendJSONDumpParts(b, d)
}

// appendJSONTail appends the members known once the routines are written.
func appendJSONTail(b []byte, d *stack.Dump, total int64) []byte {
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, d.Truncated)
	b = append(b, `,"warnings":`...)
	b = appendJSONWarnings(b, d.Warnings)
	b = append(b, `,"total":`...)
	return strconv.AppendInt(b, total, 10)
}

// appendJSONWarnings appends a dump's warnings as an array.
func appendJSONWarnings(b []byte, ws []*stack.ParseError) []byte {
	return appendJSONArray(b, ws, appendJSONWarning)
}

// appendJSONWarning appends one warning object.
func appendJSONWarning(b []byte, w *stack.ParseError) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(w.Line), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, w.Offset, 10)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, w.Msg)
	if w.Text != "" {
		b = append(b, `,"text":`...)
		b = appendJSONString(b, w.Text)
	}
	return append(b, '}')
}

func appendJSONSource(b []byte, s *stack.Source) []byte {
	b = append(b, `"source":{"kind":`...)
	b = appendJSONString(b, string(s.Kind))
	if s.Runtime != "" {
		b = append(b, `,"runtime":`...)
		b = appendJSONString(b, s.Runtime)
	}
	if s.Target != "" {
		b = append(b, `,"target":`...)
		b = appendJSONString(b, s.Target)
	}
	if !s.CapturedAt.IsZero() {
		b = append(b, `,"captured_at":`...)
		b = appendJSONTime(b, s.CapturedAt)
	}
	if c := s.Capture; c != nil {
		b = append(b, `,"capture":{`...)
		first := true
		if c.Mode != "" {
			b = appendJSONKey(b, "mode", first)
			b = appendJSONString(b, c.Mode)
			first = false
		}
		for _, n := range [...]struct {
			key string
			v   int64
		}{
			{"goroutines", int64(c.Goroutines)},
			{"duration_ns", int64(c.Duration)},
			{"pause_ns", int64(c.Pause)},
			{"pauses", int64(c.Pauses)},
			{"pause_predicted_ns", int64(c.PausePredicted)},
			{"pause_observed_ns", int64(c.PauseObserved)},
		} {
			if n.v != 0 {
				b = appendJSONKey(b, n.key, first)
				b = strconv.AppendInt(b, n.v, 10)
				first = false
			}
		}
		for _, l := range [...]struct {
			key string
			v   []string
		}{{"missing", c.Missing}, {"methods", c.Methods}, {"joined", c.Joined}} {
			if len(l.v) > 0 {
				b = appendJSONKey(b, l.key, first)
				b = appendJSONStrings(b, l.v)
				first = false
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	return appendJSONArray(b, ss, appendJSONString)
}

// appendJSONArray appends xs as a JSON array, each element by appendElem.
func appendJSONArray[T any](b []byte, xs []T, appendElem func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendElem(b, x)
	}
	return append(b, ']')
}

// appendJSONRoutine appends one goroutine or thread object.
func appendJSONRoutine(b []byte, r *stack.Routine, c *jsonFrameCache) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, r.ID, 10)
	if r.Count != 1 {
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, r.Count, 10)
	}
	if r.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, r.Name)
	}
	b = append(b, `,"state":`...)
	b = appendJSONString(b, r.State)
	if r.WaitMinutes != 0 {
		b = append(b, `,"wait_minutes":`...)
		b = strconv.AppendInt(b, int64(r.WaitMinutes), 10)
	}
	if r.Locked {
		b = append(b, `,"locked":true`...)
	}
	if r.Leaked {
		b = append(b, `,"leaked":true`...)
	}
	if r.Durable {
		b = append(b, `,"durable":true`...)
	}
	if r.Scan {
		b = append(b, `,"scan":true`...)
	}
	if r.Bubble != 0 {
		b = append(b, `,"bubble":`...)
		b = strconv.AppendInt(b, r.Bubble, 10)
	}
	if len(r.Labels) > 0 {
		b = append(b, `,"labels":`...)
		b = appendJSONLabels(b, r.Labels)
	}
	if r.HasGP {
		b = append(b, `,"gp":`...)
		b = appendJSONHex(b, r.GP)
		b = append(b, `,"m":`...)
		b = strconv.AppendInt(b, r.M, 10)
		if r.MP != 0 {
			b = append(b, `,"mp":`...)
			b = appendJSONHex(b, r.MP)
		}
	}
	if r.ParentID != 0 {
		b = append(b, `,"parent_id":`...)
		b = strconv.AppendInt(b, r.ParentID, 10)
	}
	if r.CreatedBy != nil {
		b = append(b, `,"created_by":`...)
		b = appendJSONFrame(b, r.CreatedBy, r.CreatedByValues, c)
	}
	b = appendJSONStack(b, r.Stack, r.Values, c)
	if r.Unavailable {
		b = append(b, `,"unavailable":true`...)
	}
	if len(r.Ancestors) > 0 {
		b = append(b, `,"ancestors":[`...)
		for i := range r.Ancestors {
			a := &r.Ancestors[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, a.ID, 10)
			if a.CreatedBy != nil {
				b = append(b, `,"created_by":`...)
				b = appendJSONFrame(b, a.CreatedBy, nil, c)
			}
			b = appendJSONStack(b, a.Stack, a.Values, c)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Inferred) > 0 {
		b = append(b, `,"inferred":`...)
		b = appendJSONStrings(b, r.Inferred)
	}
	if r.Stale {
		b = append(b, `,"stale":true`...)
	}
	if r.Thread != nil {
		b = append(b, `,"thread":`...)
		b = appendJSONThread(b, r.Thread)
	}
	if r.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
	}
	return append(b, '}')
}

// appendJSONLabels appends a label set as an object, keys in label order.
func appendJSONLabels(b []byte, ls stack.Labels) []byte {
	b = append(b, '{')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, l.Key)
		b = append(b, ':')
		b = appendJSONString(b, l.Value)
	}
	return append(b, '}')
}

// appendJSONStack appends `,"stack":[…]` and, when frames were elided,
// `,"elided":{…}`. A nil stack is written as an empty one.
func appendJSONStack(b []byte, s *stack.Stack, vs *stack.FrameValues, c *jsonFrameCache) []byte {
	b = append(b, `,"stack":[`...)
	if s == nil {
		return append(b, ']')
	}
	encoded := c.stackFields(s) // nil: encode each frame
	for i, f := range s.Frames {
		if i > 0 {
			b = append(b, ',')
		}
		var v *stack.FrameValue
		if vs != nil && i < len(vs.Frames) {
			v = &vs.Frames[i]
		}
		if encoded != nil {
			b = append(b, encoded[i]...)
		} else {
			b = c.appendFields(b, f)
		}
		if v != nil {
			b = appendJSONValue(b, v)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if s.Elided {
		b = append(b, `,"elided":{"at":`...)
		b = strconv.AppendInt(b, int64(s.ElidedAt), 10)
		if s.ElidedCount != 0 {
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, int64(s.ElidedCount), 10)
		}
		b = append(b, '}')
	}
	return b
}

// appendJSONFrame appends a frame object with the routine's values for it
// (v may be nil). c, when not nil, caches the frame's own members.
func appendJSONFrame(b []byte, f *stack.Frame, v *stack.FrameValue, c *jsonFrameCache) []byte {
	b = c.appendFields(b, f)
	if v != nil {
		b = appendJSONValue(b, v)
	}
	return append(b, '}')
}

// appendJSONFrameFields appends `{"func":…` and the frame's other members,
// leaving the object open for the routine's values.
func appendJSONFrameFields(b []byte, f *stack.Frame) []byte {
	b = append(b, `{"func":`...)
	b = appendJSONString(b, f.Func)
	if f.File != "" {
		b = append(b, `,"file":`...)
		b = appendJSONString(b, f.File)
	}
	if f.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(f.Line), 10)
	}
	if f.HasOffset {
		b = append(b, `,"offset":`...)
		b = strconv.AppendUint(b, f.Offset, 10)
	}
	if f.Inlined {
		b = append(b, `,"inlined":true`...)
	}
	if f.Module != "" {
		b = append(b, `,"module":`...)
		b = appendJSONString(b, f.Module)
	}
	if f.Native {
		b = append(b, `,"native":true`...)
	}
	return b
}

// jsonFrameCacheMax bounds the bytes a jsonFrameCache holds.
const jsonFrameCacheMax = 16 << 20

// jsonFrameCache keeps the encoded members of interned frames, so that a
// frame shared by thousands of routines is escaped and formatted once and
// then copied, and for each interned stack the list of its frames' — one
// lookup per routine, not one per frame. It is per encoder; its memory
// follows distinct frames and stacks, up to jsonFrameCacheMax. A nil cache
// encodes every time.
type jsonFrameCache struct {
	m      map[*stack.Frame][]byte
	stacks map[*stack.Stack][][]byte
	bytes  int
}

// appendFields appends f's members (appendJSONFrameFields).
func (c *jsonFrameCache) appendFields(b []byte, f *stack.Frame) []byte {
	if enc := c.fields(f); enc != nil {
		return append(b, enc...)
	}
	return appendJSONFrameFields(b, f)
}

// fields returns f's encoded members, nil when the cache is nil or full.
func (c *jsonFrameCache) fields(f *stack.Frame) []byte {
	if c == nil {
		return nil
	}
	if enc, ok := c.m[f]; ok {
		return enc
	}
	if c.bytes >= jsonFrameCacheMax {
		return nil
	}
	if c.m == nil {
		c.m = make(map[*stack.Frame][]byte)
	}
	enc := appendJSONFrameFields(nil, f)
	c.m[f] = enc
	c.bytes += len(enc)
	return enc
}

// stackFields returns the encoded members of s's frames, nil when the
// cache is nil or full.
func (c *jsonFrameCache) stackFields(s *stack.Stack) [][]byte {
	if c == nil {
		return nil
	}
	if enc, ok := c.stacks[s]; ok {
		return enc
	}
	if c.bytes >= jsonFrameCacheMax {
		return nil
	}
	enc := make([][]byte, len(s.Frames))
	for i, f := range s.Frames {
		if enc[i] = c.fields(f); enc[i] == nil {
			return nil
		}
	}
	if c.stacks == nil {
		c.stacks = make(map[*stack.Stack][][]byte)
	}
	c.stacks[s] = enc
	c.bytes += 24 * len(enc)
	return enc
}

// appendJSONValue appends the members of a frame's per-routine values.
func appendJSONValue(b []byte, v *stack.FrameValue) []byte {
	if v.Args != "" {
		b = append(b, `,"args":`...)
		b = appendJSONString(b, v.Args)
	}
	if v.FP != 0 {
		b = append(b, `,"fp":`...)
		b = appendJSONHex(b, v.FP)
	}
	if v.SP != 0 {
		b = append(b, `,"sp":`...)
		b = appendJSONHex(b, v.SP)
	}
	if v.PC != 0 {
		b = append(b, `,"pc":`...)
		b = appendJSONHex(b, v.PC)
	}
	if len(v.Locks) > 0 {
		b = append(b, `,"locks":`...)
		b = appendJSONLocks(b, v.Locks)
	}
	return b
}

func appendJSONLocks(b []byte, ls []stack.Lock) []byte {
	return appendJSONArray(b, ls, appendJSONLock)
}

// appendJSONLock appends one lock object.
func appendJSONLock(b []byte, l stack.Lock) []byte {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, string(l.Kind))
	if l.Addr != "" {
		b = append(b, `,"addr":`...)
		b = appendJSONString(b, l.Addr)
	}
	if l.Class != "" {
		b = append(b, `,"class":`...)
		b = appendJSONString(b, l.Class)
	}
	return append(b, '}')
}

// appendJSONThread appends a JVM thread's details.
func appendJSONThread(b []byte, t *stack.Thread) []byte {
	b = append(b, '{')
	first := true
	for _, n := range [...]struct {
		key string
		v   int64
	}{
		{"os_id", t.OSID},
		{"priority", int64(t.Priority)},
		{"os_priority", int64(t.OSPrio)},
		{"cpu_ns", int64(t.CPU)},
		{"elapsed_ns", int64(t.Elapsed)},
		{"carrier", t.Carrier},
	} {
		if n.v != 0 {
			b = appendJSONKey(b, n.key, first)
			b = strconv.AppendInt(b, n.v, 10)
			first = false
		}
	}
	for _, f := range [...]struct {
		key string
		v   bool
	}{{"daemon", t.Daemon}, {"virtual", t.Virtual}, {"native", t.Native}} {
		if f.v {
			b = appendJSONKey(b, f.key, first)
			b = append(b, "true"...)
			first = false
		}
	}
	for _, s := range [...]struct{ key, v string }{{"container", t.Container}, {"detail", t.Detail}} {
		if s.v != "" {
			b = appendJSONKey(b, s.key, first)
			b = appendJSONString(b, s.v)
			first = false
		}
	}
	if len(t.Synchronizers) > 0 {
		b = appendJSONKey(b, "synchronizers", first)
		b = appendJSONLocks(b, t.Synchronizers)
	}
	return append(b, '}')
}
