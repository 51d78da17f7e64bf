package dumpjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/jsonenc"
	"github.com/stackdump/stackdump/stack"
)

// The JSON reader reads stackdump/v1 documents (docs/json.md), full and
// grouped, one at a time, newline-separated or simply concatenated.
//
// It streams: the top-level members of a document are read one by one
// (each bounded in size), and the elements of its "goroutines" or
// "groups" array are read and decoded one at a time, so memory follows the
// largest goroutine object, not the document. Only a document whose
// "format", "source" and "preamble" do not all come before its array (as
// after `jq -S`) has its array read into memory whole, bounded by
// ReadOptions.MaxDecompressedBytes.
//
// Each element is decoded with gjson; every string kept in the model is
// interned through the Table, so no decoded string aliases the read buffer.

// jsonDecoder states.
const (
	jsonNoDump    = iota // between documents
	jsonStreaming        // inside the document's array, reading from the input
	jsonBuffered         // the array is in memory, the document fully read
	jsonDumpDone         // the dump's routines were all returned
)

// jsonMember indexes the top-level members kept while reading a document.
type jsonMember int

const (
	memberFormat jsonMember = iota
	memberSource
	memberPreamble
	memberTruncated
	memberWarnings
	memberTotal
	memberRaces
	memberSystemStack
	memberEpilogue // preamble lines a streaming writer met after the routines
	numMembers
)

var jsonMemberNames = [numMembers]string{"format", "source", "preamble", "truncated", "warnings", "total",
	"races", "system_stack", "epilogue"}

// jsonRaw is a top-level member's value as read, with its input offset.
type jsonRaw struct {
	raw []byte
	off int64
	set bool
}

type jsonDecoder struct {
	t         *stack.Table
	s         jsonStream
	elemLimit int   // bound on one goroutine or group object
	metaLimit int   // bound on any other top-level member
	docLimit  int64 // bound on an array read into memory

	state     int
	dump      *stack.Dump
	docStart  int64
	needComma bool // a member was read in the current object
	grouped   bool // the array is "groups"
	hasTotal  bool // the document's "total" was applied; routines no longer add to it
	// legacyRaces counts goroutine objects read as race blocks (documents
	// from before races were dump records), whose "total" counted them;
	// legacyReport is the report number of the last one.
	legacyRaces, legacyReport int
	nelem                     int
	members                   [numMembers]jsonRaw

	buffered    []byte // jsonBuffered: the array, from its '['
	bufferedOff int64
	bufferedPos int

	elem     []byte // scratch: the element being decoded
	pending  []*stack.Routine
	deferred []*stack.ParseError
	err      error

	stackCache     map[string]jsonCachedStack
	stackCacheSize int
	stackKey       []byte

	// scratch for decoding one element
	frames []*stack.Frame
	values []stack.FrameValue
	labels stack.Labels
}

func newJSONDecoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	opts = opts.WithDefaults()
	return &jsonDecoder{
		t:         opts.Table,
		s:         jsonStream{r: in.R},
		elemLimit: opts.MaxLineBytes,
		metaLimit: 16 * opts.MaxLineBytes,
		docLimit:  min(opts.MaxBytes, math.MaxInt),
	}
}

