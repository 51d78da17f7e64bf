package analyze

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// # What a goroutine waits on (objects.go, golocks.go)
//
// A Go traceback prints each frame's arguments, and a goroutine waiting
// on a lock or a channel shows the object's address in some of them:
//
//	internal/sync.(*Mutex).lockSlow(0xc000010030)        the mutex
//	sync.(*RWMutex).Lock(0xc000024008)                  the RWMutex
//	sync.runtime_SemacquireRWMutexR(0xc00002400c, …)    &rw.readerSem (rw+12)
//	sync.(*WaitGroup).Wait(0xc000064090)                the WaitGroup
//	runtime.chanrecv1(0xc000020060, 0x0)                the channel (runtime frames shown)
//	main.awaitShutdown(0xc000020060, …)                 else: the first argument
//	                                                    of the frame that blocks
//
// Values the traceback marks uncertain ("0x0?": a register argument not
// spilled) and small numbers are not addresses. The address is the
// object's identity: goroutines waiting on the same address wait on the
// same lock or channel. Every other goroutine that carries the address
// in a frame's arguments (outside its own wait on it) is in sight of
// the object: a lock's probable holder, a channel's possible sender.
// Nothing proves that a goroutine that carries a lock's address holds it,
// nor that one carrying none cannot reach it (a global, a field of a
// struct passed instead): the findings built on it say "probably" and
// "in sight".

// objectIndex is, for one dump, what goroutines wait on and who else
// carries each address. It keeps aggregates per address and per place,
// and one record per lock waiter, never the routines.
type objectIndex struct {
	// carriers counts, per address, the goroutines that carry it as a
	// frame's first argument outside their own wait on it, with the first
	// of them; lockCarriers holds, per address, the first such goroutine
	// that waits for a lock itself (a deadlock's next step).
	carriers     map[uint64]carriers
	lockCarriers map[uint64]carrierRef
	// waits are the objects goroutines wait on, by address.
	waits map[uint64]*objectWaits
	// lockWaiters are the goroutines waiting for a lock whose address is
	// known, in dump order.
	lockWaiters []lockWaiter
	// places counts, per place, the goroutines waiting on a channel or an
	// object whose address is known.
	places     map[*stack.Frame]*placeWaits
	pairs      []wordAt
	placeCache placeCache
	// full is set once the index stopped taking addresses (maxIndexed).
	full bool
}

// maxIndexed bounds the addresses an objectIndex keeps (about 40 bytes
// each, 40 MiB at most): past it, holders and senders are no longer
// looked for, and the findings say so.
const maxIndexed = 1 << 20

type carriers struct {
	n int32
	// first is the first goroutine that carries the address.
	first carrierRef
}

// carrierRef is a goroutine that carries an address, and the frame whose
// first argument it is.
type carrierRef struct {
	id    int64
	frame *stack.Frame
}

// objectWaits are the goroutines waiting on one address.
type objectWaits struct {
	kind    string // "sync.Mutex", "sync.RWMutex", "sync.RWMutex (read)", "sync.WaitGroup", "channel", "object"
	class   waitClass
	n       int64
	ids     []int64
	place   *stack.Frame
	wait    *stack.Frame
	state   string
	waitMax int
	// sends and receives count its waiters in chan send and chan receive:
	// an object waited on both ways is served (or is no one channel).
	sends, receives int64
	// places is set when its waiters wait at more than one place: for an
	// object known by a frame's first argument (a struct, most often),
	// goroutines at another place may serve the ones at this one. at are
	// those places (the first few).
	places bool
	at     []*stack.Frame
}

// dead reports whether nothing in the dump is shown able to serve the
// object: no goroutine outside its waiters carries its address, its
// waiters do not wait on it both ways, and, for an object known by the
// first argument of the frame that blocks, they all wait at one place.
func (x *objectIndex) dead(addr uint64) bool {
	w := x.waits[addr]
	return w != nil && x.outsiders(addr) == 0 && (w.sends == 0 || w.receives == 0) && !(w.kind == "object" && w.places)
}

// placeWaits counts the goroutines at one place waiting on a channel or
// object of known address.
type placeWaits struct {
	n       int64
	objects map[uint64]bool
}

// lockWaiter is a goroutine waiting for a lock of known address.
type lockWaiter struct {
	id      int64
	addr    uint64
	kind    string
	state   string
	place   *stack.Frame
	waitMin int
}

func newObjectIndex() *objectIndex {
	return &objectIndex{carriers: map[uint64]carriers{}, lockCarriers: map[uint64]carrierRef{}, waits: map[uint64]*objectWaits{},
		places: map[*stack.Frame]*placeWaits{}, placeCache: placeCache{}}
}

// placeCache is dedupe.PlaceOf, once per interned stack.
type placeCache map[*stack.Stack]dedupe.Place

func (c placeCache) of(s *stack.Stack) dedupe.Place {
	p, ok := c[s]
	if !ok {
		p = dedupe.PlaceOf(s)
		c[s] = p
	}
	return p
}

