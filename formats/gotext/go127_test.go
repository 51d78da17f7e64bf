package gotext

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// The *_go127 fixtures were printed by testdata/gen/go127, a go 1.27
// module, with go1.27.3 (commands in testdata/gen/README.md). The tests
// below check every header field against the fixture text itself and the
// label sets against those the generator sets.

// reGo127Header splits a goroutine header into id, gp, m, mp, status and
// the 1.27 label text.
var reGo127Header = regexp.MustCompile(`(?m)^goroutine (\d+)(?: gp=0x([0-9a-f]+) m=(\d+|nil)(?: mp=0x([0-9a-f]+))?)? \[([^\]]*)\](?: \{(.*)\})?:$`)

// go127Labels are the label sets the generator's startLabelled and
// modeLeak give goroutines, as written by pprof.Labels.
var go127Labels = map[string]stack.Labels{
	"svc: users":                                {{Key: "svc", Value: "users"}},
	`svc: orders, "weird key": "a\"b\nc]:"`:     {{Key: "svc", Value: "orders"}, {Key: "weird key", Value: "a\"b\nc]:"}},
	`tab: "x\ty", unicode: "h\u00e9llo \u2713"`: {{Key: "tab", Value: "x\ty"}, {Key: "unicode", Value: "héllo ✓"}},
	"leaker: 0":                                 {{Key: "leaker", Value: "0"}},
	"leaker: 1":                                 {{Key: "leaker", Value: "1"}},
	"leaker: 2":                                 {{Key: "leaker", Value: "2"}},
}

func readFixture(t *testing.T, name string) ([]byte, []*stack.Dump) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/go/" + name)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := readAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	for _, d := range dumps {
		for _, w := range d.Warnings {
			t.Errorf("warning: %v", w)
		}
		if d.Truncated {
			t.Error("read as truncated")
		}
	}
	return data, dumps
}

// TestGo127TracebackHeaders reads every 1.27 traceback and checks that
// each goroutine header became one routine with every field the header
// carries: id, gp/m/mp, state, (leaked), and the default-on labels.
func TestGo127TracebackHeaders(t *testing.T) {
	for _, name := range []string{"panic_go127.txt", "leak_debug2_go127.txt", "overflow_go127.txt", "sigquit_go127.txt", "racepanic_go127.txt"} {
		t.Run(name, func(t *testing.T) {
			data, dumps := readFixture(t, name)
			byLine := map[int]*stack.Routine{}
			for _, d := range dumps {
				if d.Source.Kind != stack.KindGoTraceback {
					t.Errorf("kind %s", d.Source.Kind)
				}
				for _, r := range d.Routines {
					byLine[r.Line] = r
				}
			}
			lines := strings.Split(string(data), "\n")
			headers, labelled := 0, 0
			for i, line := range lines {
				m := reGo127Header.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				headers++
				r := byLine[i+1]
				if r == nil {
					t.Errorf("line %d: header not read: %s", i+1, line)
					continue
				}
				if id, _ := strconv.ParseInt(m[1], 10, 64); r.ID != id {
					t.Errorf("line %d: id %d, want %d", i+1, r.ID, id)
				}
				if r.HasGP != (m[2] != "") {
					t.Errorf("line %d: HasGP %v", i+1, r.HasGP)
				}
				if m[2] != "" {
					gp, _ := strconv.ParseUint(m[2], 16, 64)
					mp, _ := strconv.ParseUint(m[4], 16, 64)
					mm := int64(-1)
					if m[3] != "nil" {
						mm, _ = strconv.ParseInt(m[3], 10, 64)
					}
					if r.GP != gp || r.M != mm || r.MP != mp {
						t.Errorf("line %d: gp=%#x m=%d mp=%#x, want %#x %d %#x", i+1, r.GP, r.M, r.MP, gp, mm, mp)
					}
				}
				state, leaked := strings.CutSuffix(m[5], " (leaked)")
				if r.State != state || r.Leaked != leaked {
					t.Errorf("line %d: state %q leaked %v, want %q %v", i+1, r.State, r.Leaked, state, leaked)
				}
				if m[6] == "" {
					if r.Labels != nil {
						t.Errorf("line %d: labels %v on a header without any", i+1, r.Labels)
					}
					continue
				}
				labelled++
				want, ok := go127Labels[m[6]]
				if !ok {
					t.Fatalf("line %d: labels %q not set by the generator", i+1, m[6])
				}
				if !equalLabels(r.Labels, want) {
					t.Errorf("line %d: labels %q, want %q", i+1, r.Labels, want)
				}
			}
			if headers == 0 || labelled == 0 {
				t.Errorf("%d headers, %d labelled: not a 1.27 fixture with default labels", headers, labelled)
			}
			// Every frame line with fp= sp= pc= (throws, SIGQUIT) was read
			// into the routine's values.
			wantFP := strings.Count(string(data), " fp=0x")
			gotFP := 0
			for _, d := range dumps {
				if s := d.SystemStack; s != nil && s.Values != nil {
					for _, v := range s.Values.Frames {
						if v.FP != 0 {
							gotFP++
						}
					}
				}
				for _, r := range d.Routines {
					if r.CreatedByValues != nil && r.CreatedByValues.FP != 0 {
						gotFP++
					}
					if r.Values == nil {
						continue
					}
					for _, v := range r.Values.Frames {
						if v.FP != 0 {
							gotFP++
						}
					}
				}
			}
			if gotFP != wantFP {
				t.Errorf("%d frames with fp=, the text has %d", gotFP, wantFP)
			}
		})
	}
}

func equalLabels(a, b stack.Labels) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
