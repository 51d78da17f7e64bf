package gotext

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/internal/paste"
)

// lexCases are the line forms of Go traceback text, each with an example
// and what classify makes of it, as gostackparse tests its state machine
// one line form at a time. src says where the example comes from:
//
//   - "file:N": line N of a real dump in testdata/ or ../shared/corpus/
//     (the test checks that the line is there);
//   - "paste NAME of file": a line the internal/paste transformation NAME
//     puts into that real dump (grep's separators, a person's ellipsis);
//   - "runtime" or "dumper": a form no dump here holds, as the runtime's
//     source prints it (/work/shared/reference/go-dump-formats.md) or as
//     dumper.GoroutineHandler writes it.
//
// want renders the token: its kind, and for a header, a call and a file
// line what was parsed.
var lexCases = []struct {
	src, line, want string
}{
	{"go/ancestors_go126.txt:29", "exit status 2", "text"},
	{"go/multiline_go126.txt:2", "\tsecond line [recovered]", "indented text"},
	{"go/ancestors_go126.txt:2", "", "blank"},

	{"go/ancestors_go126.txt:3", "goroutine 1 [running]:", "header 1 running"},
	{"go/overflow_go126.txt:13", "goroutine 1 gp=0x1339d024c1e0 m=6 mp=0x1339d02be808 [running]:", "header 1 running gp=0x1339d024c1e0 m=6"},
	{"go/overflow_go126.txt:216", "goroutine 2 gp=0x1339d024cd20 m=nil [force gc (idle)]:", "header 2 force gc (idle) gp=0x1339d024cd20 m=-1"},
	{"corpus/go/profilernotes_2.net.http.pprof.goroutine.debug2.txt:51", "goroutine 22 [sleep, 1 minutes]:", "header 22 sleep wait=1"},
	{"go/repanic_go126.txt:114", "goroutine 31 [chan receive, locked to thread]:", "header 31 chan receive locked"},
	{"go/labels_go126.txt:13", `goroutine 21 [chan receive labels:{"svc": "users"}]:`, `header 21 chan receive labels="svc": "users"`},
	{"go/panic_go127.txt:13", "goroutine 19 [chan receive] {svc: users}:", "header 19 chan receive labels=svc: users"},
	{"go/leak_go126.txt:13", "goroutine 21 [chan send (leaked)]:", "header 21 chan send leaked"},
	{"go/synctest_go126.txt:31", "goroutine 19 [synctest.Run (durable), synctest bubble 1]:", "header 19 synctest.Run durable bubble=1"},

	{"go/ancestors_go126.txt:4", "main.modeAncestors()", "call main.modeAncestors() go"},
	{"go/deadlock_go126.txt:4", "internal/sync.runtime_SemacquireMutex(0x47db72?, 0xa0?, 0x45315f?)", "call internal/sync.runtime_SemacquireMutex(0x47db72?, 0xa0?, 0x45315f?) go"},
	{"go/ancestors_go126.txt:15", "main.modeAncestors.func1.1(...)", "call main.modeAncestors.func1.1() inlined"},
	{"corpus/go/gostackparse_cgo.txt:12", "main._Cfunc_c_sleep_loop(0xf4240)", "call main._Cfunc_c_sleep_loop(0xf4240) go"},
	{"go/synctest_go126.txt:79", "FAIL", "call FAIL() bare"},
	{"corpus/go/malformed/gostackparse_errorhandling.txt:6", "main.main)(", "call main.main)(() bad"},
	{"runtime", "non-Go function at pc=0x4a7e10", "call non-Go function() non-Go"},
	{"go/race_go126.txt:4", "  main.raceWrite()", "indented call main.raceWrite() go"},

	{"go/ancestors_go126.txt:5", "\t/work/wt/gotext/testdata/gen/crash/main.go:220 +0xa5", "file /work/wt/gotext/testdata/gen/crash/main.go:220 +0xa5"},
	{"go/overflow_go126.txt:7", "\t/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x7fb2deffcd20 sp=0x7fb2deffccf0 pc=0x484028", "file /usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x7fb2deffcd20 sp=0x7fb2deffccf0 pc=0x484028"},
	{"corpus/go/gostackparse_windows.txt:3", "\tC:/Users/felixge/pprof.go:693 +0x9f", "file C:/Users/felixge/pprof.go:693 +0x9f"},
	{"corpus/go/gostackparse_cgo.txt:13", "\t_cgo_gotypes.go:56 +0x45", "file _cgo_gotypes.go:56 +0x45"},
	{"go/race_go126.txt:5", "      /work/wt/gotext/testdata/gen/crash/main.go:226 +0x3c", "file /work/wt/gotext/testdata/gen/crash/main.go:226 +0x3c"},

	{"go/ancestors_go126.txt:12", "created by main.modeAncestors.func1.1 in goroutine 9", "created by"},
	{"go/ancestors_go126.txt:17", "created by main.modeAncestors.func1", "created by"},
	{"go/deep_go121.txt:104", "...103 frames elided...", "elided"},
	{"corpus/go/gostackparse_frameselided.txt:202", "...additional frames elided...", "elided"},
	{"go/ancestors_go126.txt:14", "[originating from goroutine 9]:", "ancestor"},
	{"corpus/go/gotfmt_issue9321.txt:47", "    goroutine running on other thread; stack unavailable", "indented unavailable"},
	{"runtime", "goroutine running on other thread; stack unavailable", "unavailable"},

	{"go/overflow_go126.txt:5", "runtime stack:", "system stack"},
	{"go/ancestors_go126.txt:1", "panic: ancestors", "crash"},
	{"go/deadlock_go126.txt:1", "fatal error: all goroutines are asleep - deadlock!", "crash"},
	{"go/sigquit_go126.txt:1", "SIGQUIT: quit", "crash"},
	{"go/overflow_go126.txt:1", "runtime: goroutine stack exceeds 1000000000-byte limit", "crash"},
	{"go/nilderef_go126.txt:2", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x51b820]", "signal"},
	{"go/sigabrt_go126.txt:2", "PC=0x48ca41 m=0 sigcode=0", "signal"},
	{"runtime", "signal arrived during cgo execution", "signal"},
	{"go/sigabrt_go126.txt:414", "rax    0xca", "register"},
	{"go/sigquit_crash_go126.txt:436", "-----", "thread end"},

	{"go/race_go126.txt:2", "WARNING: DATA RACE", "race start"},
	{"go/race_go126.txt:1", "==================", "race end"},
	{"go/race_go126.txt:3", "Write at 0x0000007795e8 by goroutine 9:", "race access"},
	{"go/race_go126.txt:9", "Previous read at 0x0000007795e8 by main goroutine:", "race access"},
	{"go/race_go126.txt:17", "Goroutine 9 (running) created at:", "race access"},
	{"runtime", "  [failed to restore the stack]", "indented race no stack"},

	{"paste grep of go/race_go126.txt", "--", "grep gap"},
	{"paste ellipsis of go/deep_go121.txt", "", "ellipsis"},
	{"dumper", CutMarker + "1048576 bytes printed, the limit; later goroutines are missing", "cut marker"},
}