// add indexes one goroutine (JVM threads and stackless records carry
// nothing to index).
func (x *objectIndex) add(r *stack.Routine) {
	if r.Thread != nil || r.Values == nil || x.full {
		return
	}
	frames := r.Frames()
	class := goWaitClass(r.State, frames)
	addr, kind := uint64(0), ""
	place := x.placeCache.of(r.Stack)
	if class == waitLock || class == waitEvent {
		addr, kind = waitObject(r, frames)
		if addr == 0 && class == waitLock {
			// The lock's own frames do not show its address (an inlined
			// RLock): the first argument of the code that waits, most
			// often the struct that holds the lock.
			addr, kind = placeWord(r, place.Frame), lockKindOf(r, frames)
		}
	}
	if addr != 0 {
		w := x.waits[addr]
		if w == nil {
			if len(x.waits)+len(x.carriers) >= maxIndexed {
				x.full = true
				return
			}
			w = &objectWaits{kind: kind, class: class, place: place.Frame, wait: place.Wait, state: r.State}
			x.waits[addr] = w
		}
		n := weight(r)
		w.n += n
		w.waitMax = max(w.waitMax, r.WaitMinutes)
		w.places = w.places || w.place != place.Frame
		if len(w.at) < 8 && !slices.Contains(w.at, place.Frame) {
			w.at = append(w.at, place.Frame)
		}
		switch r.State {
		case "chan send":
			w.sends += n
		case "chan receive":
			w.receives += n
		}
		if r.ID != 0 {
			w.ids = keepSmallest(w.ids, r.ID, maxRowIDs)
		}
		if kind != w.kind && (kind == LockRWMutex || kind == LockRWMutexR) {
			w.kind = LockRWMutex // readers and writers of one RWMutex
		}
		if class == waitLock && len(x.lockWaiters) <= maxCycleWaiters {
			x.lockWaiters = append(x.lockWaiters, lockWaiter{id: r.ID, addr: addr, kind: kind, state: r.State, place: place.Frame, waitMin: r.WaitMinutes})
		} else if place.Frame != nil {
			p := x.places[place.Frame]
			if p == nil {
				p = &placeWaits{objects: map[uint64]bool{}}
				x.places[place.Frame] = p
			}
			p.n += n
			if len(p.objects) <= maxIndexed/100 {
				p.objects[addr] = true
			}
		}
	}
	if class == waitLock && addr == 0 {
		return // a lock waiter whose lock is not shown: not a holder
	}
	// Every other address it carries as a frame's first argument (the
	// receiver, most often), once per goroutine.
	pairs := x.pairs[:0]
	for i := range r.Values.Frames {
		if w := firstWord(r.Values.Frames[i].Args); w != 0 && w != addr {
			pairs = append(pairs, wordAt{w, i})
		}
	}
	x.pairs = pairs
	slices.SortFunc(pairs, func(a, b wordAt) int { return cmp.Compare(a.word, b.word) })
	for i, p := range pairs {
		if i > 0 && pairs[i-1].word == p.word {
			continue
		}
		c, ok := x.carriers[p.word]
		if !ok && len(x.waits)+len(x.carriers) >= maxIndexed {
			x.full = true
			return
		}
		ref := carrierRef{id: r.ID}
		if p.frame < len(frames) {
			ref.frame = frames[p.frame]
		}
		if c.n == 0 {
			c.first = ref
		}
		if class == waitLock {
			if _, ok := x.lockCarriers[p.word]; !ok {
				x.lockCarriers[p.word] = ref
			}
		}
		c.n++
		x.carriers[p.word] = c
	}
}

// wordAt is an address and the frame whose arguments hold it.
type wordAt struct {
	word  uint64
	frame int
}

// placeWord is the first argument of r's frame place, when it reads as
// an address.
func placeWord(r *stack.Routine, place *stack.Frame) uint64 {
	for i, f := range r.Frames() {
		if f == place {
			return firstWord(r.Arg(i))
		}
	}
	return 0
}

// lockKindOf is the kind of lock r waits for, from its stack or its state.
func lockKindOf(r *stack.Routine, frames []*stack.Frame) string {
	if kind, _ := lockWait(frames); kind != "" {
		return kind
	}
	return cmpOr(lockOfState(r.State), LockMutex)
}

// outsiders is how many goroutines carry addr outside a wait on it.
func (x *objectIndex) outsiders(addr uint64) int64 {
	return int64(x.carriers[addr].n)
}

