package gotext

const (
	// TruncationSize is the size at which runtime/pprof silently cuts a
	// debug=2 dump (64 MiB); a dump of exactly this size is marked truncated.
	TruncationSize = 64 << 20
	// CutMarker starts the line a writer of a Go traceback appends when it
	// had to cut the text (dumper.GoroutineHandler at its size limit): the
	// reader marks the dump Truncated and warns with the rest of the line.
	CutMarker = "stackdump: traceback cut: "
)
