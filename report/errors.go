package report

import "errors"

// The package's errors, for errors.Is.
var (
	// ErrNoInput is returned by Write when it is given no dump.
	ErrNoInput = errors.New("report: no dump to report on")
	// ErrNoDump is returned by Read for an input that holds no dump.
	ErrNoDump = errors.New("no dump found")
)
