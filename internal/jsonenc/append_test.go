package jsonenc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestJSONStringEscaping(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"q\"b\\", `"q\"b\\"`},
		{"\n\r\t\x00\x1f\x7f", `"\n\r\t\u0000\u001f` + "\x7f" + `"`},
		{"<html>&", `"<html>&"`},
		{"ü€😀", `"ü€😀"`},
		{"bad\xffutf8\xc3", `"bad\ufffdutf8\ufffd"`},
		{"\u2028", "\"\u2028\""},
	} {
		got := string(appendJSONString(nil, c.in))
		if got != c.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", c.in, got, c.want)
		}
		if !gjson.Valid(got) {
			t.Errorf("appendJSONString(%q) = %s: invalid JSON", c.in, got)
		}
	}
}

// refJSONString is a slow, obvious JSON string encoder to check the fast one.
func refJSONString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteString(`\ufffd`)
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	sb.WriteByte('"')
	return sb.String()
}

func TestJSONStringEscapingMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "/", ".", " ", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "\x80", "\xff", "é", "€", "😀", "\xe2\x82", "~", "\x20"}
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		if got, want := string(appendJSONString(nil, s)), refJSONString(s); got != want {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}
