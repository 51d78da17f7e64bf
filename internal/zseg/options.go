package zseg

import (
	"fmt"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats"
)

// DefaultGzipLevel is the deflate level used when Options.Level is 0: the
// level klauspost's gzip writer uses for gzip.DefaultCompression, as
// formats.NewOutput does.
const DefaultGzipLevel = 5

// Options configures a Stream.
type Options struct {
	// Compression is the stream's format: formats.CompressGzip,
	// formats.CompressZstd, or formats.CompressNone ("" too) for plain
	// bytes.
	Compression formats.Compression
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
	case "", formats.CompressNone:
		o.Compression = formats.CompressNone
		if o.Level != 0 {
			return o, fmt.Errorf("zseg: level %d given without compression", o.Level)
		}
	case formats.CompressGzip:
		if o.Level == 0 {
			o.Level = DefaultGzipLevel
		}
		if o.Level < flate.ConstantCompression || o.Level > flate.BestCompression {
			return o, fmt.Errorf("zseg: gzip level %d out of range [%d, %d]", o.Level, flate.ConstantCompression, flate.BestCompression)
		}
	case formats.CompressZstd:
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
