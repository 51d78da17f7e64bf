package leakcheck

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
)

// A snapshot is the text of one runtime.Stack(buf, true) pass, cut into
// one entry per goroutine. Only the header line is read (id, and whether
// the state says "(leaked)"); frames are parsed later, and only for the
// goroutines no id-based rule ignored.
type snapshot struct {
	text []byte
	gs   []goroutineText
}

// goroutineText is one goroutine's block of the snapshot.
type goroutineText struct {
	id         int64
	start, end int // text[start:end] is the block, header to last line, with its '\n'
	leaked     bool
}

// block returns g's text.
func (s *snapshot) block(g goroutineText) []byte { return s.text[g.start:g.end] }

// stackBuf keeps the last pass's buffer and bytes per goroutine, so that
// the next pass is sized right: one stop-the-world print instead of the
// doubling a fixed start size needs (goleak starts at 64 KiB and doubles,
// printing every goroutine on each try).
var stackBuf struct {
	sync.Mutex
	buf  []byte
	perG int
}

const (
	initialPerG = 1024     // guessed traceback bytes per goroutine before any pass
	minStackBuf = 64 << 10 // smallest buffer
	maxStackBuf = 1 << 30  // runtime.Stack text is cut here (1 GiB: ~1M deep goroutines)
)

// takeSnapshot prints every goroutine and indexes the text. The caller
// gives the buffer back with release.
func takeSnapshot() *snapshot {
	stackBuf.Lock()
	buf, perG := stackBuf.buf, stackBuf.perG
	stackBuf.buf = nil
	stackBuf.Unlock()
	if perG == 0 {
		perG = initialPerG
	}
	want := min(max(runtime.NumGoroutine()*perG*5/4+minStackBuf, minStackBuf), maxStackBuf)
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	buf = buf[:cap(buf)]
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= maxStackBuf {
			s := &snapshot{text: buf[:n]}
			s.index()
			if len(s.gs) > 0 {
				recordPerG(n / len(s.gs))
			}
			return s
		}
		// Cut: size the next pass from what this one printed per goroutine.
		seen := max(bytes.Count(buf, []byte("\ngoroutine "))+1, 1)
		next := runtime.NumGoroutine() * (n / seen) * 3 / 2
		buf = make([]byte, min(max(next, 2*len(buf)), maxStackBuf))
	}
}

func recordPerG(per int) {
	stackBuf.Lock()
	stackBuf.perG = per
	stackBuf.Unlock()
}

// release offers s's buffer to the next pass; s must not be used after.
func (s *snapshot) release() {
	stackBuf.Lock()
	if cap(s.text) > cap(stackBuf.buf) {
		stackBuf.buf = s.text[:0]
	}
	stackBuf.Unlock()
	s.text, s.gs = nil, nil
}

var (
	headerPrefix = []byte("goroutine ")
	blockSep     = []byte("\n\ngoroutine ")
	leakedMark   = []byte("(leaked)")
	labelsMark   = []byte(" labels:")
)

// index finds each goroutine's block: a header "goroutine N [state…]:" at
// the start of the text or after a blank line.
func (s *snapshot) index() {
	t := s.text
	pos := 0
	for pos < len(t) {
		if !bytes.HasPrefix(t[pos:], headerPrefix) {
			i := bytes.Index(t[pos:], blockSep)
			if i < 0 {
				return
			}
			pos += i + 2
			continue
		}
		end := len(t)
		if i := bytes.Index(t[pos:], blockSep); i >= 0 {
			end = pos + i + 1
		}
		g := goroutineText{start: pos, end: end}
		g.id, g.leaked = readHeader(t[pos:end])
		if g.id > 0 {
			s.gs = append(s.gs, g)
		}
		pos = end + 1
	}
}

// readHeader returns the id of a block's header and whether its state
// carries "(leaked)"; id is 0 when the header is not one.
func readHeader(b []byte) (id int64, leaked bool) {
	b = b[len(headerPrefix):]
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && i < 19; i++ {
		id = id*10 + int64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	line := b[i:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	// The state is inside the first brackets; Go 1.26's labels ("[sleep
	// labels:{…}]") come after it and may hold any text.
	open := bytes.IndexByte(line, '[')
	if open < 0 {
		return id, false
	}
	state := line[open+1:]
	if c := bytes.IndexByte(state, ']'); c >= 0 {
		state = state[:c]
	}
	if l := bytes.Index(state, labelsMark); l >= 0 {
		state = state[:l]
	}
	return id, bytes.Contains(state, leakedMark)
}

// parentID reads "created by F in goroutine N" from a block; 0 when the
// block has no creator or an older form without the id. The first such
// line is the goroutine's own; later ones belong to ancestors
// (GODEBUG=tracebackancestors).
func parentID(block []byte) int64 {
	i := bytes.Index(block, []byte("\ncreated by "))
	if i < 0 {
		return 0
	}
	line := block[i+1:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	const in = " in goroutine "
	j := bytes.LastIndex(line, []byte(in))
	if j < 0 {
		return 0
	}
	var id int64
	for _, c := range line[j+len(in):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

// currentID is the id of the calling goroutine.
func currentID() int64 {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	id, _ := readHeader(b[:n])
	return id
}

// An idSet is a set of goroutine ids: a bitmap over the range they span
// (ids are dense: a few bits per goroutine ever started), or a sorted
// slice when the range is too sparse for one.
type idSet struct {
	base   int64
	bits   []uint64
	sorted []int64
}

// newIDSet returns the set of ids; it sorts ids.
func newIDSet(ids []int64) *idSet {
	s := &idSet{}
	if len(ids) == 0 {
		return s
	}
	slices.Sort(ids)
	lo, hi := ids[0], ids[len(ids)-1]
	if span := hi - lo + 1; span/64 > int64(len(ids))*4 {
		s.sorted = slices.Compact(ids)
		return s
	}
	s.base = lo
	s.bits = make([]uint64, (hi-lo)/64+1)
	for _, id := range ids {
		d := id - lo
		s.bits[d/64] |= 1 << (d % 64)
	}
	return s
}

func (s *idSet) has(id int64) bool {
	if s.bits != nil {
		d := id - s.base
		if d < 0 || d/64 >= int64(len(s.bits)) {
			return false
		}
		return s.bits[d/64]&(1<<(d%64)) != 0
	}
	_, ok := slices.BinarySearch(s.sorted, id)
	return ok
}

// snapshotIDs returns the ids of every goroutine now.
func snapshotIDs() *idSet {
	s := takeSnapshot()
	ids := make([]int64, len(s.gs))
	for i, g := range s.gs {
		ids[i] = g.id
	}
	s.release()
	return newIDSet(ids)
}
