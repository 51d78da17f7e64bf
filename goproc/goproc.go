package goproc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
	"github.com/stackdump/stackdump/stack"
)

// Thread is one OS thread of the target with its registers, as ptrace or
// a core's NT_PRSTATUS gives them.
type Thread struct {
	TID            int
	PC, SP, FP, LR uint64
	TLS            uint64 // amd64 fs_base, arm64 tpidr_el0
}

// Stopper stops every thread of the target and resumes it. Stop returns
// the threads with their registers once all are stopped.
type Stopper interface {
	Stop() ([]Thread, error)
	Resume() error
}

// Options says how Read reads.
type Options struct {
	// Stopper stops the target for one consistent snapshot. Nil: the
	// target is never stopped, each goroutine is read consistent in
	// itself, and the dump says so.
	Stopper Stopper
	// Threads are the target's threads when it is already still (a core
	// file): the registers of the goroutines running on them. Ignored
	// with a Stopper.
	Threads []Thread
	// LoadBias is where a position-independent executable is loaded minus
	// its link address (LoadBias(pid) for a live process); 0 for others.
	LoadBias uint64
	// Now is the target's CLOCK_MONOTONIC in nanoseconds at the read, for
	// the wait minutes (the runtime's nanotime). 0: this machine's clock
	// when the goroutine list is read; < 0: no wait minutes (a core file
	// whose time is unknown).
	Now int64
	// System reads as GOTRACEBACK=system prints: runtime frames and the
	// runtime's own goroutines too, with gp=, m=, fp=, sp= and pc=.
	System bool
	// Retries is how many more times a goroutine that moved while its
	// stack was read is read again before it is written without it. 0:
	// 8; negative: none, each goroutine is read once.
	Retries int
	// Target names the target in the dump ("pid:1234", "core.1234").
	Target string
}

// Stats says what a Read did and cost the target.
type Stats struct {
	// Stopped says the target was stopped (a Stopper was given).
	Stopped bool
	// Stall is how long the target was stopped: from before Stop was
	// called until Resume returned.
	Stall time.Duration
	// Duration is the wall time of the whole read.
	Duration time.Duration
	// Goroutines is how many goroutines the dump holds; Running how many
	// of them were running on a thread.
	Goroutines, Running int
	// Retried counts goroutines read again because they moved while read
	// (after the target resumed, or while it ran); Skipped those still
	// moving after Options.Retries more reads, written without a stack.
	Retried, Skipped int
	// Reads and Bytes are the calls to the Memory and the bytes read.
	Reads int
	Bytes int64
}

// Capture modes of a dump read from memory (stack.Capture.Mode).
const (
	// ModeStopped: one instant, read with the target stopped for the
	// goroutine list, the records and the running goroutines' stacks.
	ModeStopped = "memory-stopped"
	// ModeLive: read without stopping the target; each goroutine is
	// consistent in itself, not all at one instant.
	ModeLive = "memory-live"
	// ModeCore: read from a core file (nothing runs).
	ModeCore = "memory-core"
)

// Read reads every goroutine of the target from its memory and returns
// them as the runtime's own debug=2 traceback would show them at the
// same moment (GOTRACEBACK=system's with Options.System), in the runtime's
// order. Goroutines that could not be read consistently are in the dump
// without a stack, with a warning. The error is set only when nothing
// could be read.
func Read(ctx context.Context, bin *Binary, mem Memory, opts Options) (*stack.Dump, Stats, error) {
	start := time.Now()
	r := newReader(bin, mem, opts)
	var err error
	switch {
	case opts.Stopper != nil:
		err = r.readStopped(ctx)
	default:
		err = r.readUnstopped(ctx, opts.Threads != nil)
	}
	r.stats.Reads, r.stats.Bytes = r.mem.calls, r.mem.bytes
	if err != nil {
		r.stats.Duration = time.Since(start)
		return nil, r.stats, err
	}
	d := r.dump()
	r.stats.Duration = time.Since(start)
	if c := d.Source.Capture; c != nil {
		c.Duration = r.stats.Duration
	}
	return d, r.stats, nil
}

