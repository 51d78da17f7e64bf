package main

import (
	"errors"
	"fmt"
	"io"
)

// The rule for input cut short, the same in every command that reads
// dump files (README, "Exit status"): a dump that ends early — text that
// stops mid-goroutine, a JSON document that ends early, the runtime's own
// 64 MiB cut, a gzip or zstd stream that stops before its end — is read
// as far as it goes, marked truncated, and warned about with the line or
// byte where it ends; the command does its work on what was read and
// exits 0. Damaged input (a checksum that does not match, bytes that do
// not decompress, a document that does not parse) is an error: exit 1,
// after what was read before the damage is written.
//
// The text and JSON readers mark a cut dump truncated and warn, without
// an error; a compressed stream cut short is an error of the reader
// (io.ErrUnexpectedEOF, "gzip: unexpected EOF (at byte N of the
// decompressed input)") after the dump read until there was marked
// truncated. cutInput tells that error apart.

// cutInput reports whether err is a read error of an input that ends
// early, after which the dump read so far is the result.
func cutInput(err error) bool {
	var oe outputError
	return err != nil && errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &oe)
}

// keepCut returns nil after saying on w that the input ends early when
// err is a cut input (cutInput); err otherwise. err names the input.
func keepCut(w io.Writer, err error) error {
	if !cutInput(err) {
		return err
	}
	fmt.Fprintf(w, "stackdump: warning: %v: the input ends early; what was read is kept, marked truncated\n", err)
	return nil
}
