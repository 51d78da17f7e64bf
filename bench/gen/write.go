package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// maxPrinted is how many frames the runtime prints before eliding the
// middle of a stack (50 innermost + 50 outermost, Go 1.21+).
const (
	maxPrinted   = 100
	innerPrinted = 50
	outerPrinted = 50
	flushSize    = 256 << 10
)

// Write writes the dump described by opts to w and describes what it wrote.
func Write(w io.Writer, opts Options) (Stats, error) {
	if opts.Goroutines < 0 {
		return Stats{}, fmt.Errorf("gen: negative goroutine count %d", opts.Goroutines)
	}
	g := newGenerator(w, opts)
	g.run()
	return g.stats, g.err
}

// Generate returns the dump described by opts in memory.
func Generate(opts Options) ([]byte, Stats) {
	var b bytes.Buffer
	st, _ := Write(&b, opts) // a bytes.Buffer does not fail
	return b.Bytes(), st
}

// generator holds the state of one Write.
type generator struct {
	w     io.Writer
	opts  Options
	cat   *catalog
	rng   *rand.Rand
	buf   []byte
	err   error
	stats Stats

	heapBase, pollBase uint64
	nextID             int64
	singleIDs          map[string]int64

	// per goroutine
	ptrs   [8]uint64 // $A..$H
	poll   uint64    // $R
	parent int64     // $I
	stack  []*frame
	fps    []uint64 // fp and sp of each frame of stack, at GOTRACEBACK=system
	sps    []uint64
	reps   []int
	alts   []int
	key    []byte
	stacks map[string]struct{}
}

func newGenerator(w io.Writer, opts Options) *generator {
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	g := &generator{
		w: w, opts: opts, cat: theCatalog, rng: rng,
		buf:       make([]byte, 0, flushSize+64<<10),
		singleIDs: make(map[string]int64),
		stacks:    make(map[string]struct{}),
		stats:     Stats{States: make(map[string]int)},
	}
	// Go 1.26 randomises the heap base: arguments look like 0x10c36f554080
	// or 0x24ce73300960 rather than 0xc000123450.
	g.heapBase = (0x100 + rng.Uint64N(0x2f00)) << 32
	g.pollBase = 0x7f0000000000 | rng.Uint64N(0xfe00)<<24
	return g
}

// run writes every goroutine: the caller first, the other singletons with
// small ids, then weighted picks.
func (g *generator) run() {
	n := g.opts.Goroutines
	// Ids: main is 1, runtime goroutines (2-4) are not printed, the rest
	// grow by 1 or 2. The caller, printed first, has the largest id.
	g.nextID = 5
	callerID := int64(2*n) + 100 + int64(g.rng.IntN(1000))
	for _, s := range g.cat.singles {
		switch s.name {
		case "main":
			g.singleIDs[s.name] = 1
		case callerName:
			g.singleIDs[s.name] = callerID
		default:
			g.singleIDs[s.name] = g.newID()
		}
	}
	written := 0
	for _, s := range g.cat.singles {
		for i := 0; i < s.fixed && written < n; i++ {
			id := g.singleIDs[s.name]
			if i > 0 {
				id = g.newID()
			}
			g.goroutine(s, id)
			written++
		}
	}
	for ; written < n && g.err == nil; written++ {
		g.goroutine(g.cat.pick(g.rng.Float64()), g.newID())
	}
	g.flush()
	g.stats.Stacks = len(g.stacks)
}

func (g *generator) newID() int64 {
	id := g.nextID
	g.nextID += 1 + int64(g.rng.IntN(10)/9) // mostly 1, sometimes 2
	return id
}

