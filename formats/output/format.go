package output

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
)

// Format names an output encoding.
type Format string

// Formats returns every output format, for flag help and errors; the
// slice is the caller's.
func Formats() []Format {
	return []Format{Text, JSON, Debug1, Pprof, Folded}
}

// GroupedFormats returns the formats WriteGroups writes; the slice is the
// caller's.
func GroupedFormats() []Format { return []Format{Text, JSON, Debug1} }

// CanGroup reports whether WriteGroups writes format f.
func CanGroup(f Format) bool { return slices.Contains(GroupedFormats(), f) }

// ParseFormat parses a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, words.Or(Formats()))
}

// Output formats.
const (
	Text   Format = "text"   // Go traceback text (jstack form for JVM dumps); itself a dump
	JSON   Format = "json"   // stackdump/v1 JSON, docs/json.md
	Debug1 Format = "debug1" // /debug/pprof/goroutine?debug=1 compatible grouped text
	Pprof  Format = "pprof"  // pprof protobuf, one sample per stack
	Folded Format = "folded" // Brendan Gregg's folded stacks
)

// Compression names an on-the-wire compression.
type Compression string

// Supported compressions.
const (
	None Compression = "none"
	Gzip Compression = "gzip"
	Zstd Compression = "zstd"
)