// jsonErrAt returns a ParseError at input offset off: reading goes on.
func jsonErrAt(off int64, format string, args ...any) *stack.ParseError {
	return &stack.ParseError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// jsonSyntaxError is a problem in the structure of a JSON document that
// stops reading: what follows it cannot be told apart.
type jsonSyntaxError struct {
	Offset int64 // byte offset in the decompressed input
	Msg    string
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// jsonStop returns a jsonSyntaxError at input offset off.
func jsonStop(off int64, format string, args ...any) error {
	return &jsonSyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// fatal records an error that stops reading.
func (d *jsonDecoder) fatal(err error) error {
	d.err = err
	d.state = jsonDumpDone
	return err
}

func (d *jsonDecoder) NextDump() (*stack.Dump, error) {
	for d.err == nil && (d.state == jsonStreaming || d.state == jsonBuffered) {
		if _, err := d.NextRoutine(); err == codec.ErrEndOfDump {
			break
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.dump == nil {
		d.s.skipBOM()
	}
	c, err := d.s.peekNonSpace()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, d.fatal(err)
	}
	if c != '{' {
		return nil, d.fatal(jsonStop(d.s.off, "expected '{' starting a %s document, found %q", jsonenc.FormatVersion, c))
	}
	d.docStart = d.s.off
	d.s.skipByte()
	d.members = [numMembers]jsonRaw{}
	d.needComma, d.nelem, d.grouped, d.hasTotal = false, 0, false, false
	d.legacyRaces, d.legacyReport = 0, 0
	d.buffered, d.pending, d.deferred = nil, d.pending[:0], nil

	key, err := d.readMembers()
	if err != nil {
		return d.truncatedHead(err)
	}
	if key != "" && !d.haveHead() {
		// The array comes before the metadata: read it into memory.
		d.grouped = key == "groups"
		d.bufferedOff = d.s.off
		raw, err := d.s.readValue(nil, int(d.docLimit))
		if err != nil {
			return d.truncatedHead(err)
		}
		d.buffered = raw
		if again, err := d.readMembers(); err != nil {
			return d.truncatedHead(err)
		} else if again != "" {
			return nil, d.fatal(jsonStop(d.s.off, "document holds more than one goroutines or groups array"))
		}
	}
	dump, err := d.buildDump()
	if err != nil {
		return nil, d.fatal(err)
	}
	d.dump = dump
	switch {
	case d.buffered != nil:
		d.state = jsonBuffered
		d.applyTail()
	case key != "":
		d.grouped = key == "groups"
		d.state = jsonStreaming
		d.s.skipByte() // '['
	default:
		d.state = jsonDumpDone
		d.applyTail()
	}
	return dump, nil
}

// truncatedHead returns what could be read of a document cut short before
// its routines: its metadata, marked truncated.
func (d *jsonDecoder) truncatedHead(err error) (*stack.Dump, error) {
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, d.fatal(err)
	}
	dump, berr := d.buildDump()
	if berr != nil {
		return nil, d.fatal(berr)
	}
	d.dump = dump
	d.applyTail()
	dump.Truncated = true
	d.deferred = append(d.deferred, jsonErrAt(d.s.off, "document starting at offset %d ends early", d.docStart))
	d.state = jsonDumpDone
	return dump, nil
}

// haveHead reports whether the members a dump's metadata needs were read.
func (d *jsonDecoder) haveHead() bool {
	return d.members[memberFormat].set && d.members[memberSource].set && d.members[memberPreamble].set
}

// readMembers reads top-level members of the current object, keeping the
// known ones. It returns the name of the first "goroutines" or "groups"
// member, its '[' unread, or "" once the object's '}' was read.
func (d *jsonDecoder) readMembers() (string, error) {
	var keyBuf [32]byte
	for {
		c, err := d.s.peekNonSpace()
		if err != nil {
			return "", jsonEOFIsUnexpected(err)
		}
		if c == '}' {
			d.s.skipByte()
			return "", nil
		}
		if d.needComma {
			if c != ',' {
				return "", jsonStop(d.s.off, "expected ',' or '}' after a member, found %q", c)
			}
			d.s.skipByte()
			if c, err = d.s.peekNonSpace(); err != nil {
				return "", jsonEOFIsUnexpected(err)
			}
		}
		if c != '"' {
			return "", jsonStop(d.s.off, "expected a member name, found %q", c)
		}
		keyOff := d.s.off
		raw, err := d.s.readValue(keyBuf[:0], 256)
		if err != nil {
			return "", d.streamErr(err, keyOff, "member name")
		}
		key := jsonKey(raw)
		if c, err = d.s.peekNonSpace(); err != nil {
			return "", jsonEOFIsUnexpected(err)
		}
		if c != ':' {
			return "", jsonStop(d.s.off, "expected ':' after member name %q, found %q", key, c)
		}
		d.s.skipByte()
		d.needComma = true
		if c, err = d.s.peekNonSpace(); err != nil {
			return "", jsonEOFIsUnexpected(err)
		}
		if key == "goroutines" || key == "groups" {
			if c != '[' {
				return "", jsonStop(d.s.off, "member %q: want an array, found %q", key, c)
			}
			return key, nil
		}
		valOff := d.s.off
		m := jsonMemberIndex(key)
		if m < 0 {
			// An unknown member, from a later version: skip it.
			if _, err := d.s.readValue(nil, 0); err != nil && err != errJSONValueSize {
				return "", d.streamErr(err, valOff, "member "+key)
			}
			continue
		}
		val, err := d.s.readValue(nil, d.metaLimit)
		if err != nil {
			return "", d.streamErr(err, valOff, "member "+key)
		}
		d.members[m] = jsonRaw{raw: val, off: valOff, set: true}
	}
}

func jsonEOFIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// streamErr positions an error met while reading a value.
func (d *jsonDecoder) streamErr(err error, off int64, what string) error {
	switch err {
	case io.ErrUnexpectedEOF:
		return err
	case errJSONValueSize:
		return jsonStop(off, "%s: value exceeds the size limit", what)
	case errJSONTooDeep, errJSONStray:
		return jsonStop(d.s.off, "%s: %v", what, err)
	}
	return err
}

// jsonKey returns the unquoted member name of a raw JSON string.
func jsonKey(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2 {
		return string(raw[1 : len(raw)-1])
	}
	return gjson.ParseBytes(raw).Str
}

func jsonMemberIndex(key string) jsonMember {
	for i, name := range jsonMemberNames {
		if name == key {
			return jsonMember(i)
		}
	}
	return -1
}

// nextRoutine returns the next routine of the current document.
func (d *jsonDecoder) NextRoutine() (*stack.Routine, error) {
	for {
		if len(d.deferred) > 0 {
			pe := d.deferred[0]
			d.deferred = d.deferred[1:]
			return nil, pe
		}
		if len(d.pending) > 0 {
			r := d.pending[0]
			d.pending = d.pending[1:]
			return r, nil
		}
		if d.err != nil {
			return nil, d.err
		}
		var (
			elem []byte
			off  int64
			err  error
			end  bool
		)
		switch d.state {
		case jsonStreaming:
			elem, off, end, err = d.streamElement()
		case jsonBuffered:
			elem, off, end, err = d.bufferedElement()
		default:
			return nil, codec.ErrEndOfDump
		}
		if err != nil {
			return nil, err
		}
		if end {
			continue
		}
		if err := d.decodeElement(elem, off); err != nil {
			return nil, err
		}
	}
}

// streamElement reads the next element of the array from the input. At
// the array's end it reads the rest of the document and reports end.
func (d *jsonDecoder) streamElement() ([]byte, int64, bool, error) {
	c, err := d.s.peekNonSpace()
	if err != nil {
		return nil, 0, false, d.cutShort(jsonEOFIsUnexpected(err))
	}
	if c == ']' {
		d.s.skipByte()
		key, err := d.readMembers()
		switch {
		case err != nil:
			return nil, 0, false, d.cutShort(err)
		case key != "":
			return nil, 0, false, d.fatal(jsonStop(d.s.off, "document holds more than one goroutines or groups array"))
		}
		d.applyTail()
		d.state = jsonDumpDone
		return nil, 0, true, nil
	}
	if d.nelem > 0 {
		if c != ',' {
			return nil, 0, false, d.fatal(jsonStop(d.s.off, "expected ',' or ']' after element %d, found %q", d.nelem, c))
		}
		d.s.skipByte()
	}
	d.nelem++
	if _, err := d.s.peekNonSpace(); err != nil {
		return nil, 0, false, d.cutShort(jsonEOFIsUnexpected(err))
	}
	off := d.s.off
	d.elem, err = d.s.readValue(d.elem[:0], d.elemLimit)
	switch err {
	case nil:
		return d.elem, off, false, nil
	case errJSONValueSize:
		return nil, 0, false, jsonErrAt(off, "element %d exceeds %d bytes; skipped", d.nelem, d.elemLimit)
	}
	return nil, 0, false, d.cutShort(d.streamErr(err, off, fmt.Sprintf("element %d", d.nelem)))
}

// cutShort ends the dump at an input that stops inside it, keeping what
// was read; other errors stop reading.
func (d *jsonDecoder) cutShort(err error) error {
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		return d.fatal(err)
	}
	d.applyTail()
	d.dump.Truncated = true
	d.state = jsonDumpDone
	return jsonErrAt(d.s.off, "document starting at offset %d ends early", d.docStart)
}

// bufferedElement returns the next element of an array held in memory.
func (d *jsonDecoder) bufferedElement() ([]byte, int64, bool, error) {
	b, i := d.buffered, d.bufferedPos
	for i < len(b) && (b[i] <= ' ' || b[i] == ',' || (i == d.bufferedPos && d.nelem == 0 && b[i] == '[')) {
		i++
	}
	if i >= len(b) || b[i] == ']' {
		d.state = jsonDumpDone
		return nil, 0, true, nil
	}
	var sc jsonScanner
	n, done, err := sc.scan(b[i:])
	if err != nil || !done && !sc.atEOF() {
		d.state = jsonDumpDone
		return nil, 0, false, jsonErrAt(d.bufferedOff+int64(i), "malformed element %d", d.nelem+1)
	}
	d.nelem++
	d.bufferedPos = i + n
	return b[i : i+n], d.bufferedOff + int64(i), false, nil
}

// buildDump makes the dump's metadata from the members read so far.
func (d *jsonDecoder) buildDump() (*stack.Dump, error) {
	f := d.members[memberFormat]
	if !f.set {
		return nil, jsonStop(d.docStart, "not a %s document: no \"format\" member", jsonenc.FormatVersion)
	}
	if v := gjson.ParseBytes(f.raw); v.Type != gjson.String || v.Str != jsonenc.FormatVersion {
		return nil, jsonStop(f.off, "unsupported document format %s (want %q)", bytes.TrimSpace(f.raw), jsonenc.FormatVersion)
	}
	dump := &stack.Dump{Source: stack.Source{Kind: stack.KindJSON}}
	if m := d.members[memberSource]; m.set {
		d.decodeSource(&dump.Source, d.parseMember(m, "source"), m.off)
	}
	if m := d.members[memberPreamble]; m.set {
		dump.Preamble = d.appendLines(dump.Preamble, m, "preamble")
	}
	d.applyDumpParts(dump)
	return dump, nil
}

// appendLines appends the strings of member m, an array of strings, to
// lines.
func (d *jsonDecoder) appendLines(lines []string, m jsonRaw, name string) []string {
	v := d.parseMember(m, name)
	if !v.IsArray() {
		d.bad(m.off, v, name, "an array of strings")
	}
	d.forEach(v, func(_, line gjson.Result) bool {
		if line.Type != gjson.String {
			d.bad(m.off, line, name, "an array of strings")
			return true
		}
		lines = append(lines, strings.Clone(line.Str))
		return true
	})
	return lines
}

// applyTail applies the members that follow the routines.
func (d *jsonDecoder) applyTail() {
	dump := d.dump
	d.applyDumpParts(dump)
	if m := d.members[memberTruncated]; m.set {
		dump.Truncated = d.bool(m.off, d.parseMember(m, "truncated"), "truncated")
	}
	if m := d.members[memberTotal]; m.set {
		dump.Total = max(0, d.count(m.off, d.parseMember(m, "total"), "total", codec.MaxTotal)-int64(d.legacyRaces))
		d.hasTotal = true
	}
	if m := d.members[memberEpilogue]; m.set {
		dump.Preamble = d.appendLines(dump.Preamble, m, "epilogue")
	}
	if m := d.members[memberWarnings]; m.set {
		var ws []*stack.ParseError
		v := d.parseMember(m, "warnings")
		if !v.IsArray() {
			d.bad(m.off, v, "warnings", "an array of objects")
		}
		d.forEach(v, func(_, w gjson.Result) bool {
			pe := &stack.ParseError{}
			d.forEach(w, func(k, v gjson.Result) bool {
				switch k.Str {
				case "line":
					pe.Line = int(d.int(m.off, v, "warnings.line"))
				case "offset":
					pe.Offset = d.int(m.off, v, "warnings.offset")
				case "message":
					pe.Msg = strings.Clone(d.str(m.off, v, "warnings.message"))
				case "text":
					pe.Text = strings.Clone(d.str(m.off, v, "warnings.text"))
				}
				return true
			})
			ws = append(ws, pe)
			return true
		})
		// The document's own warnings come first: they are the original ones.
		dump.Warnings = append(ws, dump.Warnings...)
	}
	d.members = [numMembers]jsonRaw{}
}

// parseMember parses a member's raw value, reporting invalid JSON.
func (d *jsonDecoder) parseMember(m jsonRaw, name string) gjson.Result {
	if !gjson.ValidBytes(m.raw) {
		d.deferred = append(d.deferred, jsonErrAt(m.off, "member %q is not valid JSON", name))
		return gjson.Result{}
	}
	return gjson.Parse(jsonBytesString(m.raw))
}

func (d *jsonDecoder) decodeSource(s *stack.Source, v gjson.Result, off int64) {
	if !v.IsObject() {
		d.bad(off, v, "source", "an object")
	}
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "kind":
			s.Kind = stack.Kind(d.t.String(d.str(off, v, "source.kind")))
		case "runtime":
			s.Runtime = d.t.String(d.str(off, v, "source.runtime"))
		case "target":
			s.Target = strings.Clone(d.str(off, v, "source.target"))
		case "captured_at":
			t, err := time.Parse(time.RFC3339Nano, d.str(off, v, "source.captured_at"))
			if err != nil {
				d.bad(off, v, "source.captured_at", "an RFC 3339 time")
			}
			s.CapturedAt = t
		case "capture":
			s.Capture = d.decodeCapture(v, off)
		}
		return true
	})
}

