package gen

// Options say what dump to generate. The output is a pure function of them.
type Options struct {
	// Goroutines is how many goroutines the dump holds (at least the
	// handful of singletons every service has, about 20).
	Goroutines int
	// Seed picks every random choice; equal seeds give equal bytes.
	Seed uint64
	// SystemShare is the share of goroutines printed as at
	// GOTRACEBACK=system in Go 1.22+: a `gp=0x… m=nil` header, runtime
	// frames, `fp= sp= pc=` on every frame and a closing runtime.goexit({}).
	SystemShare float64
	// LabelShare is the share of request-serving goroutines printed with
	// Go 1.26 `labels:{"k": "v"}` in their header (GODEBUG=tracebacklabels=1).
	LabelShare float64
	// Elide lets stacks deeper than 100 frames print as Go 1.21+ does: 50
	// frames, `...N frames elided...`, 50 frames. When false, deep
	// recursions are kept at 100 frames or fewer.
	Elide bool
}

// Compatible returns options for a dump without the line forms that
// gostackparse v0.7.0 drops (gp= headers, labels, `...N frames elided...`),
// so that every parser sees all n goroutines.
func Compatible(n int, seed uint64) Options {
	return Options{Goroutines: n, Seed: seed}
}

// Default shares of the Modern preset: low, as in a dump where only a few
// goroutines carry labels and a throw printed a few system frames.
const (
	DefaultSystemShare = 0.01
	DefaultLabelShare  = 0.02
)

// Modern returns options for a Go 1.26 dump that also carries a small share
// of `gp= m= mp=` headers (with fp/sp/pc frames), `labels:{…}` headers and
// elided deep stacks.
func Modern(n int, seed uint64) Options {
	return Options{Goroutines: n, Seed: seed, SystemShare: DefaultSystemShare, LabelShare: DefaultLabelShare, Elide: true}
}

// Stats describe a generated dump, for tests and reports.
type Stats struct {
	Goroutines int
	Bytes      int64
	// States counts goroutines per state as a reader reports it: the wait
	// reason without ", N minutes", ", locked to thread" or labels.
	States map[string]int
	// System, Labelled and Elided count goroutines printed with a gp=
	// header, with labels, and with `...N frames elided...`.
	System, Labelled, Elided int
	// Modern counts goroutines with at least one of those three forms:
	// the ones gostackparse v0.7.0 drops.
	Modern int
	// WithMinutes and Locked count headers with wait minutes and with
	// ", locked to thread".
	WithMinutes, Locked int
	// Stacks is the number of distinct stacks (frames and elision), the
	// number of groups a by-stack grouping should find.
	Stacks int
}
