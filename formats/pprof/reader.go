package pprof

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stackdump/stackdump/formats/internal/aggregate"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/profilepb"
	"github.com/stackdump/stackdump/stack"
)

// A profile comment of this form marks a profile written by stackdump
// and names the sample label that holds the goroutine state rather than a
// pprof label of the program's: "state", or another key when the program
// has a label named "state".
const (
	pprofStatePrefix = "stackdump: the sample label "
	pprofStateSuffix = " is the goroutine state"
)

// pprofStateComment returns the comment naming key as the state label.
func pprofStateComment(key string) string {
	return pprofStatePrefix + strconv.Quote(key) + pprofStateSuffix
}

// parsePprofStateComment returns the state label key a comment names.
func parsePprofStateComment(c string) (key string, ok bool) {
	q, found := strings.CutPrefix(c, pprofStatePrefix)
	if !found {
		return "", false
	}
	q, found = strings.CutSuffix(q, pprofStateSuffix)
	if !found {
		return "", false
	}
	key, err := strconv.Unquote(q)
	return key, err == nil
}

// pprofDecoder reads a goroutine profile in pprof's protobuf form
// (/debug/pprof/goroutine, debug=0), using internal/profilepb.
//
// Protobuf cannot be decoded as a stream — fields may come in any order and
// runtime/pprof writes the string table last — so, unlike the text
// readers, this one reads the whole (decompressed) input into memory,
// bounded by ReadOptions.MaxDecompressedBytes. A goroutine profile holds
// one sample per distinct stack, so it stays small even for a million
// goroutines.
//
// Each sample becomes one [Routine] with Count = its goroutine count, ID 0,
// Labels from its string labels (numeric labels as decimal strings with
// their unit), and a Stack from its locations, each location's lines
// innermost first with the inlined ones marked Inlined; the location's
// address is every frame's FrameValue.PC. pprof has no function entry
// addresses, so frames have no offset. A location without lines becomes a
// Native frame without function whose Offset is the address. Samples with
// a zero count stand for no goroutine and are skipped. A goroutineleak
// profile marks its routines Leaked, and in a profile stackdump wrote the
// state label its comment names ("state") is the Routine's State and the
// wait bucket label ("wait") sets WaitMinutes to the bucket's least
// minutes (0, 1, 10, 60).
type pprofDecoder struct {
	in   *codec.Stream
	opts codec.Options
	t    *stack.Table

	read     bool // the input was read (one dump per input)
	p        *profilepb.Profile
	dump     *stack.Dump
	value    int            // index of the goroutine count in Sample.Value
	leaked   bool           // a goroutineleak profile
	stateKey string         // the label holding the State in a profile stackdump wrote
	waitKey  string         // the label holding the wait bucket in a profile stackdump wrote
	next     int            // next sample
	held     *stack.Routine // a routine to return after the warning about it

	locs   map[*profilepb.Location][]*stack.Frame
	frames []*stack.Frame
	values []stack.FrameValue
	labels stack.Labels
}

func newPprofDecoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	opts = opts.WithDefaults()
	return &pprofDecoder{in: in, opts: opts, t: opts.Table, locs: make(map[*profilepb.Location][]*stack.Frame)}
}

func (d *pprofDecoder) NextDump() (*stack.Dump, error) {
	if d.read {
		return nil, io.EOF
	}
	d.read = true
	data, err := d.readAll()
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, io.EOF
	}
	// Decode checks the references as well as the framing: a sample at
	// a missing location, a string index past the table.
	p, err := profilepb.Decode(data)
	if err != nil {
		if pe, ok := err.(*profilepb.Error); ok && pe.Framing { // Decode returns its errors as they are
			return nil, fmt.Errorf("pprof protobuf, offset %d of %d bytes: %s", pe.Offset, len(data), pe.Msg)
		}
		return nil, fmt.Errorf("pprof protobuf of %d bytes: %w", len(data), err)
	}
	if err := d.pickValue(p); err != nil {
		return nil, err
	}
	d.p = p
	d.dump = &stack.Dump{Source: stack.Source{Kind: stack.KindGoPprof}}
	if p.TimeNanos != 0 {
		d.dump.Source.CapturedAt = time.Unix(0, p.TimeNanos).UTC()
	}
	for _, c := range p.Comments {
		if key, ok := parsePprofStateComment(c); ok {
			d.stateKey = key
			continue
		}
		if key, ok := parsePprofWaitComment(c); ok {
			d.waitKey = key
			continue
		}
		d.dump.Preamble = append(d.dump.Preamble, c)
	}
	return d.dump, nil
}

// readAll reads the decompressed input, at most MaxBytes. A gzipped
// profile, as runtime/pprof writes it, is decompressed here when the
// caller has not done it (formats.NewReader does).
func (d *pprofDecoder) readAll() ([]byte, error) {
	limit := d.opts.MaxBytes
	in := d.in.R
	if head, _ := in.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("gzip input: %w", err)
		}
		in = bufio.NewReaderSize(zr, 64<<10)
	}
	// The whole input is held in memory: binary junk that was taken for
	// a profile is refused from its first bytes instead.
	if head, _ := in.Peek(64 << 10); len(head) > 0 {
		if off, msg, bad := pprofHeadProblem(head, limit); bad {
			if d.in.Sniffed {
				// Binary, so taken for a profile, and not one either.
				return nil, fmt.Errorf("%w: binary data that is not a pprof profile (offset %d: %s)", stack.ErrNotDump, off, msg)
			}
			return nil, fmt.Errorf("pprof protobuf, offset %d: %s: not a profile", off, msg)
		}
	}
	data, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading pprof data, after %d bytes: %w", len(data), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("pprof data over %d bytes: %w", limit, stack.ErrTooLarge)
	}
	return data, nil
}

