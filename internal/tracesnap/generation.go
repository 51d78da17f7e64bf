package tracesnap

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"
)

// generation is one generation of the trace, read whole: its per-thread
// event batches and the tables their events refer to.
type generation struct {
	gen     uint64
	batches map[int64][]batch // by thread, in input order
	ms      []int64           // threads in order of first batch
	minTs   uint64
	cpu     []int64 // CPU sample times (ns), sorted: only their count and times matter
	*tables
}

// batch is one thread's batch of timed events.
type batch struct {
	m    int64
	time uint64
	data []byte
}

// tables are a generation's strings, stacks and clock.
type tables struct {
	strings  numTable[string]
	stacks   numTable[stackEntry]
	pcs      map[uint64]pcFrame // the first frame seen for each pc
	freq     float64            // ns per timestamp unit
	hasFreq  bool
	hasClock bool
	clock    ClockSnapshot
	snapTime uint64    // the snapshot's timestamp, in trace units
	frames   [][]Frame // resolved stacks, by index in stacks
}

// stackEntry is a stack table entry: its pcs.
type stackEntry struct{ pcs []uint64 }

type pcFrame struct {
	funcID, fileID uint64
	line           uint64
}

// nsOf converts a trace timestamp to nanoseconds as x/exp/trace does.
func (t *tables) nsOf(ts uint64) int64 { return int64(float64(ts) * t.freq) }

// readGeneration reads the next generation, up to its EndOfGeneration
// batch. It returns nil, nil at the end of the input.
func readGeneration(in *input) (*generation, error) {
	g := &generation{batches: make(map[int64][]batch), tables: &tables{pcs: make(map[uint64]pcFrame)}}
	first := true
	for {
		start := in.off
		b, gen, end, err := readBatch(in)
		if err == io.EOF {
			if !first {
				return nil, fmt.Errorf("byte %d: incomplete generation: the trace ends before its end-of-generation mark; trace likely truncated", in.off)
			}
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("batch at byte %d: %w", start, err)
		}
		if first {
			g.gen = gen
			first = false
		}
		if end || len(b.data) > 0 && b.data[0] == evEndOfGeneration && b.m != -2 {
			break // x/exp/trace takes a batch starting with the mark for the mark
		}
		if gen == 0 {
			return nil, fmt.Errorf("batch at byte %d: invalid generation number 0", start)
		}
		if gen != g.gen {
			return nil, fmt.Errorf("batch at byte %d: generation %d inside generation %d: missing end-of-generation event, or generations are interleaved", start, gen, g.gen)
		}
		if g.minTs == 0 || b.time < g.minTs {
			g.minTs = b.time
		}
		if err := g.add(b); err != nil {
			return nil, fmt.Errorf("batch at byte %d: %w", start, err)
		}
	}
	if !g.hasFreq {
		return nil, errors.New("generation has no frequency event")
	}
	if !g.hasClock {
		return nil, errors.New("generation has no clock snapshot event")
	}
	if err := g.checkStacks(); err != nil {
		return nil, err
	}
	for i := range g.cpu {
		g.cpu[i] = g.nsOf(uint64(g.cpu[i]))
	}
	sort.Slice(g.cpu, func(i, j int) bool { return g.cpu[i] < g.cpu[j] }) // not generic: smaller
	g.frames = make([][]Frame, g.stacks.len())
	return g, nil
}

// readBatch reads one batch: its header and data. end is set for the
// end-of-generation mark; experimental batches are returned with an empty
// data, as nothing in them concerns a snapshot.
func readBatch(in *input) (b batch, gen uint64, end bool, err error) {
	typ, err := in.byte()
	if err != nil {
		return b, 0, false, err
	}
	if typ == evEndOfGeneration {
		return batch{m: -1}, 0, true, nil
	}
	exp := false
	switch typ {
	case evEventBatch:
	case evExperimentalBatch:
		if _, err := in.byte(); err != nil {
			return b, 0, false, fmt.Errorf("experiment id: %w", orShort(err))
		}
		exp = true
	default:
		return b, 0, false, fmt.Errorf("expected a batch, got event type %d", typ)
	}
	var h [4]uint64
	for i, what := range [4]string{"generation", "thread", "timestamp", "size"} {
		if h[i], err = in.uvarint(); err != nil {
			return b, h[0], false, fmt.Errorf("batch %s: %w", what, err)
		}
	}
	if h[3] > maxBatchSize {
		return b, h[0], false, fmt.Errorf("batch size %d over the maximum %d", h[3], maxBatchSize)
	}
	data, err := in.bytes(int(h[3]))
	if err != nil {
		return b, h[0], false, fmt.Errorf("batch data: %w", err)
	}
	b = batch{m: int64(h[1]), time: h[2], data: data}
	if exp {
		b.data, b.m = nil, -2 // marks it experimental (see add)
	}
	return b, h[0], false, nil
}

func orShort(err error) error {
	if err == io.EOF {
		return errShort
	}
	return err
}

// add files a batch by kind, as x/exp/trace's processBatch does.
func (g *generation) add(b batch) error {
	if b.m == -2 {
		return nil // experimental: kept by x/exp/trace for its users, unused here
	}
	if len(b.data) > 0 {
		switch b.data[0] {
		case evStrings:
			return g.addStrings(b.data)
		case evStacks:
			return g.addStacks(b.data)
		case evCPUSamples:
			return g.addCPUSamples(b.data)
		case evSync:
			return g.addSync(b)
		}
	}
	if _, ok := g.batches[b.m]; !ok {
		g.ms = append(g.ms, b.m)
	}
	g.batches[b.m] = append(g.batches[b.m], b)
	return nil
}