// waitObject returns the address of what r waits on and its kind; 0
// when its arguments do not show it.
func waitObject(r *stack.Routine, frames []*stack.Frame) (uint64, string) {
	lockKind, _ := lockWait(frames)
	for i, f := range frames {
		fn := f.Func
		first := func() uint64 { return firstWord(r.Arg(i)) }
		switch {
		case strings.HasSuffix(fn, "sync.(*Mutex).lockSlow"):
			if a := first(); a != 0 {
				return a, cmpOr(lockKind, LockMutex)
			}
		case fn == "sync.(*RWMutex).Lock":
			if a := first(); a != 0 {
				return a, LockRWMutex
			}
		case fn == "sync.runtime_SemacquireRWMutexR":
			// &rw.readerSem: the RWMutex is 12 bytes before (w Mutex,
			// writerSem, readerSem).
			if a := first(); a > 12 {
				return a - 12, LockRWMutexR
			}
		case fn == "sync.runtime_SemacquireRWMutex":
			if a := first(); a > 8 {
				return a - 8, LockRWMutex
			}
		case strings.HasPrefix(fn, "internal/poll.(*fdMutex)."):
			if a := first(); a != 0 {
				return a, LockFD
			}
		case fn == "sync.(*WaitGroup).Wait":
			if a := first(); a != 0 {
				return a, "sync.WaitGroup"
			}
		case fn == "runtime.chanrecv1", fn == "runtime.chanrecv2", fn == "runtime.chanrecv",
			fn == "runtime.chansend1", fn == "runtime.chansend":
			if a := first(); a != 0 {
				return a, "channel"
			}
		case f.IsRuntime():
		default:
			if lockKind != "" || !isChanState(r.State) {
				continue // a lock's frames: its address is in the sync frames
			}
			// The frame that blocks on a channel: its first argument.
			if a := first(); a != 0 {
				return a, "object"
			}
			return 0, ""
		}
	}
	return 0, ""
}

func isChanState(state string) bool {
	return state == "chan receive" || state == "chan send" || state == ""
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// minAddress is the smallest argument value read as an address: below
// it, a word is a small number (a length, a flag, an index).
const minAddress = 0x10000

// argWords appends to dst the words of a frame's arguments that read as
// addresses: hex values of at least minAddress the traceback did not mark
// uncertain with '?'. Braces of structs are looked into.
func argWords(args string, dst []uint64) []uint64 {
	for args != "" {
		var tok string
		tok, args, _ = strings.Cut(args, ",")
		if w := wordOf(tok); w != 0 {
			dst = append(dst, w)
		}
	}
	return dst
}

// firstWord is the first argument of a frame when it reads as an
// address, else 0.
func firstWord(args string) uint64 {
	tok, _, _ := strings.Cut(args, ",")
	return wordOf(tok)
}

// wordOf reads one argument, " {0xc000010000" or "0x1?", as an address:
// 0 when it is none.
func wordOf(tok string) uint64 {
	i, j := 0, len(tok)
	for i < j && (tok[i] == ' ' || tok[i] == '{') {
		i++
	}
	for j > i && (tok[j-1] == ' ' || tok[j-1] == '}') {
		j--
	}
	if j-i < 3 || tok[i] != '0' || tok[i+1] != 'x' || tok[j-1] == '?' {
		return 0
	}
	var v uint64
	for _, c := range []byte(tok[i+2 : j]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0
		}
		if v>>60 != 0 {
			return 0 // more than 64 bits
		}
		v = v<<4 | uint64(d)
	}
	if v < minAddress {
		return 0
	}
	return v
}

// addrText writes an address as the traceback does.
func addrText(a uint64) string { return "0x" + strconv.FormatUint(a, 16) }

// deadObjects returns the addresses with at least minWaiters waiting
// goroutines (channels and objects, not locks) that no other goroutine
// carries, largest first.
func (x *objectIndex) deadObjects(minWaiters int64) []uint64 {
	var out []uint64
	for a, w := range x.waits {
		if w.class == waitEvent && w.n >= minWaiters && x.dead(a) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b uint64) int {
		if x.waits[a].n != x.waits[b].n {
			return cmp.Compare(x.waits[b].n, x.waits[a].n)
		}
		return cmp.Compare(a, b)
	})
	return out
}

// alone counts the goroutines at place that each wait on an object of
// their own that no other goroutine carries: a result channel whose
// receiver is gone.
func (x *objectIndex) alone(place *stack.Frame) int64 {
	p := x.places[place]
	if p == nil {
		return 0
	}
	var n int64
	for a := range p.objects {
		if w := x.waits[a]; w != nil && w.n == 1 && x.dead(a) {
			n++
		}
	}
	return n
}

// deadAt returns the object at place with the most waiters, at least
// minWaiters, that no other goroutine carries; 0 when none.
func (x *objectIndex) deadAt(place *stack.Frame, minWaiters int64) uint64 {
	p := x.places[place]
	if p == nil {
		return 0
	}
	var best uint64
	for a := range p.objects {
		w := x.waits[a]
		if w == nil || w.n < minWaiters || !x.dead(a) {
			continue
		}
		if best == 0 || w.n > x.waits[best].n || w.n == x.waits[best].n && a < best {
			best = a
		}
	}
	return best
}
