package zseg

import (
	"fmt"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// DefaultGzipLevel is the deflate level used when Options.Level is 0: the
// level klauspost's gzip writer uses for gzip.DefaultCompression, as
// output.NewWriter does.
const DefaultGzipLevel = 5

// Codec names a stream's compression. Its values are spelt as
// Codec's, so a caller holding one converts it with
// Codec(c); zseg itself imports no stackdump package.
type Codec string

// The codecs of a Stream; "" is Plain too.
const (
	Plain Codec = "none" // no compression: the bytes as written
	Gzip  Codec = "gzip"
	Zstd  Codec = "zstd"
)

// Options configures a Stream.
type Options struct {
	// Compression is the stream's codec: Gzip, Zstd, or Plain ("" too)
	// for plain bytes.
	Compression Codec
	// Level is the compression level. For gzip it is a klauspost flate
	// level from flate.ConstantCompression (-2, Huffman only) to
	// flate.BestCompression (9), 0 meaning DefaultGzipLevel. For zstd it
	// is a zstd.EncoderLevel from zstd.SpeedFastest to
	// zstd.SpeedBestCompression, 0 meaning zstd.SpeedDefault. It must be
	// 0 without compression.
	Level int
}

// settle returns the options with the compression named canonically and
// the level made explicit, or an error naming what is wrong.
func (o Options) settle() (Options, error) {
	switch o.Compression {
	case "", Plain:
		o.Compression = Plain
		if o.Level != 0 {
			return o, fmt.Errorf("zseg: level %d given without compression", o.Level)
		}
	case Gzip:
		if o.Level == 0 {
			o.Level = DefaultGzipLevel
		}
		if o.Level < flate.ConstantCompression || o.Level > flate.BestCompression {
			return o, fmt.Errorf("zseg: gzip level %d out of range [%d, %d]", o.Level, flate.ConstantCompression, flate.BestCompression)
		}
	case Zstd:
		if o.Level == 0 {
			o.Level = int(zstd.SpeedDefault)
		}
		if o.Level < int(zstd.SpeedFastest) || o.Level > int(zstd.SpeedBestCompression) {
			return o, fmt.Errorf("zseg: zstd level %d out of range [%d, %d]", o.Level, zstd.SpeedFastest, zstd.SpeedBestCompression)
		}
	default:
		return o, fmt.Errorf("zseg: unknown compression %q (want none, gzip or zstd)", o.Compression)
	}
	return o, nil
}
