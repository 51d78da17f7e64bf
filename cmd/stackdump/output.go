package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/atomicfile"
	"github.com/stackdump/stackdump/internal/zseg"
)

// writeTo is how every command opens its output: it runs write against
// path through one large buffer and compression comp, compressed on every
// CPU (a dump is a file to keep: gzip at its default level). path "" or
// "-" is w (standard output). Anything else is opened by atomicfile: a
// regular file or a new path is replaced atomically keeping its mode, a
// symbolic link is followed and stays, a device, FIFO or socket is written
// in place. On error, or on SIGINT/SIGTERM (see interrupt.go), nothing
// partial is published and no temporary file is left, unless write's
// error is a keptError: bad input after a partial result was written (a
// dump cut short), which is published as any output, and then its error
// is returned.
func writeTo(path string, w io.Writer, comp output.Compression, write func(io.Writer) error) error {
	return outputFailure(path, writeOutput(path, w, comp, nil, write))
}

// writeToCounting is writeTo that counts in *written the bytes written
// to path or w: compressed, what the file holds.
func writeToCounting(path string, w io.Writer, comp output.Compression, written *atomic.Int64, write func(io.Writer) error) error {
	return outputFailure(path, writeOutput(path, w, comp, written, write))
}

// writeOutput is writeTo without the rewording of output errors,
// counting the bytes written in *written when not nil.
func writeOutput(path string, w io.Writer, comp output.Compression, written *atomic.Int64, write func(io.Writer) error) error {
	count := func(w io.Writer) io.Writer {
		if written == nil || w == io.Discard {
			return w
		}
		return countingWriter{w, written}
	}
	if path == "" || path == "-" {
		out, err := newOutput(count(w), comp)
		if err != nil {
			return err
		}
		if err := write(out); err != nil {
			cerr := out.Close()
			var kept keptError
			if errors.As(err, &kept) && cerr != nil {
				return errors.Join(kept.err, cerr)
			}
			if errors.As(err, &kept) {
				return kept.err
			}
			return err
		}
		return out.Close()
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	out, err := newOutput(count(f), comp)
	if err != nil {
		return err
	}
	var kept keptError
	if err := write(out); err != nil && !errors.As(err, &kept) {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	if kept.err != nil {
		return kept.err
	}
	return nil
}

// outputFailure says err, when it is a failure to write the output path
// ("" or "-": standard output), in one clause: "writing /dev/full: no
// space left on device", where the os package's error and its wrappers
// said "write /dev/full: write /dev/full: no space left on device". Other
// errors (the input's) are returned as they are.
func outputFailure(path string, err error) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	name := path
	switch {
	case (path == "" || path == "-") && pe.Path == os.Stdout.Name():
		name = "standard output"
	case pe.Path == path:
	default:
		return err // a file of the input
	}
	var kept keptError
	if errors.As(err, &kept) {
		return err // the input's error after a partial result
	}
	return fmt.Errorf("writing %s: %w", name, pe.Err)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// keptError is an input's error after which what write wrote is the
// partial result to keep (the rule for bad input): writeTo publishes the
// output, then returns err.
type keptError struct{ err error }

func (e keptError) Error() string { return e.err.Error() }
func (e keptError) Unwrap() error { return e.err }

// checkOutput reports, before any work (a capture that pauses a target, a
// long read), an output path that writeTo could not write: a missing
// directory, a read-only or forbidden one, a directory in place of the
// file. "" and "-" (standard output) always pass.
func checkOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	return atomicfile.Check(path)
}

// newOutput returns the buffered output, compressed with comp, a command
// writes to w.
func newOutput(w io.Writer, comp output.Compression) (io.WriteCloser, error) {
	if w == io.Discard {
		return discardOutput{}, nil // watch without -o: no 1 MiB buffer per capture
	}
	return zseg.NewOutput(w, zseg.Options{Compression: zseg.Codec(comp)}, runtime.GOMAXPROCS(0))
}

// discardOutput is the output of a capture nobody keeps.
type discardOutput struct{}

func (discardOutput) Write(p []byte) (int, error) { return len(p), nil }
func (discardOutput) Close() error                { return nil }