func (d *jsonDecoder) decodeCapture(v gjson.Result, off int64) *stack.Capture {
	c := &stack.Capture{}
	if !v.IsObject() {
		d.bad(off, v, "capture", "an object")
	}
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "mode":
			c.Mode = d.t.String(d.str(off, v, "capture.mode"))
		case "goroutines":
			c.Goroutines = int(d.int(off, v, "capture.goroutines"))
		case "duration_ns":
			c.Duration = time.Duration(d.int(off, v, "capture.duration_ns"))
		case "pause_ns":
			c.Pause = time.Duration(d.int(off, v, "capture.pause_ns"))
		case "pauses":
			c.Pauses = int(d.int(off, v, "capture.pauses"))
		case "pause_predicted_ns":
			c.PausePredicted = time.Duration(d.int(off, v, "capture.pause_predicted_ns"))
		case "pause_observed_ns":
			c.PauseObserved = time.Duration(d.int(off, v, "capture.pause_observed_ns"))
		case "missing":
			c.Missing = d.strings(off, v, "capture.missing")
		case "methods":
			c.Methods = d.strings(off, v, "capture.methods")
		case "joined":
			c.Joined = d.strings(off, v, "capture.joined")
		}
		return true
	})
	return c
}

// decodeElement decodes one array element into d.pending.
func (d *jsonDecoder) decodeElement(elem []byte, off int64) error {
	if !gjson.ValidBytes(elem) {
		return jsonErrAt(off, "element %d is not valid JSON; skipped", d.nelem)
	}
	v := gjson.Parse(jsonBytesString(elem))
	if !v.IsObject() {
		return jsonErrAt(off+int64(v.Index), "element %d is not an object; skipped", d.nelem)
	}
	if d.grouped {
		d.decodeGroup(v, off)
		return nil
	}
	if d.legacyRace(v, off) {
		return nil
	}
	r := d.decodeRoutine(v, off)
	d.addTotal(r.Goroutines())
	d.pending = append(d.pending, r)
	return nil
}

