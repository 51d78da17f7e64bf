package formats

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
	return []Format{FormatText, FormatJSON, FormatDebug1, FormatPprof, FormatFolded}
}

// GroupedFormats returns the formats WriteGroups writes; the slice is the
// caller's.
func GroupedFormats() []Format { return []Format{FormatText, FormatJSON, FormatDebug1} }

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
	FormatText   Format = "text"   // Go traceback text (jstack form for JVM dumps); itself a dump
	FormatJSON   Format = "json"   // stackdump/v1 JSON, docs/json.md
	FormatDebug1 Format = "debug1" // /debug/pprof/goroutine?debug=1 compatible grouped text
	FormatPprof  Format = "pprof"  // pprof protobuf, one sample per stack
	FormatFolded Format = "folded" // Brendan Gregg's folded stacks
)

// Compression names an on-the-wire compression.
type Compression string

// Supported compressions.
const (
	CompressNone Compression = "none"
	CompressGzip Compression = "gzip"
	CompressZstd Compression = "zstd"
)
