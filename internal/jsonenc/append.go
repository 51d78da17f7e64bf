package jsonenc

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Append-only JSON building blocks for the hand-written encoders. They
// never allocate beyond growing dst, so a writer can reuse one buffer for a
// whole dump.

const jsonHexDigits = "0123456789abcdef"

// jsonSafe[b] is true for the ASCII bytes that go into a JSON string as
// they are. HTML characters are not escaped: the output is not meant for
// embedding in HTML.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// appendJSONString appends s as a quoted JSON string. Control characters
// are escaped and invalid UTF-8 becomes U+FFFD, so the output is always
// valid JSON whatever the dump held.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: the common case is a file
		// path or function name with nothing to escape.
		for i+8 <= len(s) && jsonPlain8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHexDigits[b>>4], jsonHexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonPlain8 reports whether none of the 8 bytes of s needs escaping or
// UTF-8 checking: no control byte, quote, backslash or byte >= 0x80.
func jsonPlain8(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(x uint64) uint64 { return (x - ones) & ^x & highs }
	special := (w - 0x20*ones) | hasZero(w^('"'*ones)) | hasZero(w^('\\'*ones)) | w
	return special&highs == 0
}

// appendJSONKey appends `"key":` after a comma unless first is set. Keys
// are constants that need no escaping.
func appendJSONKey(dst []byte, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendJSONHex appends v as a JSON string "0x…" (addresses do not fit
// a JSON number exactly).
func appendJSONHex(dst []byte, v uint64) []byte {
	dst = append(dst, '"', '0', 'x')
	dst = strconv.AppendUint(dst, v, 16)
	return append(dst, '"')
}

// appendJSONTime appends t as an RFC 3339 JSON string with nanoseconds.
func appendJSONTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}