// jsonBytesString views b as a string without copying. The result must not
// outlive b's contents: every string kept from it is interned first.
func jsonBytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// bad records a member or field of the wrong type; reading goes on
// without it.
func (d *jsonDecoder) bad(base int64, v gjson.Result, field, want string) {
	if len(d.deferred) >= 100 {
		return // enough said about one element
	}
	d.deferred = append(d.deferred, jsonErrAt(base+int64(v.Index), "field %q: want %s, found %s", field, want, jsonShorten(v.Raw)))
}

func jsonShorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// int returns v as an integer.
func (d *jsonDecoder) int(base int64, v gjson.Result, field string) int64 {
	if v.Type == gjson.Number {
		if n, ok := parseJSONInt(v.Raw); ok {
			return n
		}
	}
	d.bad(base, v, field, "an integer")
	return 0
}

// count returns v as a count of routines: an integer from 0 to limit
// (maxCount, or maxTotal for a dump's total); one out of that range is
// reported and saturated, so that no sum of counts overflows or turns
// negative.
func (d *jsonDecoder) count(base int64, v gjson.Result, field string, limit int64) int64 {
	n := d.int(base, v, field)
	if n < 0 || n > limit {
		d.bad(base, v, field, "a count from 0 to "+strconv.FormatInt(limit, 10))
		return min(max(n, 0), limit)
	}
	return n
}

