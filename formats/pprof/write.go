package pprof

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes one dump to w as a pprof
// goroutine profile, the form of /debug/pprof/goroutine?debug=0, for `go
// tool pprof` and every other pprof consumer: one sample per distinct
// stack, state, label set and wait bucket, with the state and the
// wait-time bucket as sample labels (docs/profiles.md). The profile is
// written uncompressed at EndDump; compress w to write a .pb.gz. A
// profile stands for one moment of one process: a second dump is refused
// with stack.ErrOneDumpPerProfile.
func NewEncoder(w io.Writer) stack.Encoder { return newPprofEncoder(w) }
