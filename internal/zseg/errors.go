package zseg

import "errors"

// errReleased is the error of an Encoder used after Release.
var errReleased = errors.New("zseg: encoder used after Release")

// ErrWriterClosed is returned by Write after Close.
var ErrWriterClosed = errors.New("zseg: writer closed")

// ErrClosed is returned by WriteSegment after Close.
var ErrClosed = errors.New("zseg: stream closed")
