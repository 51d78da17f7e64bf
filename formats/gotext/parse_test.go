package gotext

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

func TestParseFileLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		want fileLine
	}{
		{"\t/src/x.go:12 +0x1f", true, fileLine{File: []byte("/src/x.go"), Line: 12, Offset: 0x1f, HasOffset: true}},
		{"\tC:/a b/x.go:7", true, fileLine{File: []byte("C:/a b/x.go"), Line: 7}},
		{"      /src/r.go:10 +0x24", true, fileLine{File: []byte("/src/r.go"), Line: 10, Offset: 0x24, HasOffset: true}},
		{"\tx.c:3 pc=0x10", true, fileLine{File: []byte("x.c"), Line: 3, PC: 0x10, HasPC: true}},
		{"\tpc=0x10", true, fileLine{PC: 0x10, HasPC: true}},
		{"\t/x.go:1 +0x2 fp=0x3 sp=0x4 pc=0x5", true, fileLine{File: []byte("/x.go"), Line: 1, Offset: 2, HasOffset: true, FP: 3, SP: 4, PC: 5, HasPC: true}},
		{"/src/x.go:12 +0x1f", false, fileLine{}}, // not indented
		{"\t/src/x.go", false, fileLine{}},
		{"\t:12", false, fileLine{}},
		{"\t/src/x.go:12 +0xzz", false, fileLine{}},
		{"\t/src/x.go:12 trailing", false, fileLine{}},
		{"\tgoroutine running on other thread; stack unavailable", false, fileLine{}},
		{"\t", false, fileLine{}},
	} {
		var got fileLine
		ok := parseFileLine([]byte(tc.line), &got)
		if ok != tc.ok || ok && (string(got.File) != string(tc.want.File) || got.Line != tc.want.Line || got.Offset != tc.want.Offset ||
			got.HasOffset != tc.want.HasOffset || got.FP != tc.want.FP || got.SP != tc.want.SP || got.PC != tc.want.PC || got.HasPC != tc.want.HasPC) {
			t.Errorf("parseFileLine(%q) = %v %+v, want %v %+v", tc.line, ok, got, tc.ok, tc.want)
		}
	}
}

func TestParseCall(t *testing.T) {
	for _, tc := range []struct {
		line, name, args string
		form             callForm
	}{
		{"main.f(0x1, {0x2})", "main.f", "0x1, {0x2}", callGo},
		{"main.f()", "main.f", "", callGo},
		{"main.f(...)", "main.f", "", callInlined},
		{"main.(*T).M(...)", "main.(*T).M", "", callInlined},
		{"C.sleep", "C.sleep", "", callBare},
		{"non-Go function at pc=0x1", "non-Go function", "", callNonGo},
		{"main.main)(", "main.main)(", "", callBad},
		{"--- FAIL: TestX (0.00s)", "", "", callNone},
		{"exit status 2", "", "", callNone},
		{"\tmain.f()", "", "", callNone},
		{"(0x1)", "(0x1)", "", callBad},
	} {
		name, args, form := parseCall([]byte(tc.line))
		if string(name) != tc.name || string(args) != tc.args || form != tc.form {
			t.Errorf("parseCall(%q) = %q %q %d, want %q %q %d", tc.line, name, args, form, tc.name, tc.args, tc.form)
		}
	}
}

func TestParseHeaderRejects(t *testing.T) {
	for _, line := range []string{
		"goroutine profile: total 11",
		"goroutine running on other thread; stack unavailable",
		"goroutine 1 [running]",
		"goroutine 1 [running]: trailing",
		"goroutine x [running]:",
		"goroutine 1 gp=0x1 [running]:",
		"goroutine 1 gp=zz m=1 [running]:",
		"goroutine 1 [sleep labels:{\"a\": \"]:\"",
		"goroutine 99999999999999999999 [running]:",
	} {
		var h goHeader
		if parseHeader([]byte(line), &h) {
			t.Errorf("parseHeader(%q) accepted: %+v", line, h)
		}
	}
}

