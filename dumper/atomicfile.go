package dumper

import (
	"errors"

	"github.com/stackdump/stackdump/internal/atomicfile"
)

// AtomicFile is an output file opened by [CreateAtomic]: written under a
// temporary name beside its destination and renamed into place by Commit
// (Abort, or a failed Commit, removes the temporary file and leaves an
// existing destination untouched), or, for a device, FIFO or socket,
// written in place. A writer killed before Commit or Abort leaves its
// temporary file (".NAME.tmp-DIGITS") behind; CreateAtomic removes those
// of the same destination older than [StaleTempAge].
type AtomicFile = atomicfile.File

// StaleTempAge is how long a temporary file of CreateAtomic may go
// unmodified before a later CreateAtomic of the same path removes it.
const StaleTempAge = atomicfile.StaleTempAge

// CreateAtomic opens path for writing. What it does depends on what is
// there:
//
//   - nothing, or a regular file: atomically, through a temporary file
//     beside it, synced and renamed over it on Commit; a new file gets mode
//     0644, a replaced one keeps its mode (and owner where permitted);
//   - a symbolic link: followed, and the file it resolves to is written
//     atomically as above; the link stays a link;
//   - a character or block device, a FIFO or a socket: written directly,
//     with no temporary file, rename or fsync (opening a FIFO waits for its
//     reader);
//   - a directory: an error.
//
// Errors name path (a missing directory by its own name), never the
// temporary file. An empty path is an error (ErrEmptyPath), before
// anything is created.
func CreateAtomic(path string) (*AtomicFile, error) {
	if path == "" {
		return nil, ErrEmptyPath
	}
	return atomicfile.Create(path)
}

// ErrEmptyPath is the error of CreateAtomic and WriteFile given an empty
// path.
var ErrEmptyPath = errors.New("create: empty path")
