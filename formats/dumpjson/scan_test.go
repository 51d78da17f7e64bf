package dumpjson

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestJSONScannerFindsValueEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		end  int // bytes of the value, leading space included; -1: needs more input
		err  error
		more bool // a number or literal that may end at EOF
	}{
		{in: `{"a":"b"} tail`, end: 9},
		{in: `  [1, {"x": [2]}],`, end: 17},
		{in: `"str\"ing" x`, end: 10},
		{in: `"a\\" x`, end: 5},
		{in: `"a\\\"b" x`, end: 8},
		{in: `{"k":"]}"}]`, end: 10},
		{in: `123,`, end: 3},
		{in: `true}`, end: 4},
		{in: `123`, end: -1, more: true},
		{in: `{"open": [1, 2`, end: -1},
		{in: `"unterminated \"`, end: -1},
		{in: `]`, end: -1, err: errJSONStray},
		{in: strings.Repeat("[", jsonMaxDepth+1), end: -1, err: errJSONTooDeep},
	} {
		for chunk := 1; chunk <= len(c.in); chunk++ {
			var s jsonScanner
			end, done, err := -1, false, error(nil)
			for off := 0; off < len(c.in) && !done && err == nil; off += chunk {
				p := []byte(c.in[off:min(off+chunk, len(c.in))])
				var n int
				n, done, err = s.scan(p)
				if done {
					end = off + n
				}
			}
			if !errors.Is(err, c.err) || end != c.end || (!done && s.atEOF() != c.more) {
				t.Errorf("%q in chunks of %d: end %d, err %v, atEOF %v; want %d, %v, %v", c.in, chunk, end, err, s.atEOF(), c.end, c.err, c.more)
				break
			}
		}
	}
}

func TestJSONStreamReadValueLimits(t *testing.T) {
	s := jsonStream{r: bufio.NewReaderSize(strings.NewReader(`{"a":"`+strings.Repeat(`\"`, 5000)+`"} [1]`), 16)}
	v, err := s.readValue(nil, 100)
	if err != errJSONValueSize || len(v) != 0 {
		t.Fatalf("oversized value: %d bytes, %v; want it skipped with errJSONValueSize", len(v), err)
	}
	if _, err := s.peekNonSpace(); err != nil {
		t.Fatal(err)
	}
	v, err = s.readValue(nil, 100)
	if err != nil || string(v) != "[1]" || s.off != int64(len(`{"a":"`)+10000+len(`"} [1]`)) {
		t.Errorf("next value %q, %v at offset %d", v, err, s.off)
	}
	if _, err := s.readValue(nil, 100); err != io.ErrUnexpectedEOF {
		t.Errorf("read past the end: %v, want io.ErrUnexpectedEOF", err)
	}
}