// pickValue finds the goroutine count among the profile's sample types.
func (d *pprofDecoder) pickValue(p *profilepb.Profile) error {
	var types []string
	for i, st := range p.SampleType {
		if (st.Type == "goroutine" || st.Type == "goroutineleak" || st.Type == "thread") && st.Unit == "count" {
			d.value, d.leaked = i, st.Type == "goroutineleak"
			return nil
		}
		types = append(types, st.Type+"/"+st.Unit)
	}
	return fmt.Errorf("%w: its samples are %s, not goroutine/count", stack.ErrNotGoroutineProfile, strings.Join(types, ", "))
}

func (d *pprofDecoder) NextRoutine() (*stack.Routine, error) {
	if r := d.held; r != nil {
		d.held = nil
		return r, nil
	}
	for d.next < len(d.p.Sample) {
		s := d.p.Sample[d.next]
		d.next++
		if d.value >= len(s.Value) {
			return nil, &stack.ParseError{Msg: "sample " + strconv.Itoa(d.next) + " has " + strconv.Itoa(len(s.Value)) + " values"}
		}
		count := s.Value[d.value]
		if count < 0 {
			return nil, &stack.ParseError{Msg: "sample " + strconv.Itoa(d.next) + " has a negative count, " +
				strconv.FormatInt(count, 10) + " (a delta profile?); skipped"}
		}
		if count == 0 {
			continue
		}
		var warning *stack.ParseError
		if kept, cut := codec.BoundCount(d.dump.Total, count); cut {
			warning = &stack.ParseError{Msg: codec.CountTooLarge("sample "+strconv.Itoa(d.next)+"'s count", count, kept)}
			count = kept
		}
		r := &stack.Routine{Count: count, Leaked: d.leaked}
		d.frames, d.values = d.frames[:0], d.values[:0]
		hasPC := false
		for _, loc := range s.Location {
			for _, f := range d.locationFrames(loc) {
				d.frames = append(d.frames, f)
				d.values = append(d.values, stack.FrameValue{PC: loc.Address})
			}
			hasPC = hasPC || loc.Address != 0
		}
		r.Stack = d.t.Stack(d.frames, stack.Elision{})
		if hasPC {
			r.Values = d.t.Values(d.values)
		}
		r.Labels, r.State, r.WaitMinutes = d.sampleLabels(s)
		d.dump.Total += count
		if warning != nil {
			d.held = r // returned after its warning, as readers do
			return nil, warning
		}
		return r, nil
	}
	return nil, codec.ErrEndOfDump
}

// locationFrames returns the interned frames of loc, innermost first.
func (d *pprofDecoder) locationFrames(loc *profilepb.Location) []*stack.Frame {
	if fs, ok := d.locs[loc]; ok {
		return fs
	}
	var fs []*stack.Frame
	if len(loc.Line) == 0 {
		fs = []*stack.Frame{d.t.Frame(stack.Frame{Native: true, Offset: loc.Address})}
	}
	for i, ln := range loc.Line {
		f := stack.Frame{Line: int(ln.Line), Inlined: i < len(loc.Line)-1}
		if fn := ln.Function; fn != nil {
			f.Func, f.File = fn.Name, fn.Filename
			if f.Func == "" {
				f.Func = fn.SystemName
			}
		}
		fs = append(fs, d.t.Frame(f))
	}
	d.locs[loc] = fs
	return fs
}

// sampleLabels returns the sample's labels, interned, and the goroutine
// state and the least wait minutes of its wait bucket when stackdump wrote
// them.
func (d *pprofDecoder) sampleLabels(s *profilepb.Sample) (stack.Labels, string, int) {
	ls := d.labels[:0]
	state, wait := "", 0
	stateSeen, waits := false, 0
	for _, l := range s.Label {
		if l.IsString() && d.waitKey != "" && l.Key == d.waitKey {
			waits++
		}
	}
	for _, l := range s.Label {
		if !l.IsString() {
			text := strconv.FormatInt(l.Num, 10)
			if l.NumUnit != "" {
				text += " " + l.NumUnit
			}
			ls = append(ls, stack.Label{Key: l.Key, Value: text})
			continue
		}
		if d.stateKey != "" && l.Key == d.stateKey {
			// The first value is the state; the key is no label.
			if !stateSeen {
				state, stateSeen = d.t.String(l.Str), true
			}
			continue
		}
		if waits == 1 && l.Key == d.waitKey {
			if b, ok := aggregate.ParseWaitBucket(l.Str); ok {
				wait = aggregate.WaitFloor[b]
				continue
			}
		}
		ls = append(ls, stack.Label{Key: l.Key, Value: l.Str})
	}
	// Sort fully, so that label sets in another order or keys with
	// several values intern to one label set.
	stack.Labels(ls).Sort()
	d.labels = ls
	return d.t.Labels(ls), state, wait
}