// uint returns v as an unsigned integer.
func (d *jsonDecoder) uint(base int64, v gjson.Result, field string) uint64 {
	if v.Type == gjson.Number && len(v.Raw) <= 20 {
		var n uint64
		ok := v.Raw != ""
		for i := 0; i < len(v.Raw) && ok; i++ {
			c := v.Raw[i]
			next := n*10 + uint64(c-'0')
			ok = c >= '0' && c <= '9' && next/10 == n
			n = next
		}
		if ok {
			return n
		}
	}
	d.bad(base, v, field, "an unsigned integer")
	return 0
}

// parseJSONInt parses a JSON integer exactly; false for fractions,
// exponents and values beyond int64.
func parseJSONInt(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// hex returns v, a "0x…" string, as a number.
func (d *jsonDecoder) hex(base int64, v gjson.Result, field string) uint64 {
	if v.Type == gjson.String && len(v.Str) > 2 && v.Str[0] == '0' && (v.Str[1] == 'x' || v.Str[1] == 'X') {
		if n, ok := codec.ParseHexDigits(v.Str[2:]); ok {
			return n
		}
	}
	d.bad(base, v, field, `a "0x…" hex string`)
	return 0
}

// str returns v's string, which may alias the read buffer: callers intern
// or clone it.
func (d *jsonDecoder) str(base int64, v gjson.Result, field string) string {
	if v.Type != gjson.String {
		d.bad(base, v, field, "a string")
		return ""
	}
	return v.Str
}

func (d *jsonDecoder) bool(base int64, v gjson.Result, field string) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False:
		return false
	}
	d.bad(base, v, field, "true or false")
	return false
}

