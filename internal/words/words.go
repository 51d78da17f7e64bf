// Package words writes counts and lists for people: "1 goroutine",
// "3 groups", "text, json or pprof". Every message of stackdump that counts
// something or lists choices goes through it, so that none says
// "1 goroutines" or prints a Go slice.
package words

import (
	"strconv"
	"strings"
)

// Count is n followed by noun, made plural unless n is 1: "1 goroutine",
// "0 goroutines", "2 thread blocks". Nouns ending in s, x, sh or ch take
// "es"; a noun given in the plural ("goroutines", as Summary.Noun is) is
// made singular for 1.
func Count[N ~int | ~int64 | ~int32 | ~uint64](n N, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(int64(n), noun)
}

// Noun is noun in the number n asks for, without the number.
func Noun(n int64, noun string) string {
	singular := Singular(noun)
	if n == 1 {
		return singular
	}
	return Plural(singular)
}

// Plural returns the plural of a regular singular noun ("group" →
// "groups", "process" → "processes"); of a noun phrase, its last word.
func Plural(singular string) string {
	for _, end := range []string{"s", "x", "sh", "ch"} {
		if strings.HasSuffix(singular, end) {
			return singular + "es"
		}
	}
	return singular + "s"
}

// pluralsKnown are the plural nouns stackdump counts, with their singular.
var pluralsKnown = map[string]string{
	"goroutines": "goroutine",
	"threads":    "thread",
	"routines":   "routine",
	"groups":     "group",
	"dumps":      "dump",
	"processes":  "process",
}

// Singular returns the singular of one of the plural nouns stackdump
// counts ("goroutines", "threads"), and any other noun unchanged.
func Singular(noun string) string {
	if s, ok := pluralsKnown[noun]; ok {
		return s
	}
	return noun
}

// Or lists choices as words: "a", "a or b", "a, b or c".
func Or[S ~string](items []S) string { return join(items, "or") }

// And lists items as words: "a", "a and b", "a, b and c".
func And[S ~string](items []S) string { return join(items, "and") }

func join[S ~string](items []S, conj string) string {
	var b strings.Builder
	for i, it := range items {
		switch {
		case i == 0:
		case i == len(items)-1:
			b.WriteString(" " + conj + " ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(it))
	}
	return b.String()
}

// A is phrase after the indefinite article its sound takes: "a json
// name", "an html name", "an 8-frame stack", "a 100-frame stack", "an
// 11-frame stack". It goes by the first letters, not by pronunciation
// rules in general: a vowel takes "an" (but "uni", "use", "usu" and "ut"
// sound like "you"), so do the initialisms stackdump names whose first
// letter sounds like a vowel ("html", "http"), and numbers read as
// "eight…", "eleven…" or "eighteen…".
func A(phrase string) string {
	if an(strings.ToLower(phrase)) {
		return "an " + phrase
	}
	return "a " + phrase
}

// an reports whether lower, a phrase in lower case, takes "an".
func an(lower string) bool {
	if lower == "" {
		return false
	}
	switch c := lower[0]; {
	case c >= '0' && c <= '9':
		n := 0
		for n < len(lower) && lower[n] >= '0' && lower[n] <= '9' {
			n++
		}
		// 11 and 18 are "eleven", "eighteen", and so are 11,000 and
		// 18,000,000: the leading group of a thousands split.
		return c == '8' || n%3 == 2 && (strings.HasPrefix(lower, "11") || strings.HasPrefix(lower, "18"))
	case c == 'a' || c == 'e' || c == 'i' || c == 'o':
		return true
	case c == 'u':
		for _, you := range []string{"uni", "use", "usu", "ut"} {
			if strings.HasPrefix(lower, you) {
				return false
			}
		}
		return true
	}
	for _, initialism := range []string{"html", "htm", "http"} {
		if lower == initialism || strings.HasPrefix(lower, initialism+" ") || strings.HasPrefix(lower, initialism+"-") {
			return true
		}
	}
	return false
}

// AppendIDList appends sorted ids as group reports list members: runs of
// three or more as ranges ("5, 7, 9-120"), at most limit items, then how
// many ids were left out here or before (more): "…, 200, … (+1100 more)".
func AppendIDList(b []byte, ids []int64, more int64, limit int) []byte {
	items := 0
	i := 0
	for i < len(ids) && items < limit {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j-i == 1 {
			j = i // a run of two is two items
		}
		if items > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, ids[i], 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, ids[j], 10)
		}
		items++
		i = j + 1
	}
	if more += int64(len(ids) - i); more > 0 {
		b = append(b, ", … (+"...)
		b = strconv.AppendInt(b, more, 10)
		b = append(b, " more)"...)
	}
	return b
}
