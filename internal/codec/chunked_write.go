package codec

import "io"

// WriteChunkSize is how much output an encoder gathers in its own buffer
// before it hands the bytes to the destination (itself a large
// bufio.Writer): few Write calls, never one per line.
const WriteChunkSize = 64 << 10

// WriteIfFull writes b to w once it holds writeChunkSize bytes or more and
// returns it emptied, to append the next bytes to; a shorter b comes back
// as it is.
func WriteIfFull(w io.Writer, b []byte) ([]byte, error) {
	if len(b) < WriteChunkSize {
		return b, nil
	}
	_, err := w.Write(b)
	return b[:0], err
}

// WriteRest writes whatever b holds to w and returns it emptied for reuse.
func WriteRest(w io.Writer, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return b, nil
	}
	_, err := w.Write(b)
	return b[:0], err
}
