// Package output names stackdump's outputs: the formats a dump is written
// in ([Format]: [Text], [JSON], [Debug1], [Pprof], [Folded]), the
// compressions ([Compression]: [None], [Gzip], [Zstd]), the rule that
// settles both from a file name and explicit choices ([For]), and the
// buffered, compressed [Writer]: one 1 MiB bufio.Writer, compressed with
// gzip or zstd on the fly (stackdump's commands and package dumper use a
// parallel compressor of their own instead).
//
//	f, c, err := output.For("goroutines.json.gz", output.Options{}) // JSON, gzip
//	if err != nil {
//		return err // an extension that contradicts the options, or one stackdump does not write
//	}
//	w, err := output.NewWriter(file, c)
//	if err != nil {
//		return err
//	}
//	enc, err := formats.NewEncoder(w, f)
//	if err != nil {
//		return err
//	}
//	if err := stack.WriteDump(enc, d); err != nil {
//		return err
//	}
//	return w.Close() // flushes and ends the compressed stream
//
// [Extension] is For's inverse (".json.gz"), and [ParseFormat] and
// [ParseCompression] read the CLI's --format and --compress values. The
// package holds names and the writer, no codec, so that a program that
// writes one format links that format's codec alone.
package output
