package gotext

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// summary is what the form tests compare: per dump its preamble, truncation,
// warnings (line: message), routines as "id state" strings, and the parts
// kept beside the routines: "race" with its accesses' and creators'
// goroutines, "system stack" with its frame count.
type summary struct {
	Preamble  []string
	Truncated bool
	Warnings  []string
	Routines  []string
	Parts     []string
}

func summarize(dumps []*stack.Dump) []summary {
	var out []summary
	for _, d := range dumps {
		s := summary{Preamble: d.Preamble, Truncated: d.Truncated}
		for _, w := range d.Warnings {
			s.Warnings = append(s.Warnings, itoa(w.Line)+": "+w.Msg)
		}
		for _, r := range d.Routines {
			s.Routines = append(s.Routines, itoa(int(r.ID))+" "+r.State)
		}
		for _, rc := range d.Races {
			p := "race"
			for _, a := range rc.Accesses {
				p += " " + a.Op + "@" + itoa(int(a.Goroutine))
			}
			for _, c := range rc.Creators {
				p += " created@" + itoa(int(c.Goroutine)) + " " + c.State
			}
			s.Parts = append(s.Parts, p)
		}
		if d.SystemStack != nil {
			s.Parts = append(s.Parts, "system stack "+itoa(len(d.SystemStack.Stack.Frames)))
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

const g1 = "goroutine 1 [running]:\nmain.main()\n\t/src/main.go:10 +0x1d\n"
const g2 = "goroutine 2 [chan receive]:\nmain.worker(0xc000010000)\n\t/src/main.go:20 +0x2a\ncreated by main.main in goroutine 1\n\t/src/main.go:9 +0x3b\n"

func TestGoTextForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []summary
	}{
		{"plain", g1 + "\n" + g2, []summary{{Routines: []string{"1 running", "2 chan receive"}}}},
		{"panic", "panic: boom\n\n" + g1, []summary{{Preamble: []string{"panic: boom"}, Routines: []string{"1 running"}}}},
		{"panic value forms", "panic: main.MyStr(\"x\")\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x514143]\n\n" + g1,
			[]summary{{Preamble: []string{`panic: main.MyStr("x")`, "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x514143]"}, Routines: []string{"1 running"}}}},
		{"recovered chain", "panic: first [recovered]\n\tpanic: second\n\n" + g1,
			[]summary{{Preamble: []string{"panic: first [recovered]", "\tpanic: second"}, Routines: []string{"1 running"}}}},
		{"repanicked", "panic: first [recovered, repanicked]\n\n" + g1,
			[]summary{{Preamble: []string{"panic: first [recovered, repanicked]"}, Routines: []string{"1 running"}}}},
		{"multi-line value 1.23+", "panic: line one\n\tline two\n\tline three\n\n" + g1,
			[]summary{{Preamble: []string{"panic: line one", "\tline two", "\tline three"}, Routines: []string{"1 running"}}}},
		{"multi-line value 1.22-", "panic: line one\nline two\nmain.notAFrame()\n\n" + g1,
			[]summary{{Preamble: []string{"panic: line one", "line two", "main.notAFrame()"}, Routines: []string{"1 running"}}}},
		{"fatal error twice", "fatal error: concurrent map writes\nfatal error: concurrent map writes\n\n" + g1,
			[]summary{{Preamble: []string{"fatal error: concurrent map writes", "fatal error: concurrent map writes"}, Routines: []string{"1 running"}}}},
		{"runtime diagnostics and runtime stack",
			"runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw({0x4b0e14?, 0x0?})\n\t/go/src/runtime/panic.go:1047 +0x5d fp=0x7ffc fp=0x1 sp=0x2 pc=0x3\nruntime.newstack()\n\t/go/src/runtime/stack.go:1103 +0x5cc\n\n" + g1,
			[]summary{{Preamble: []string{"runtime: goroutine stack exceeds 1000000000-byte limit", "runtime: sp=0xc020160398 stack=[0xc020160000, 0xc040160000]", "fatal error: stack overflow"},
				Routines: []string{"1 running"}, Parts: []string{"system stack 2"}}}},
		{"sigquit with registers", "SIGQUIT: quit\nPC=0x40816e m=0 sigcode=0\n\ngoroutine 0 gp=0x6866e0 m=0 mp=0x6874a0 [idle]:\nruntime.futex(0x1)\n\t/go/src/runtime/sys_linux_amd64.s:557 +0x21 fp=0x1 sp=0x2 pc=0x3\n\n" + g1 + "\nrax    0xfffffffffffffffc\nrbx    0x0\nrflags 0x286\ngs     0x0\nexit status 2\n",
			[]summary{{Preamble: []string{"SIGQUIT: quit", "PC=0x40816e m=0 sigcode=0"}, Routines: []string{"0 idle", "1 running"}}}},
		{"header-less first goroutine", "SIGABRT: abort\nPC=0x424dd1\n\nruntime.notetsleepg(0x649aa0)\n\t/go/src/pkg/runtime/lock_futex.c:190 +0x46 fp=0x2ba270d3ff48\n\n" + g1,
			[]summary{{Preamble: []string{"SIGABRT: abort", "PC=0x424dd1"}, Routines: []string{"0 ", "1 running"}}}},
		{"junk around and between", "2026/11/30 10:00:00 starting\n=== RUN   TestX\n" + g1 + "log line in between\n\n--- FAIL: TestX (0.00s)\n" + g2 + "exit status 2\nFAIL\tpkg\t0.01s\n",
			[]summary{{Routines: []string{"1 running", "2 chan receive"}}}},
		{"junk right after frames", g1 + "exit status 2\nPASS\nok  \tpkg\t0.01s\n", []summary{{Routines: []string{"1 running"}}}},
		{"unavailable", "goroutine 18 [running]:\n\tgoroutine running on other thread; stack unavailable\ncreated by main.main\n\t/src/main.go:22 +0xaa\n",
			[]summary{{Routines: []string{"18 running"}}}},
		{"empty stack", "goroutine 1 [running]:\n\ngoroutine 2 [running]:\n\n", []summary{{Routines: []string{"1 running", "2 running"}}}},
		{"unexpected return pc inside a trace", "goroutine 17 [running]:\nmain.a()\n\t/src/a.go:1 +0x1\nruntime: g17: unexpected return pc for main.a called from 0xdeadbeef\nstack: frame={sp:0xc000045f48, fp:0xc000045f70} stack=[0xc000045000,0xc000046000)\n0x000000c000045e48:  0x0000000000000000  0x0000000000000000 \nmain.b()\n\t/src/a.go:2 +0x2\n",
			[]summary{{Routines: []string{"17 running"}}}},
		{"stack segment boundary", "goroutine 5 [running]:\nmain.a()\n\t/src/a.go:1 +0x1\n----- stack segment boundary -----\nmain.b()\n\t/src/a.go:2 +0x2\n",
			[]summary{{Routines: []string{"5 running"}}}},

		// Several dumps in one stream.
		{"second runtime.Stack", g1 + "\n" + g2 + "\n" + g1 + "\n" + g2,
			[]summary{{Routines: []string{"1 running", "2 chan receive"}}, {Routines: []string{"1 running", "2 chan receive"}}}},
		{"new preamble after routines", "panic: one\n\n" + g1 + "\npanic: two\n\n" + g1,
			[]summary{{Preamble: []string{"panic: one"}, Routines: []string{"1 running"}}, {Preamble: []string{"panic: two"}, Routines: []string{"1 running"}}}},
		{"preamble-only dump", "panic: quoted in a log\n\nsome log line\npanic: real\n\n" + g1,
			[]summary{{Preamble: []string{"panic: quoted in a log"}}, {Preamble: []string{"panic: real"}, Routines: []string{"1 running"}}}},
		{"race then goroutines", "==================\nWARNING: DATA RACE\nWrite at 0x00c000014100 by goroutine 7:\n  main.w()\n      /src/r.go:10 +0x24\n\nPrevious read at 0x00c000014100 by main goroutine:\n  main.main()\n      /src/r.go:14 +0x33\n==================\npanic: after race\n\n" + g1,
			[]summary{{Preamble: []string{"panic: after race"}, Routines: []string{"1 running"}, Parts: []string{"race write@7 read@1"}}}},
		{"goroutines then race", g1 + "\n==================\nWARNING: DATA RACE\nRead by goroutine 5:\n  main.r()\n      /src/r.go:10 +0x24\n\nGoroutine 5 (finished) created at:\n  main.main()\n      /src/r.go:13 +0x27\n==================\n",
			[]summary{{Routines: []string{"1 running"}}, {Parts: []string{"race read@5 created@5 finished"}}}},

		// Truncation.
		{"ends after header", g1 + "\ngoroutine 2 [select]:\n",
			[]summary{{Truncated: true, Warnings: []string{"5: dump truncated: input ends after a goroutine header"}, Routines: []string{"1 running", "2 select"}}}},
		{"ends after function line", g1 + "\ngoroutine 2 [select]:\nmain.loop(0x1)\n",
			[]summary{{Truncated: true, Warnings: []string{"6: dump truncated: input ends after a function line, before its file line"}, Routines: []string{"1 running", "2 select"}}}},
		{"ends mid-line", g1 + "\ngoroutine 2 [select]:\nmain.loop(0x1)\n\t/src/main.go:3 +0x1\nmain.caller()\n\t/src/main.go:4",
			[]summary{{Truncated: true, Warnings: []string{"9: dump truncated: input ends mid-line inside a goroutine; the partial line is dropped"}, Routines: []string{"1 running", "2 select"}}}},
		{"ends inside a file line", g1 + "\ngoroutine 2 [select]:\nmain.loop(0x1)\n\t/usr",
			[]summary{{Truncated: true, Warnings: []string{"7: dump truncated: input ends mid-line inside a goroutine; the partial line is dropped"}, Routines: []string{"1 running", "2 select"}}}},
		{"ends inside a function line", g1 + "\ngoroutine 2 [select]:\nmain.loop(0x1)\n\t/src/main.go:3 +0x1\nmain.cal",
			[]summary{{Truncated: true, Warnings: []string{"8: dump truncated: input ends mid-line inside a goroutine; the partial line is dropped"}, Routines: []string{"1 running", "2 select"}}}},
		{"ends inside a header", g1 + "\ngoroutine 2 [sel",
			[]summary{{Truncated: true, Warnings: []string{"5: dump truncated: input ends mid-line inside a goroutine; the partial line is dropped"}, Routines: []string{"1 running"}}}},

		{"ends cleanly without newline", strings.TrimSuffix(g1, "\n"), []summary{{Routines: []string{"1 running"}}}},
		{"ends with junk without newline", g1 + "\ngoroutine 2 [select]:\nmain.loop(0x1)\n\t/src/main.go:3 +0x1\nexit status 2", []summary{{Routines: []string{"1 running", "2 select"}}}},

		// Problems: reported with their line, the partial goroutine kept.
		{"function without file", "goroutine 1 [running]:\nmain.a()\nmain.b()\n\t/src/b.go:1 +0x1\n\n" + g2,
			[]summary{{Warnings: []string{"2: function line without a file line"}, Routines: []string{"1 running", "2 chan receive"}}}},
		{"broken function line", "goroutine 1 [running]:\nmain.main)(\n\t/src/main.go:1 +0x1\nmain.more()\n\t/src/main.go:2 +0x1\n\n" + g2,
			[]summary{{Warnings: []string{"2: invalid function call line"}, Routines: []string{"1 running", "2 chan receive"}}}},
		{"bad labels", "goroutine 3 [sleep labels:{\"a\" \"b\"}]:\nmain.a()\n\t/src/a.go:1 +0x1\n",
			[]summary{{Warnings: []string{"1: malformed labels in goroutine header"}, Routines: []string{"3 sleep"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(readGoText(t, []byte(tc.input)))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestGoTextStacks(t *testing.T) {
	t.Run("elided with count", func(t *testing.T) {
		d := readOne(t, "goroutine 8 [running]:\nmain.r(0x0?)\n\t/src/m.go:1 +0x1\n...52 frames elided...\nmain.r(0x0?)\n\t/src/m.go:1 +0x1\nmain.main()\n\t/src/m.go:2 +0x2\n")
		s := d.Routines[0].Stack
		if !s.Elided || s.ElidedCount != 52 || s.ElidedAt != 1 || len(s.Frames) != 3 {
			t.Errorf("stack %+v", s)
		}
	})
	t.Run("additional frames elided", func(t *testing.T) {
		d := readOne(t, "goroutine 8 [running]:\nmain.r(0x0?)\n\t/src/m.go:1 +0x1\n...additional frames elided...\ncreated by main.main\n\t/src/m.go:3 +0x3\n")
		r := d.Routines[0]
		if !r.Stack.Elided || r.Stack.ElidedCount != 0 || r.Stack.ElidedAt != 1 || r.CreatedBy == nil {
			t.Errorf("stack %+v creator %v", r.Stack, r.CreatedBy)
		}
	})
	t.Run("ancestors", func(t *testing.T) {
		d := readOne(t, "goroutine 10 [chan receive]:\nmain.f.1.1()\n\t/src/m.go:214 +0x34\ncreated by main.f.1 in goroutine 9\n\t/src/m.go:212 +0x6e\n"+
			"[originating from goroutine 9]:\nmain.f.1(...)\n\t/src/m.go:216 +0x6e\ncreated by main.f\n\t/src/m.go:211 +0x6e\n"+
			"[originating from goroutine 1]:\nmain.f(...)\n\t/src/m.go:218 +0x7b\n...additional frames elided...\n")
		r := d.Routines[0]
		if r.ParentID != 9 || r.CreatedBy.Func != "main.f.1" || len(r.Stack.Frames) != 1 || len(r.Ancestors) != 2 {
			t.Fatalf("routine %+v", r)
		}
		a0, a1 := r.Ancestors[0], r.Ancestors[1]
		if a0.ID != 9 || a0.Stack.Frames[0].Func != "main.f.1" || a0.Stack.Frames[0].Inlined || a0.Stack.Frames[0].Offset != 0x6e || a0.CreatedBy.Func != "main.f" {
			t.Errorf("ancestor 0 %+v", a0)
		}
		if a1.ID != 1 || a1.CreatedBy != nil || !a1.Stack.Elided || len(a1.Stack.Frames) != 1 {
			t.Errorf("ancestor 1 %+v", a1)
		}
	})
	t.Run("shared stacks are interned", func(t *testing.T) {
		in := "goroutine 2 [chan receive]:\nmain.w(0x1)\n\t/src/m.go:20 +0x2a\n\ngoroutine 3 [chan receive]:\nmain.w(0x2)\n\t/src/m.go:20 +0x2a\n"
		d := readOne(t, in)
		a, b := d.Routines[0], d.Routines[1]
		if a.Stack != b.Stack || a.Values == b.Values || a.Arg(0) != "0x1" || b.Arg(0) != "0x2" {
			t.Errorf("stacks %p %p values %v %v", a.Stack, b.Stack, a.Values, b.Values)
		}
	})
}

func TestGoTextRace(t *testing.T) {
	in := "==================\nWARNING: DATA RACE\n" +
		"Atomic write at 0x00c0000a03f0 by goroutine 10 (mutexes: write M1):\n  sync/atomic.AddInt64()\n      /go/src/runtime/race_amd64.s:289 +0xb\n\n" +
		"Previous read at 0x00c0000a03f0 by main goroutine:\n  [failed to restore the stack]\n\n" +
		"Goroutine 10 (running) created at:\n  main.main()\n      /src/r.go:13 +0x27\n\n" +
		"Location is heap block of size 8 at 0x00c0000a03f0 allocated by goroutine 6:\n  main.alloc()\n      /src/r.go:5 +0x1\n" +
		"==================\n==================\nWARNING: DATA RACE\nRead by goroutine 5:\n  main.r()\n      /src/r.go:10 +0x24\n\n" +
		"Previous write by main goroutine:\n  main.main()\n      /src/r.go:23 +0x439\n==================\nFound 2 data race(s)\nexit status 66\n"
	dumps := readGoText(t, []byte(in))
	if len(dumps) != 1 {
		t.Fatalf("%d dumps, want 1", len(dumps))
	}
	d := dumps[0]
	if len(d.Routines) != 0 || d.Total != 0 {
		t.Errorf("%d routines, total %d: race accesses are not goroutines", len(d.Routines), d.Total)
	}
	type acc struct {
		report int
		desc   string
		access stack.RaceAccess
		fn     string
	}
	var got []acc
	var creators []stack.RaceCreator
	for i, rc := range d.Races {
		for _, a := range rc.Accesses {
			fn := ""
			if len(a.Stack.Frames) > 0 {
				fn = a.Stack.Frames[0].Func
			}
			desc := a.Desc()
			a.Stack = nil
			got = append(got, acc{i + 1, desc, a, fn})
		}
		for _, c := range rc.Creators {
			if len(c.Stack.Frames) != 1 || c.Stack.Frames[0].Func != "main.main" {
				t.Errorf("creator stack %v", c.Stack.Frames)
			}
			c.Stack = nil
			creators = append(creators, c)
		}
	}
	want := []acc{
		{1, "Atomic write", stack.RaceAccess{Op: "write", Atomic: true, Addr: 0xc0000a03f0, Goroutine: 10, Line: 3}, "sync/atomic.AddInt64"},
		{1, "Previous read", stack.RaceAccess{Op: "read", Previous: true, Addr: 0xc0000a03f0, Goroutine: 1, Main: true, Line: 7}, ""},
		{2, "Read", stack.RaceAccess{Op: "read", Goroutine: 5, Line: 20}, "main.r"},
		{2, "Previous write", stack.RaceAccess{Op: "write", Previous: true, Goroutine: 1, Main: true, Line: 24}, "main.main"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if wantC := []stack.RaceCreator{{Goroutine: 10, State: "running", Line: 10}}; !reflect.DeepEqual(creators, wantC) {
		t.Errorf("creators %+v, want %+v", creators, wantC)
	}
}

// wrapLines rewrites every line of data with prefix(i) in front.
func wrapLines(data []byte, prefix func(i int) string) []byte {
	var b bytes.Buffer
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		b.WriteString(prefix(i))
		b.Write(l)
	}
	return b.Bytes()
}

// TestGoTextPrefixes wraps real dumps in log prefixes and line endings and
// checks that they read exactly as the bare dump.
func TestGoTextPrefixes(t *testing.T) {
	for _, name := range []string{"../../testdata/go/system_go126.txt", "../../testdata/go/repanic_go126.txt", "../../testdata/go/overflow_go126.txt", "../../testdata/go/race_go126.txt", "../../testdata/corpus/go/gotfmt_sigabrt.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want := modelText(readGoText(t, data))
		for _, w := range []struct {
			name string
			wrap func([]byte) []byte
		}{
			{"indent", func(b []byte) []byte { return wrapLines(b, func(int) string { return "    " }) }},
			{"journald", func(b []byte) []byte {
				return wrapLines(b, func(i int) string { return "Nov  " + itoa(i%10) + " 10:00:" + itoa(10+i%50) + " host app[123]: " })
			}},
			{"cri", func(b []byte) []byte {
				return wrapLines(b, func(i int) string { return "2026-11-30T10:00:00." + itoa(1000+i*7919%100000) + "Z stderr F " })
			}},
			{"crlf", func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }},
		} {
			t.Run(name[strings.LastIndexByte(name, '/')+1:]+"/"+w.name, func(t *testing.T) {
				in := w.wrap(data)
				// Lines outside the dump's stream carry no prefix: junk.
				in = append([]byte("unrelated log line\n"), in...)
				got := modelText(readGoText(t, in))
				// Line numbers and offsets move by the extra first line.
				if gotN, wantN := strings.Count(got, "\n"), strings.Count(want, "\n"); gotN != wantN {
					t.Fatalf("%d lines of model text, want %d:\n%s", gotN, wantN, got)
				}
				if stripLines(got) != stripLines(want) {
					t.Errorf("prefixed dump reads differently:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// stripLines drops line numbers and offsets from model text.
func stripLines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, " line="); i >= 0 {
			j := strings.IndexByte(l[i+1:], ' ')
			if j < 0 {
				l = l[:i]
			} else {
				l = l[:i] + l[i+1+j:]
			}
		}
		if i := strings.Index(l, " offset="); i >= 0 {
			j := strings.IndexByte(l[i+1:], ' ')
			l = l[:i] + l[i+1+j:]
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func TestGoTextLongLine(t *testing.T) {
	long := "main.f(" + strings.Repeat("0x1, ", 100) + "0x2)"
	in := g1 + "\ngoroutine 3 [select]:\n" + long + "\n\t/src/m.go:1 +0x1\n\n" + g2
	for _, max := range []int{64, 300} {
		dumps, err := readAll(strings.NewReader(in), ReadOptions{MaxLineBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		got := summarize(dumps)
		want := []summary{{
			Warnings: []string{"6: line of " + itoa(len(long)) + " bytes is longer than the " + itoa(max) + "-byte limit; skipped", "7: file line without a function line"},
			Routines: []string{"1 running", "3 select", "2 chan receive"},
		}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("max %d: got\n%+v\nwant\n%+v", max, got, want)
		}
		if w := dumps[0].Warnings[0]; w.Offset != int64(len(g1)+1+len("goroutine 3 [select]:\n")) || !strings.HasPrefix(long, w.Text) {
			t.Errorf("warning at offset %d with text %q", w.Offset, w.Text)
		}
	}
	// A line longer than the bufio buffer is still read whole when under the limit.
	huge := "main.f(" + strings.Repeat("0x1, ", 200000) + "0x2)"
	d := readOne(t, "goroutine 1 [running]:\n"+huge+"\n\t/src/m.go:1 +0x1\n")
	if got := len(d.Routines[0].Arg(0)); got != len(huge)-len("main.f()") {
		t.Errorf("huge args: %d bytes", got)
	}
}

// sizedReader yields a dump of exactly n bytes: a few goroutines, then
// lines of filler (log output) up to n.
type sizedReader struct {
	n, off int64
	head   []byte
	filler []byte
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.off >= s.n {
		return 0, io.EOF
	}
	var src []byte
	if s.off < int64(len(s.head)) {
		src = s.head[s.off:]
	} else {
		k := (s.off - int64(len(s.head))) % int64(len(s.filler))
		src = s.filler[k:]
	}
	src = src[:min(int64(len(src)), s.n-s.off)]
	c := copy(p, src)
	s.off += int64(c)
	return c, nil
}

func TestGoTextTruncationSize(t *testing.T) {
	filler := append(bytes.Repeat([]byte("x"), 512<<10), '\n')
	for _, tc := range []struct {
		n    int64
		want bool
	}{{TruncationSize, true}, {TruncationSize - 1, false}} {
		rd := NewReader(&sizedReader{n: tc.n, head: []byte(g1 + "\n" + g2 + "\n"), filler: filler}, ReadOptions{})
		d, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for r, err := range rd.Routines() {
			if err == nil {
				n += r.Count
			}
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Errorf("second dump: %v", err)
		}
		wantWarnings := 0
		if tc.want {
			wantWarnings = 1
		}
		if d.Truncated != tc.want || len(d.Warnings) != wantWarnings || d.Total != n || n != 2 {
			t.Errorf("size %d: Truncated=%v warnings=%v total=%d routines=%d", tc.n, d.Truncated, d.Warnings, d.Total, n)
		}
	}
}

func TestGoTextReadError(t *testing.T) {
	boom := errors.New("connection reset")
	rd := NewReader(&dumptest.FailingReader{Data: []byte(g1 + "\n" + g2), Err: boom}, ReadOptions{})
	d, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, err := range rd.Routines() {
		if r != nil && err == nil {
			n++
		}
	}
	if n != 2 || !d.Truncated || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Msg, "connection reset") {
		t.Errorf("routines=%d truncated=%v warnings=%v", n, d.Truncated, d.Warnings)
	}
	if _, err := rd.Next(); !errors.Is(err, boom) {
		t.Errorf("Next after the failure: %v, want %v", err, boom)
	}
}