func (g *generation) addStrings(d []byte) error {
	for i := 1; i < len(d); {
		if d[i] != evString {
			return fmt.Errorf("strings batch: expected a string, got event type %d", d[i])
		}
		id, i2, ok := uvarintAt(d, i+1)
		if !ok {
			return errors.New("strings batch: bad string id")
		}
		n, i3, ok := uvarintAt(d, i2)
		if !ok {
			return errors.New("strings batch: bad string length")
		}
		if n > maxStringSize {
			return fmt.Errorf("strings batch: string %d is %d bytes, over the maximum %d", id, n, maxStringSize)
		}
		if uint64(len(d)-i3) < n {
			return fmt.Errorf("strings batch: string %d: %d of %d bytes", id, len(d)-i3, n)
		}
		if !g.strings.insert(id, string(d[i3:i3+int(n)])) {
			return fmt.Errorf("strings batch: two strings with id %d", id)
		}
		i = i3 + int(n)
	}
	return nil
}

func (g *generation) addStacks(d []byte) error {
	for i := 1; i < len(d); {
		if d[i] != evStack {
			return fmt.Errorf("stacks batch: expected a stack, got event type %d", d[i])
		}
		id, j, ok := uvarintAt(d, i+1)
		if !ok {
			return errors.New("stacks batch: bad stack id")
		}
		n, j, ok := uvarintAt(d, j)
		if !ok {
			return fmt.Errorf("stacks batch: stack %d: bad frame count", id)
		}
		if n > maxFramesPerStack {
			return fmt.Errorf("stacks batch: stack %d has %d frames, over the maximum %d", id, n, maxFramesPerStack)
		}
		pcs := make([]uint64, n)
		for k := range pcs {
			var f [4]uint64
			for a := range f {
				if f[a], j, ok = uvarintAt(d, j); !ok {
					return fmt.Errorf("stacks batch: stack %d: frame %d is cut short", id, k+1)
				}
			}
			pcs[k] = f[0]
			if _, seen := g.pcs[f[0]]; !seen {
				g.pcs[f[0]] = pcFrame{funcID: f[1], fileID: f[2], line: f[3]}
			}
		}
		if !g.stacks.insert(id, stackEntry{pcs: pcs}) {
			return fmt.Errorf("stacks batch: two stacks with id %d", id)
		}
		i = j
	}
	return nil
}

func (g *generation) addCPUSamples(d []byte) error {
	for i := 1; i < len(d); {
		if d[i] != evCPUSample {
			return fmt.Errorf("CPU samples batch: expected a sample, got event type %d", d[i])
		}
		j := i + 1
		var f [5]uint64
		for a := range f {
			var ok bool
			if f[a], j, ok = uvarintAt(d, j); !ok {
				return errors.New("CPU samples batch: a sample is cut short")
			}
		}
		g.cpu = append(g.cpu, int64(f[0])) // converted to ns once the frequency is known
		i = j
	}
	return nil
}

func (g *generation) addSync(b batch) error {
	d := b.data
	lastTs := b.time
	for i := 1; i < len(d); {
		switch d[i] {
		case evFrequency:
			if g.hasFreq {
				return errors.New("sync batch: two frequency events")
			}
			f, j, ok := uvarintAt(d, i+1)
			if !ok {
				return errors.New("sync batch: bad frequency")
			}
			g.freq, g.hasFreq = 1.0/(float64(f)/1e9), true
			i = j
		case evClockSnapshot:
			if g.hasClock {
				return errors.New("sync batch: two clock snapshots")
			}
			var f [4]uint64
			j := i + 1
			for a := range f {
				var ok bool
				if f[a], j, ok = uvarintAt(d, j); !ok {
					return errors.New("sync batch: the clock snapshot is cut short")
				}
			}
			lastTs += f[0]
			g.hasClock, g.snapTime = true, lastTs
			g.clock = ClockSnapshot{Mono: f[1], Wall: time.Unix(int64(f[2]), int64(f[3]))}
			i = j
		default:
			return fmt.Errorf("sync batch: expected a frequency or clock snapshot, got event type %d", d[i])
		}
	}
	return nil
}

// checkStacks checks that every frame's function and file names are in
// the string table.
func (g *generation) checkStacks() error {
	for id, s := range g.stacks.all() {
		for _, pc := range s.pcs {
			f := g.pcs[pc]
			if _, ok := g.strings.get(f.funcID); !ok {
				return fmt.Errorf("stack %d: unknown function name string %d", id, f.funcID)
			}
			if _, ok := g.strings.get(f.fileID); !ok {
				return fmt.Errorf("stack %d: unknown file name string %d", id, f.fileID)
			}
		}
	}
	return nil
}

// stackFrames returns the frames of the stack at index i of the table,
// resolving them on first use.
func (t *tables) stackFrames(i int32) []Frame {
	if fs := t.frames[i]; fs != nil || len(t.stacks.at(i).pcs) == 0 {
		return fs
	}
	pcs := t.stacks.at(i).pcs
	fs := make([]Frame, len(pcs))
	for k, pc := range pcs {
		f := t.pcs[pc]
		fn, _ := t.strings.get(f.funcID)
		file, _ := t.strings.get(f.fileID)
		fs[k] = Frame{PC: pc, Func: fn, File: file, Line: f.line}
	}
	t.frames[i] = fs
	return fs
}

// sortCursors sorts cursors by the time of their next event, as the
// fallback path of x/exp/trace's Reader does (same function, same input
// order, so the same result for equal times).
func sortCursors(cs []*cursor) {
	slices.SortFunc(cs, func(a, b *cursor) int { return cmp.Compare(a.ev.time, b.ev.time) })
}