var lineKindNames = map[lineKind]string{
	lineText: "text", lineBlank: "blank", lineHeader: "header", lineCall: "call", lineFile: "file",
	lineCreatedBy: "created by", lineElided: "elided", lineAncestor: "ancestor", lineUnavailable: "unavailable",
	lineSystemStack: "system stack", lineCrash: "crash", lineSignal: "signal", lineRegister: "register",
	lineRaceStart: "race start", lineRaceEnd: "race end", lineRaceAccess: "race access", lineRaceNoStack: "race no stack",
	lineGrepGap: "grep gap", lineEllipsis: "ellipsis", lineThreadEnd: "thread end", lineCutMarker: "cut marker",
}

var callFormNames = map[callForm]string{callGo: "go", callInlined: "inlined", callBare: "bare", callNonGo: "non-Go", callBad: "bad"}

// describe renders a token as lexCases want it.
func describe(tok *token) string {
	s := lineKindNames[tok.kind]
	if tok.indented && tok.kind != lineFile { // file lines are all indented
		s = "indented " + s
	}
	switch tok.kind {
	case lineHeader:
		h := &tok.hdr
		s += fmt.Sprintf(" %d %s", h.ID, h.State)
		if h.HasGP {
			s += fmt.Sprintf(" gp=%#x m=%d", h.GP, h.M)
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{h.WaitMinutes > 0, "wait=" + strconv.Itoa(h.WaitMinutes)}, {h.Locked, "locked"}, {h.Leaked, "leaked"},
			{h.Durable, "durable"}, {h.Bubble > 0, "bubble=" + strconv.FormatInt(h.Bubble, 10)}, {h.Labels != nil, "labels=" + string(h.Labels)}} {
			if f.on {
				s += " " + f.name
			}
		}
	case lineCall:
		s += fmt.Sprintf(" %s(%s) %s", tok.name, tok.args, callFormNames[tok.form])
	case lineFile:
		fl := &tok.fl
		s += fmt.Sprintf(" %s:%d", fl.File, fl.Line)
		if fl.HasOffset {
			s += fmt.Sprintf(" +%#x", fl.Offset)
		}
		if fl.FP != 0 || fl.SP != 0 || fl.HasPC {
			s += fmt.Sprintf(" fp=%#x sp=%#x pc=%#x", fl.FP, fl.SP, fl.PC)
		}
	}
	return s
}