// goroutine writes one goroutine of scenario s.
func (g *generator) goroutine(s *scenario, id int64) {
	for i := range g.ptrs {
		g.ptrs[i] = g.pointer()
	}
	g.poll = g.pollBase + g.rng.Uint64N(1<<16)*0x200
	if s.parent != "" {
		g.parent = g.singleIDs[s.parent]
	} else {
		g.parent = 1 + g.rng.Int64N(max(g.nextID-1, 1))
	}
	system := g.opts.SystemShare > 0 && g.rng.Float64() < g.opts.SystemShare
	labelled := s.labelled && g.opts.LabelShare > 0 && g.rng.Float64() < g.opts.LabelShare
	waited := 0
	if s.waits.share > 0 && g.rng.Float64() < s.waits.share {
		waited = s.waits.lo + g.rng.IntN(s.waits.hi-s.waits.lo+1)
	}
	g.buildStack(s, system)

	g.stats.Goroutines++
	g.stats.States[s.state]++
	if system {
		g.stats.System++
	}
	if labelled {
		g.stats.Labelled++
	}
	if waited > 0 {
		g.stats.WithMinutes++
	}
	if s.locked {
		g.stats.Locked++
	}
	elided := len(g.stack) > maxPrinted
	if elided {
		g.stats.Elided++
	}
	if system || labelled || elided {
		g.stats.Modern++
	}

	g.header(s, id, system, labelled, waited)
	g.writeStack(system)
	for i := range s.creator {
		g.writeFrame(&s.creator[i], false, 0, 0)
	}
	g.buf = append(g.buf, '\n')
	if len(g.buf) >= flushSize {
		g.flush()
	}
}

// buildStack chooses the goroutine's frames into g.stack and records its
// stack's identity.
func (g *generator) buildStack(s *scenario, system bool) {
	g.alts, g.reps = g.alts[:0], g.reps[:0]
	total := 0
	if system {
		total += len(runtimeFrames[s.state]) + len(goexit)
	}
	for _, p := range s.parts {
		if p.hi > 0 {
			r := p.lo + g.rng.IntN(p.hi-p.lo+1)
			g.alts, g.reps = append(g.alts, 0), append(g.reps, r)
			total += r * len(p.alts[0])
			continue
		}
		a := g.rng.IntN(len(p.alts))
		g.alts, g.reps = append(g.alts, a), append(g.reps, 1)
		total += len(p.alts[a])
	}
	// Without elision, shorten recursions (outermost first) to print whole.
	for i := len(s.parts) - 1; i >= 0 && !g.opts.Elide && total > maxPrinted; i-- {
		p := s.parts[i]
		if p.hi == 0 {
			continue
		}
		per := len(p.alts[0])
		cut := min(g.reps[i]-p.lo, (total-maxPrinted+per-1)/per)
		g.reps[i] -= cut
		total -= cut * per
	}

	g.stack = g.stack[:0]
	if system {
		for i := range runtimeFrames[s.state] {
			g.stack = append(g.stack, &runtimeFrames[s.state][i])
		}
	}
	for i, p := range s.parts {
		alt := p.alts[g.alts[i]]
		for range g.reps[i] {
			for j := range alt {
				g.stack = append(g.stack, &alt[j])
			}
		}
	}
	if system {
		g.stack = append(g.stack, &goexit[0])
	}

	k := binary.AppendUvarint(g.key[:0], uint64(g.cat.index[s]))
	for i := range g.alts {
		k = binary.AppendUvarint(k, uint64(g.alts[i]))
		k = binary.AppendUvarint(k, uint64(g.reps[i]))
	}
	if system {
		k = append(k, 's')
	}
	g.key = k
	if _, ok := g.stacks[string(k)]; !ok {
		g.stacks[string(k)] = struct{}{}
	}
}

// header writes `goroutine N [state…]:`.
func (g *generator) header(s *scenario, id int64, system, labelled bool, waited int) {
	b := append(g.buf, "goroutine "...)
	b = strconv.AppendInt(b, id, 10)
	if system {
		b = append(b, " gp="...)
		b = g.hex(b, g.pointer())
		if s.state == "running" || s.state == "syscall" {
			b = append(b, " m="...)
			b = strconv.AppendInt(b, int64(1+g.rng.IntN(16)), 10)
			b = append(b, " mp="...)
			b = g.hex(b, g.pointer()+8)
		} else {
			b = append(b, " m=nil"...)
		}
	}
	b = append(b, " ["...)
	b = append(b, s.state...)
	if waited > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(waited), 10)
		b = append(b, " minutes"...)
	}
	if s.locked {
		b = append(b, ", locked to thread"...)
	}
	if labelled {
		b = g.labels(b)
	}
	g.buf = append(b, "]:\n"...)
}