func TestValuesOf(t *testing.T) {
	var tab valueCache
	args := []byte("xx0x1, {0x2}0x3?")
	spans := []valueSpan{{argStart: 2, argEnd: 12}, {argStart: 12, argEnd: 12, fp: 1, sp: 2, pc: 3}, {argStart: 12, argEnd: 16}}
	a := tab.valuesOf(args, spans)
	want := []stack.FrameValue{{Args: "0x1, {0x2}"}, {FP: 1, SP: 2, PC: 3}, {Args: "0x3?"}}
	if a == nil || len(a.Frames) != 3 {
		t.Fatalf("valuesOf = %+v", a)
	}
	for i, w := range want {
		if g := a.Frames[i]; g.Args != w.Args || g.FP != w.FP || g.SP != w.SP || g.PC != w.PC {
			t.Errorf("frame %d = %+v, want %+v", i, g, w)
		}
	}
	copy(args, "yy0x9") // the table must not keep the caller's buffer
	if a.Frames[0].Args != "0x1, {0x2}" {
		t.Errorf("args changed with the buffer: %q", a.Frames[0].Args)
	}
	copy(args, "xx0x1, {0x2}0x3?")
	if b := tab.valuesOf(args, spans); b != a {
		t.Errorf("equal values = %p, want the cached %p", b, a)
	}
	copy(args, "xx0x1, {0x3}0x3?")
	if b := tab.valuesOf(args, spans); b == a || b.Frames[0].Args != "0x1, {0x3}" {
		t.Errorf("different values = %p %+v, want a new one", b, b)
	}
	if tab.valuesOf(args, []valueSpan{{argStart: 0, argEnd: 0}}) != nil {
		t.Error("empty values are not nil")
	}
}

func TestTrailingUint(t *testing.T) {
	for _, tc := range []struct {
		b, sep string
		v      uint64
		k      int
		ok     bool
	}{
		{"chan receive, 5", ", ", 5, 12, true},
		{", 17", ", ", 17, 0, true},
		{"a, b, 3", ", ", 3, 4, true},
		{"main.f in goroutine 12", " in goroutine ", 12, 6, true},
		{"x, 5a", ", ", 0, 0, false},                   // not digits at the end
		{"x,5", ", ", 0, 0, false},                     // no separator before the digits
		{"x, ", ", ", 0, 0, false},                     // no digits
		{"5", ", ", 0, 0, false},                       // separator missing
		{"x, 99999999999999999999", ", ", 0, 0, false}, // overflow
	} {
		v, k, ok := trailingUint([]byte(tc.b), tc.sep)
		if v != tc.v || k != tc.k || ok != tc.ok {
			t.Errorf("trailingUint(%q, %q) = %d, %d, %v; want %d, %d, %v", tc.b, tc.sep, v, k, ok, tc.v, tc.k, tc.ok)
		}
	}
}

// TestLastParen checks lastParen against bytes.LastIndexByte on the
// function lines of the Go tracebacks of testdata, and on their pieces.
func TestLastParen(t *testing.T) {
	n := 0
	for _, path := range dumptest.GoTextFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			for _, b := range [][]byte{line, line[:len(line)/2], line[len(line)/2:]} {
				if got, want := lastParen(b), bytes.LastIndexByte(b, '('); got != want {
					t.Fatalf("lastParen(%q) = %d, want %d", b, got, want)
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d lines checked", n)
	}
}

// TestScanHex checks scanHex against strconv.ParseUint: the leading hex
// digits of mixed case, up to 16 of them, and 0 when there are more.
func TestScanHex(t *testing.T) {
	const digits = "0123456789abcdefABCDEF"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b []byte
		for range rng.IntN(19) {
			b = append(b, digits[rng.IntN(len(digits))])
		}
		k := len(b)
		b = append(b, "gx: )"[rng.IntN(5)])
		v, n := scanHex(b)
		want, err := strconv.ParseUint(string(b[:k]), 16, 64)
		switch {
		case k > 16:
			if v != 0 || n != 0 {
				t.Fatalf("scanHex(%q) = %#x, %d; want 0, 0 (more than 16 digits)", b, v, n)
			}
		case k == 0:
			if v != 0 || n != 0 {
				t.Fatalf("scanHex(%q) = %#x, %d; want 0, 0", b, v, n)
			}
		case err != nil || v != want || n != k:
			t.Fatalf("scanHex(%q) = %#x, %d; want %#x, %d (%v)", b, v, n, want, k, err)
		}
	}
}