// strings returns an array of strings, interned.
func (d *jsonDecoder) strings(base int64, v gjson.Result, field string) []string {
	return decodeJSONArray(d, base, v, field, "an array of strings", func(s gjson.Result) string {
		return d.t.String(d.str(base, s, field))
	})
}

// decodeJSONArray returns the elements of the array v, each decoded by
// decode. A v that is not an array is reported as field, wanting want, and
// yields nil.
func decodeJSONArray[T any](d *jsonDecoder, base int64, v gjson.Result, field, want string, decode func(gjson.Result) T) []T {
	if !v.IsArray() {
		d.bad(base, v, field, want)
		return nil
	}
	var xs []T
	v.ForEach(func(_, e gjson.Result) bool {
		xs = append(xs, decode(e))
		return true
	})
	return xs
}

// forEach iterates over the members or elements of an object or array;
// unlike gjson's ForEach it yields nothing for a scalar.
func (d *jsonDecoder) forEach(v gjson.Result, f func(k, v gjson.Result) bool) {
	if v.Type == gjson.JSON {
		v.ForEach(f)
	}
}

// addTotal counts routines into the dump's Total until the document's own
// "total" is known.
func (d *jsonDecoder) addTotal(n int64) {
	if !d.hasTotal {
		d.dump.Total += n
	}
}