// routes are the endpoints request goroutines are labelled with.
var routes = []string{
	"/api/orders/{id}", "/api/orders", "/api/products/{id}", "/api/products",
	"/api/cart", "/api/checkout", "/api/search", "/api/users/me",
}

// labels appends Go 1.26 ` labels:{"k": "v", …}`, keys sorted, values
// quoted as the runtime quotes them.
func (g *generator) labels(b []byte) []byte {
	b = append(b, ` labels:{"endpoint": `...)
	b = strconv.AppendQuote(b, routes[g.rng.IntN(len(routes))])
	b = append(b, `, "tenant": "t-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(500)), 10)
	return append(b, `"}`...)
}

// writeStack writes g.stack, eliding its middle as Go 1.21+ does.
func (g *generator) writeStack(system bool) {
	st := g.stack
	if system {
		g.frameAddrs()
	}
	for i := 0; i < len(st); i++ {
		if len(st) > maxPrinted && i == innerPrinted {
			elided := len(st) - maxPrinted
			g.buf = append(g.buf, "..."...)
			g.buf = strconv.AppendInt(g.buf, int64(elided), 10)
			g.buf = append(g.buf, " frames elided...\n"...)
			i += elided - 1
			continue
		}
		var fp, sp uint64
		if system {
			fp, sp = g.fps[i], g.sps[i]
		}
		g.writeFrame(st[i], system, fp, sp)
	}
}

// frameAddrs computes the fp and sp of every frame of g.stack, walking
// from the top of the goroutine's stack inwards: a callee's fp is its
// caller's sp. Inlined frames share their caller's physical frame.
func (g *generator) frameAddrs() {
	n := len(g.stack)
	g.fps = append(g.fps[:0], make([]uint64, n)...)
	g.sps = append(g.sps[:0], make([]uint64, n)...)
	cur := g.pointer()&^0xfff | 0xfe8
	for i := n - 1; i >= 0; i-- {
		g.fps[i] = cur
		if f := g.stack[i]; f.offset {
			cur -= f.size
		}
		g.sps[i] = cur
	}
}

// writeFrame writes a frame's two lines; at GOTRACEBACK=system frames with
// a pc offset also carry fp=, sp= and pc=.
func (g *generator) writeFrame(f *frame, system bool, fp, sp uint64) {
	b := g.segs(g.buf, f.call)
	b = append(b, "\n\t"...)
	b = g.segs(b, f.file)
	if system && f.offset {
		b = append(b, " fp="...)
		b = g.hex(b, fp)
		b = append(b, " sp="...)
		b = g.hex(b, sp)
		b = append(b, " pc="...)
		b = g.hex(b, f.pc)
	}
	g.buf = append(b, '\n')
}

// smallValues are the integers arguments most often hold.
var smallValues = []uint64{0x0, 0x0, 0x0, 0x1, 0x1, 0x2, 0x3, 0x8, 0x10, 0x18, 0x20, 0x40, 0x72, 0x100, 0x1000}

// segs appends a template line with its placeholders filled.
func (g *generator) segs(b []byte, segs []seg) []byte {
	for _, s := range segs {
		switch s.kind {
		case 0:
			b = append(b, s.lit...)
		case 'P':
			b = g.hex(b, g.pointer())
		case 'R':
			b = g.hex(b, g.poll)
		case 'S':
			b = g.hex(b, smallValues[g.rng.IntN(len(smallValues))])
		case 'N':
			b = g.hex(b, 50_000_000+g.rng.Uint64N(30_000_000_000))
		case 'I':
			b = strconv.AppendInt(b, g.parent, 10)
		default: // 'A'..'H'
			b = g.hex(b, g.ptrs[s.kind-'A'])
		}
	}
	return b
}

// pointer returns a heap address: 8-byte aligned, within 256 MiB of the base.
func (g *generator) pointer() uint64 { return g.heapBase + g.rng.Uint64N(1<<28)&^7 }

func (g *generator) hex(b []byte, v uint64) []byte {
	b = append(b, "0x"...)
	return strconv.AppendUint(b, v, 16)
}

func (g *generator) flush() {
	if g.err == nil && len(g.buf) > 0 {
		var n int
		n, g.err = g.w.Write(g.buf)
		g.stats.Bytes += int64(n)
	}
	g.buf = g.buf[:0]
}
