//go:build !go1.26 || go1.28

package labelsnap

import "unsafe"

// On releases whose goroutine profile layout was not checked, Take
// returns ErrUnsupported before calling anything (runtime_go126.go says
// what was checked).

const supported = false

type stackRecord struct{ Stack []uintptr }

type labelPair struct{ key, value string }

func fetch() ([]stackRecord, []unsafe.Pointer) { return nil, nil }

func labelPairs(unsafe.Pointer) []labelPair { return nil }
