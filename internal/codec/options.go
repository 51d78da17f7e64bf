package codec

import "github.com/stackdump/stackdump/stack"

// The defaults of the limits every reader shares.
const (
	// DefaultMaxLine bounds one input line of the text readers (1 MiB).
	DefaultMaxLine = 1 << 20
	// DefaultMaxBytes bounds what a compressed input may inflate to, and
	// the document the pprof and JSON readers hold in memory (16 GiB).
	DefaultMaxBytes = 16 << 30
)

// Options are what a format's decoder takes from its caller's read
// options; zero values mean the defaults (WithDefaults).
type Options struct {
	// Table interns frames and stacks; nil means a new Table.
	Table *stack.Table
	// MaxLineBytes bounds one input line (the text readers and the JSON
	// reader's elements); zero means DefaultMaxLine.
	MaxLineBytes int
	// MaxBytes bounds a document read whole into memory (pprof, JVM JSON,
	// stackdump JSON); zero means DefaultMaxBytes.
	MaxBytes int64
	// ReuseRoutines lets a decoder reuse the routines it yields.
	ReuseRoutines bool
	// Lines makes the lines of a decoder that can read them either way
	// (the Go traceback reader): internal/unpaste.NewLines for input a
	// person may have pasted, nil (NewLines) for text as the runtime
	// wrote it.
	Lines func(in *Stream, max int) *Lines
}

// WithDefaults returns o with a nil Table and zero limits replaced by
// their defaults.
func (o Options) WithDefaults() Options {
	if o.Table == nil {
		o.Table = stack.NewTable()
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLine
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}