// reader is one Read.
type reader struct {
	bin   *Binary
	l     *rtlayout.Layout
	mem   *counted
	opts  Options
	bias  uint64
	now   int64
	mode  string
	stats Stats

	head, full int // bytes of a g's head and record

	gs          []*gState // in the runtime's order
	warnings    []*stack.ParseError
	kept        []int64 // goroutines that kept moving while read
	funcdataBad bool

	pcv      map[pcvKey]int32
	names    map[int32]string
	files    map[uint64]string
	argBuf   []byte
	labelSet map[uint64]stack.Labels

	buf   []byte // the scattered reads' buffer, reused
	space space

	t      *stack.Table // the routines' frames and stacks
	frames []*stack.Frame
	values []stack.FrameValue
}

type pcvKey struct {
	off uint32
	pc  uint64
}

func newReader(bin *Binary, mem Memory, opts Options) *reader {
	if opts.Retries == 0 {
		opts.Retries = 8
	}
	r := &reader{
		bin: bin, l: bin.layout, mem: newCounted(mem), opts: opts, bias: opts.LoadBias,
		pcv: map[pcvKey]int32{}, names: map[int32]string{}, files: map[uint64]string{},
		labelSet: map[uint64]stack.Labels{}, t: stack.NewTable(),
	}
	r.head, r.full = recordSizes(&bin.layout.G)
	r.stats.Stopped = opts.Stopper != nil
	return r
}

// pcvalue is the pc-value table lookup, cached: goroutines share pcs.
func (r *reader) pcvalue(f *funcInfo, off uint32, pc uint64) int32 {
	if off == 0 {
		return -1
	}
	k := pcvKey{off, pc}
	if v, ok := r.pcv[k]; ok {
		return v
	}
	v := r.bin.tab.pcvalue(f, off, pc, r.bin.quantum)
	if len(r.pcv) > 1<<16 {
		clear(r.pcv)
	}
	r.pcv[k] = v
	return v
}

// errNoList is returned when the goroutine list cannot be read.
var errNoList = errors.New("goproc: cannot read the goroutine list")

// readList reads the goroutine list as the runtime's forEachGRace does:
// allglen, then allgptr, then that many pointers.
func (r *reader) readList() ([]uint64, error) {
	n, err := r.mem.word(r.bin.allglen + r.bias)
	if err != nil {
		return nil, fmt.Errorf("%w: runtime.allglen: %v", errNoList, err)
	}
	ptr, err := r.mem.word(r.bin.allgptr + r.bias)
	if err != nil {
		return nil, fmt.Errorf("%w: runtime.allgptr: %v", errNoList, err)
	}
	if n == 0 || ptr == 0 || n > 1<<28 {
		return nil, fmt.Errorf("%w: %d goroutines at %#x (is the process a Go program that has started, and is LoadBias right?)", errNoList, n, ptr)
	}
	if cap(r.space.listBuf) < int(8*n) {
		r.space.listBuf = make([]byte, 8*n)
		r.space.list = make([]uint64, n)
	}
	buf := r.space.listBuf[:8*n]
	if err := r.mem.read(ptr, buf); err != nil {
		return nil, fmt.Errorf("%w: %v", errNoList, err)
	}
	list := r.space.list[:n]
	for i := range list {
		list[i] = leUint64(buf[8*i:])
	}
	return list, nil
}

// space is what reading n goroutines allocates, made before the target
// is stopped so that the stop is not spent allocating (and collecting).
type space struct {
	listBuf []byte
	list    []uint64
	states  []gState
	ptrs    []*gState
	order   []addrIndex
}

// reserve makes room to read n goroutines.
func (r *reader) reserve(n int) {
	r.space = space{
		listBuf: make([]byte, 8*n),
		list:    make([]uint64, n),
		states:  make([]gState, n),
		ptrs:    make([]*gState, n),
		order:   make([]addrIndex, n),
	}
	r.buf = make([]byte, 0, batchHeads*(r.l.G.Size+64))
}

// checkContext returns ctx's error, wrapped.
func checkContext(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("goproc: %w", err)
	}
	return nil
}
