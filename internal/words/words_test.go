package words

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{
		{1, "goroutine", "1 goroutine"},
		{1, "goroutines", "1 goroutine"}, // Summary.Noun is plural
		{0, "goroutines", "0 goroutines"},
		{2, "goroutine", "2 goroutines"},
		{1, "threads", "1 thread"},
		{5, "thread block", "5 thread blocks"},
		{3, "process", "3 processes"},
		{1, "process", "1 process"},
		{-1, "group", "-1 groups"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

type format string

func TestOrAnd(t *testing.T) {
	for _, c := range []struct {
		items []format
		or    string
		and   string
	}{
		{nil, "", ""},
		{[]format{"text"}, "text", "text"},
		{[]format{"text", "json"}, "text or json", "text and json"},
		{[]format{"text", "json", "debug1", "pprof", "folded"}, "text, json, debug1, pprof or folded", "text, json, debug1, pprof and folded"},
	} {
		if got := Or(c.items); got != c.or {
			t.Errorf("Or(%v) = %q, want %q", c.items, got, c.or)
		}
		if got := And(c.items); got != c.and {
			t.Errorf("And(%v) = %q, want %q", c.items, got, c.and)
		}
	}
}

func TestA(t *testing.T) {
	for phrase, want := range map[string]string{
		"json name":       "a json name",
		"html name":       "an html name",
		"HTML page":       "an HTML page",
		"http URL":        "an http URL",
		"pprof name":      "a pprof name",
		"text name":       "a text name",
		"debug1 name":     "a debug1 name",
		".gz name":        "a .gz name",
		"error":           "an error",
		"unknown format":  "an unknown format",
		"user":            "a user",
		"usual case":      "a usual case",
		"8-frame stack":   "an 8-frame stack",
		"80-frame stack":  "an 80-frame stack",
		"11-frame stack":  "an 11-frame stack",
		"18-frame stack":  "an 18-frame stack",
		"110-frame stack": "a 110-frame stack",
		"11000-byte line": "an 11000-byte line",
		"1-frame stack":   "a 1-frame stack",
		"100-frame stack": "a 100-frame stack",
		"":                "a ",
	} {
		if got := A(phrase); got != want {
			t.Errorf("A(%q) = %q, want %q", phrase, got, want)
		}
	}
}

func TestGroupIDList(t *testing.T) {
	seq := func(from, to int64) (ids []int64) {
		for id := from; id <= to; id += 2 {
			ids = append(ids, id)
		}
		return ids
	}
	for _, c := range []struct {
		ids   []int64
		more  int64
		limit int
		want  string
	}{
		{[]int64{1}, 0, 24, "1"},
		{[]int64{1, 2}, 0, 24, "1, 2"},
		{[]int64{1, 2, 3}, 0, 24, "1-3"},
		{[]int64{5, 7, 9, 10, 11, 12, 200}, 0, 24, "5, 7, 9-12, 200"},
		{[]int64{1, 2, 4, 5, 6, 8}, 0, 24, "1, 2, 4-6, 8"},
		{[]int64{1, 2, 4, 5, 6, 8}, 0, 3, "1, 2, 4-6, … (+1 more)"},
		{[]int64{5, 7}, 1100, 24, "5, 7, … (+1100 more)"},
		{seq(1, 99), 0, 4, "1, 3, 5, 7, … (+46 more)"},
	} {
		if got := string(AppendIDList(nil, c.ids, c.more, c.limit)); got != c.want {
			t.Errorf("%v (+%d, limit %d): %q, want %q", c.ids, c.more, c.limit, got, c.want)
		}
	}
}
