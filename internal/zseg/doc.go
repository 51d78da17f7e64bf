// Package zseg builds one gzip or zstd stream out of segments compressed
// independently of each other, on many goroutines at once, and written in
// order by one.
//
// A [Stream] hands out one [Encoder] per worker goroutine. A worker writes
// a chunk of output into its Encoder and calls [Encoder.Take], which ends
// the chunk as a [Segment]; one goroutine passes the segments, in stream
// order, to [Stream.WriteSegment], and [Stream.Close] ends the stream.
//
// A [Writer] is the same as an io.WriteCloser: it cuts what is written
// to it into blocks, compresses them on worker goroutines and writes the
// segments in order from the goroutine that calls Write and Close (a
// parallel gzip like klauspost/pgzip, which measured half as fast here).
//
// Framing:
//
//   - gzip (RFC 1952): the 10-byte header, then every segment as raw
//     deflate (RFC 1951) from a compressor reset for it (no shared
//     history) and ended by a sync flush: its blocks are not final and
//     it stops on a byte boundary, so the segments concatenate into one
//     deflate stream. Close adds an empty final block (0x03 0x00) and the
//     trailer: the CRC-32 of all the data, combined from the segments'
//     own CRCs (crc32Combine), and its size modulo 2^32.
//   - zstd (RFC 8878): every non-empty segment is a whole frame with its
//     own checksum; a stream is the frames one after another. A stream
//     with no data is one empty frame, since decoders reject zero bytes.
//   - none: segments are the bytes written, as they are.
//
// Any decoder reads the result as a single ordinary stream; segments cost
// about 5 bytes each in gzip and a frame header and checksum in zstd, plus
// the matches a shared history would have found across their boundaries.
package zseg