// TestClassify classifies one example of every line form (lexCases),
// checking first that the example is where its src says.
func TestClassify(t *testing.T) {
	seen := map[lineKind]bool{}
	for _, c := range lexCases {
		line := exampleLine(t, c.src, c.line)
		var tok token
		classify([]byte(line), &tok)
		seen[tok.kind] = true
		if got := describe(&tok); got != c.want {
			t.Errorf("%s: classify(%q) = %q, want %q", c.src, line, got, c.want)
		}
	}
	for k, name := range lineKindNames {
		if !seen[k] {
			t.Errorf("no example of the %s form", name)
		}
	}
}

// exampleLine returns the example line of src, checked against its
// source; for a paste transformation, the first line of its kind that
// the transformation put into the dump.
func exampleLine(t *testing.T, src, line string) string {
	t.Helper()
	if name, file, ok := strings.Cut(strings.TrimPrefix(src, "paste "), " of "); ok && strings.HasPrefix(src, "paste ") {
		tr, found := paste.Lookup(name)
		if !found {
			t.Fatalf("no transformation %q", name)
		}
		data := readExample(t, file)
		orig := map[string]bool{}
		for _, l := range strings.Split(string(data), "\n") {
			orig[l] = true
		}
		for _, l := range strings.Split(string(tr.Apply(data, 1)), "\n") {
			if !orig[l] && (line == "" || l == line) {
				return l // a line the paste put there
			}
		}
		t.Fatalf("%s: no line %q put into the dump", src, line)
	}
	file, n, ok := strings.Cut(src, ":")
	if !ok {
		return line // runtime, dumper: as they print it
	}
	num, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	lines := bytes.Split(readExample(t, file), []byte("\n"))
	if num < 1 || num > len(lines) || string(bytes.TrimSuffix(lines[num-1], []byte("\r"))) != line {
		t.Fatalf("%s does not hold %q", src, line)
	}
	return line
}

// readExample reads a dump of testdata/, or of ../shared/corpus/ when
// testdata/ has none of that name.
func readExample(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		b, err = os.ReadFile(filepath.Join("..", "..", "..", "shared", file))
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}
