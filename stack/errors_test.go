package stack

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestAsParseError checks AsParseError against errors.As on the trees a
// reader's errors come in: bare, wrapped by %w, joined, a ParseError
// wrapping another, and none.
func TestAsParseError(t *testing.T) {
	inner := &ParseError{Line: 2, Msg: "inner"}
	outer := &ParseError{Line: 1, Msg: "outer", Err: inner}
	for _, err := range []error{
		nil,
		io.EOF,
		inner,
		outer,
		fmt.Errorf("reading: %w", inner),
		fmt.Errorf("a: %w", fmt.Errorf("b: %w", outer)),
		errors.Join(io.EOF, fmt.Errorf("c: %w", inner)),
		errors.Join(io.EOF, ErrNotDump),
		fmt.Errorf("two: %w and %w", ErrNotDump, inner),
	} {
		var want *ParseError
		wantOK := errors.As(err, &want)
		got, ok := AsParseError(err)
		if ok != wantOK || got != want {
			t.Errorf("AsParseError(%v) = %v, %v; errors.As finds %v, %v", err, got, ok, want, wantOK)
		}
	}
}
