//go:build !unix

package remote

import (
	"errors"
	"io/fs"
)

// fileOwner is unknown where files have no uid.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }

// errESRCH stands for ESRCH where there is no /proc to read.
var errESRCH = errors.New("no such process")
