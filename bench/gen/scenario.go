package gen

// scenario is one code path goroutines can be blocked in.
type scenario struct {
	name  string
	state string // wait reason or status, as the runtime prints it
	// weight is the scenario's relative share of the weighted goroutines;
	// singletons have weight 0 and fixed > 0 instead.
	weight float64
	fixed  int
	// waits says how likely a header carries ", N minutes" and its range.
	waits minutes
	// locked prints ", locked to thread".
	locked bool
	// labelled scenarios serve requests and may carry pprof labels.
	labelled bool
	parts    []part
	// creator is the `created by` template (two lines), "" for none.
	creator []frame
	// parent names the singleton whose id goes into the creator line; ""
	// means any earlier goroutine.
	parent string
}

// minutes describe how long goroutines of a scenario have been waiting.
type minutes struct {
	share  float64 // share of headers that carry minutes
	lo, hi int     // range, inclusive
}

// part is a run of frames: fixed, one of several alternatives, or a
// recursion repeated lo..hi times.
type part struct {
	alts   [][]frame
	lo, hi int // repetitions of alts[0] when hi > 0
}

func fixed(t string) part { return part{alts: [][]frame{parseFrames(t)}} }

func oneOf(ts ...string) part {
	p := part{}
	for _, t := range ts {
		p.alts = append(p.alts, parseFrames(t))
	}
	return p
}

func repeat(t string, lo, hi int) part {
	return part{alts: [][]frame{parseFrames(t)}, lo: lo, hi: hi}
}

func frames(parts ...part) []part { return parts }

// creator parses a `created by` template.
func creator(t string) []frame { return parseFrames(t) }

// runtimeFrames are the runtime frames printed on top of a blocked
// goroutine at GOTRACEBACK=system, by state.
var runtimeFrames = map[string][]frame{
	"IO wait": parseFrames(gopark + `
runtime.netpollblock($P?, 0x415686?, 0x0?)
	/usr/local/go/src/runtime/netpoll.go:575 +0xf7`),
	"chan receive": parseFrames(gopark + chanrecv),
	"chan receive (nil chan)": parseFrames(gopark + `
runtime.chanrecv(0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/chan.go:536 +0x1d9
runtime.chanrecv1(0x0?, 0x0?)
	/usr/local/go/src/runtime/chan.go:509 +0x12`),
	"chan send": parseFrames(gopark + `
runtime.chansend($P, $P, 0x1, 0x0?)
	/usr/local/go/src/runtime/chan.go:283 +0x3c5
runtime.chansend1($P?, $P?)
	/usr/local/go/src/runtime/chan.go:161 +0x17`),
	"select": parseFrames(gopark + `
runtime.selectgo($P, $P, 0x0?, 0x1, 0x0?, 0x1)
	/usr/local/go/src/runtime/select.go:351 +0xaa5`),
	"select (no cases)": parseFrames(gopark + `
runtime.block()
	/usr/local/go/src/runtime/select.go:104 +0x26`),
	"sleep":               parseFrames(gopark),
	"sync.Mutex.Lock":     parseFrames(gopark + goparkunlock + semacquire),
	"sync.RWMutex.RLock":  parseFrames(gopark + goparkunlock + semacquire),
	"sync.RWMutex.Lock":   parseFrames(gopark + goparkunlock + semacquire),
	"sync.WaitGroup.Wait": parseFrames(gopark + goparkunlock + semacquire),
	"sync.Cond.Wait":      parseFrames(gopark + goparkunlock),
}

// goexit closes every stack at GOTRACEBACK=system.
var goexit = parseFrames(`
runtime.goexit({})
	/usr/local/go/src/runtime/asm_amd64.s:1771 +0x1`)

const (
	gopark = `
runtime.gopark($P?, $P?, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/proc.go:462 +0xce`
	goparkunlock = `
runtime.goparkunlock(...)
	/usr/local/go/src/runtime/proc.go:468`
	semacquire = `
runtime.semacquire1($P, 0x0, 0x3, 0x2, 0x16)
	/usr/local/go/src/runtime/sema.go:192 +0x232`
	chanrecv = `
runtime.chanrecv($P, $P, 0x1)
	/usr/local/go/src/runtime/chan.go:667 +0x4ae
runtime.chanrecv2($P?, $P?)
	/usr/local/go/src/runtime/chan.go:514 +0x12`
)
