package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Hostile inputs: each must give a clear error or warning, keep what was
// read before the problem, and cost bounded memory however large it is.
// The large ones are generated while they are read, never held.

const gib = 1 << 30

// oneDump is a small complete Go traceback.
const oneDump = "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1d\n\n"

// readCounting reads every dump of r, counting routines per dump; the
// error is the one that stopped reading.
func readCounting(r io.Reader, opts ReadOptions) (dumps []*stack.Dump, routines []int, err error) {
	rd := NewReader(r, opts)
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return dumps, routines, nil
		}
		if err != nil {
			return dumps, routines, err
		}
		dumps = append(dumps, d)
		routines = append(routines, 0)
		for rt, err := range rd.Routines() {
			if err == nil && rt != nil {
				routines[len(routines)-1]++
			}
		}
	}
}

func TestHostileLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2 GiB")
	}
	line := bytes.Repeat([]byte("a"), 64<<10)
	t.Run("alone", func(t *testing.T) {
		// 1 GiB without a newline and nothing else: no dump, no error.
		var dumps []*stack.Dump
		var err error
		dumptest.CheckHeap(t, "1 GiB line alone", func() {
			dumps, _, err = readCounting(dumptest.NewRepeatReader(line, gib), ReadOptions{})
		})
		if err != nil || len(dumps) != 0 {
			t.Fatalf("got %d dumps, error %v; want none", len(dumps), err)
		}
	})
	t.Run("after a dump", func(t *testing.T) {
		// A dump, then 1 GiB without a newline to the end: the dump is
		// read whole and the line is reported with its number and size.
		in := io.MultiReader(strings.NewReader(oneDump), dumptest.NewRepeatReader(line, gib))
		var dumps []*stack.Dump
		var routines []int
		var err error
		dumptest.CheckHeap(t, "dump then 1 GiB line", func() {
			dumps, routines, err = readCounting(in, ReadOptions{})
		})
		if err != nil || len(dumps) != 1 || routines[0] != 1 {
			t.Fatalf("got %d dumps %v, error %v; want 1 dump of 1 routine", len(dumps), routines, err)
		}
		d := dumps[0]
		if d.Truncated || len(d.Warnings) != 1 {
			t.Fatalf("truncated %v, warnings %v; want one warning", d.Truncated, d.Warnings)
		}
		w := d.Warnings[0]
		if w.Line != 5 || w.Offset != int64(len(oneDump)) || !strings.Contains(w.Msg, strconv.Itoa(gib)+" bytes") {
			t.Errorf("warning %+v; want line 5 at offset %d naming %d bytes", w, len(oneDump), gib)
		}
	})
}

// TestHostileLongLineEachReader feeds each text reader, forced, a line far
// over the line limit after a valid record.
func TestHostileLongLineEachReader(t *testing.T) {
	const size = 64 << 20
	line := bytes.Repeat([]byte("a"), 64<<10)
	for _, tc := range []struct {
		kind stack.Kind
		head string
	}{
		{stack.KindGoTraceback, oneDump},
		{stack.KindGoDebug1, "goroutine profile: total 1\n1 @ 0x1\n#\t0x1\tmain.main+0x1\t/app/main.go:3\n\n"},
		{stack.KindJVMText, "\"main\" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat Main.main(Main.java:3)\n\n"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			in := io.MultiReader(strings.NewReader(tc.head), dumptest.NewRepeatReader(line, size), strings.NewReader("\n"+tc.head))
			var dumps []*stack.Dump
			var routines []int
			var err error
			dumptest.CheckHeap(t, fmt.Sprintf("%s, 64 MiB line", tc.kind), func() {
				dumps, routines, err = readCounting(in, ReadOptions{Kind: tc.kind})
			})
			if err != nil || len(dumps) == 0 {
				t.Fatalf("%d dumps, error %v", len(dumps), err)
			}
			var warned bool
			for _, d := range dumps {
				for _, w := range d.Warnings {
					warned = warned || w.Line == strings.Count(tc.head, "\n")+1
				}
			}
			if !warned {
				t.Errorf("no warning names the long line; dumps %v", routines)
			}
		})
	}
}

// TestHostileGzipBomb reads a 300-byte gzip bomb (three layers, 10 GiB of
// text inside) with a 1 GiB decompression cap: reading stops at the cap
// with ErrTooLarge, in bounded memory; and with the default cap, which it
// stays under, it is read to the end in bounded memory.
func TestHostileGzipBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 1 GiB")
	}
	bomb := gzipBomb(t, 10*gib)
	t.Logf("bomb: %d bytes inflating to %d GiB", len(bomb), 10)
	var err error
	dumptest.CheckHeap(t, "gzip bomb, 1 GiB cap", func() {
		_, _, err = readCounting(bytes.NewReader(bomb), ReadOptions{MaxDecompressedBytes: gib})
	})
	if !errors.Is(err, stack.ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	// Under the default 16 GiB cap the bomb is read to its end: all of
	// it streams through in bounded memory (and holds no dump). Seconds
	// of CPU: only in soak runs.
	if os.Getenv("STACKDUMP_SOAK") == "" {
		return
	}
	var dumps []*stack.Dump
	dumptest.CheckHeap(t, "gzip bomb, default cap", func() {
		dumps, _, err = readCounting(bytes.NewReader(bomb), ReadOptions{})
	})
	if err != nil || len(dumps) != 0 {
		t.Fatalf("default cap: %d dumps, error %v", len(dumps), err)
	}
}

// hostileCorpusDump returns a real multi-goroutine dump and how many
// routines it holds.
func hostileCorpusDump(t *testing.T) ([]byte, int) {
	data, err := os.ReadFile("../testdata/go/sigquit_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, routines, err := readCounting(bytes.NewReader(data), ReadOptions{})
	if err != nil || len(routines) != 1 || routines[0] < 5 {
		t.Fatalf("corpus dump: %v routines, %v", routines, err)
	}
	return data, routines[0]
}

// appendRoutine appends the text of goroutine id of generated dumps.
func appendRoutine(dst []byte, id int) []byte {
	return fmt.Appendf(dst, "goroutine %d [chan receive, %d minutes]:\nmain.worker(0xc000%06x)\n\t/app/worker.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/app/main.go:30 +0x45\n\n", id, id%60, id)
}

// TestHostileCorruptCompression flips bytes in the middle of a gzip and a
// zstd stream, and cuts each in the middle: reading stops with an error
// naming the compression, the routines before the damage are kept (zstd
// loses the whole damaged block, up to 128 KiB), and a cut stream marks
// the dump truncated.
func TestHostileCorruptCompression(t *testing.T) {
	const total = 4000 // about 500 KiB: several zstd blocks
	var data []byte
	for id := 1; id <= total; id++ {
		data = appendRoutine(data, id)
	}
	for _, w := range []uint8{wrapGzip, wrapZstd} {
		z := wrapInput(t, data, w)
		name := map[uint8]string{wrapGzip: "gzip", wrapZstd: "zstd"}[w]
		t.Run(name+" flipped", func(t *testing.T) {
			bad := bytes.Clone(z)
			for i := len(bad) / 2; i < len(bad)/2+8; i++ {
				bad[i] ^= 0x55
			}
			dumps, routines, err := readCounting(bytes.NewReader(bad), ReadOptions{})
			if err == nil {
				t.Fatalf("no error from a corrupt %s stream (%v routines)", name, routines)
			}
			t.Logf("error: %v; kept %v of %d routines", err, routines[:min(len(routines), 3)], total)
			if !strings.Contains(err.Error(), name+": ") {
				t.Errorf("error %q does not name the compression", err)
			}
			// Deflate has no per-block check: what follows the damage
			// inflates to junk, which may read as more dumps, until
			// the CRC at the end fails.
			if len(dumps) == 0 || routines[0] == 0 || routines[0] >= total {
				t.Errorf("kept %v routines of %d; want the ones before the damage first", routines, total)
			}
		})
		t.Run(name+" cut", func(t *testing.T) {
			dumps, routines, err := readCounting(bytes.NewReader(z[:len(z)/2]), ReadOptions{})
			t.Logf("error: %v; kept %v of %d routines", err, routines, total)
			if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), name+": ") {
				t.Fatalf("error %v, want a %s unexpected EOF", err, name)
			}
			if len(dumps) != 1 || !dumps[0].Truncated || routines[0] == 0 || routines[0] >= total {
				t.Errorf("kept %v routines of %d, truncated %v", routines, total, len(dumps) > 0 && dumps[0].Truncated)
			}
		})
	}
}

// TestHostileTruncatedPprof cuts a real goroutine profile: the error says
// where the protobuf breaks.
func TestHostileTruncatedPprof(t *testing.T) {
	raw, err := os.ReadFile("../testdata/pprof/go1.26.8.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(pb) / 3, len(pb) / 2, len(pb) - 1} {
		_, _, err := readCounting(bytes.NewReader(pb[:cut]), ReadOptions{})
		want := fmt.Sprintf("of %d bytes", cut)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "offset") {
			t.Errorf("cut at %d: error %v, want one naming an offset %s", cut, err, want)
		} else {
			t.Logf("cut at %d: %v", cut, err)
		}
	}
	// The compressed file cut short.
	if _, _, err := readCounting(bytes.NewReader(raw[:len(raw)/2]), ReadOptions{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("gzip cut short: error %v, want an unexpected EOF", err)
	}
}

// TestHostileBinaryGarbage reads 256 MiB of random bytes: a clear error,
// bounded memory.
func TestHostileBinaryGarbage(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.NewChaCha8([32]byte{byte(seed)})
		left := 256 << 20
		in := &dumptest.GenReader{Next: func() []byte {
			if left == 0 {
				return nil
			}
			b := make([]byte, min(left, 1<<20))
			rng.Read(b)
			left -= len(b)
			return b
		}}
		var err error
		dumptest.CheckHeap(t, fmt.Sprintf("256 MiB random bytes (seed %d)", seed), func() {
			_, _, err = readCounting(in, ReadOptions{})
		})
		if err == nil {
			t.Errorf("seed %d: random bytes read without an error", seed)
			continue
		}
		t.Logf("seed %d: %v", seed, err)
	}
}

// TestHostileGluedDumps reads two dumps glued together with log lines
// around and between them: both are found, whole.
func TestHostileGluedDumps(t *testing.T) {
	a, na := hostileCorpusDump(t)
	b, err := os.ReadFile("../testdata/go/labels_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, nb, err := readCounting(bytes.NewReader(b), ReadOptions{})
	if err != nil || len(nb) != 1 {
		t.Fatalf("labels dump: %v, %v", nb, err)
	}
	noise := "2026/11/30 12:00:00 INFO request served path=/api status=200\n" +
		"time=2026-11-30T12:00:01Z level=WARN msg=\"slow request\" goroutine=7 took=3s\n" +
		"\x1b[31mERROR\x1b[0m connection reset by peer\n"
	glued := noise + string(a) + noise + noise + string(b) + noise
	dumps, routines, err := readCounting(strings.NewReader(glued), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 2 || routines[0] != na || routines[1] != nb[0] {
		t.Fatalf("got dumps of %v routines, want [%d %d]", routines, na, nb[0])
	}
	if dumps[0].Preamble[0] != "SIGQUIT: quit" {
		t.Errorf("first dump's preamble %q", dumps[0].Preamble)
	}
}

// TestHostileCutAt64MiB reads a generated debug=2 body cut at exactly
// TruncationSize, mid-routine: every whole routine is read, the dump is
// marked truncated with a warning saying why, and memory stays bounded.
func TestHostileCutAt64MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	id, size, whole := 0, 0, 0
	var b []byte
	in := &dumptest.GenReader{Next: func() []byte {
		if size >= gotext.TruncationSize {
			return nil
		}
		id++
		b = appendRoutine(b[:0], id)
		if size+len(b) <= gotext.TruncationSize {
			whole++
		} else {
			b = b[:gotext.TruncationSize-size]
		}
		size += len(b)
		return b
	}}
	var dumps []*stack.Dump
	var routines []int
	var err error
	dumptest.CheckHeap(t, "debug=2 cut at 64 MiB", func() {
		dumps, routines, err = readCounting(in, ReadOptions{})
	})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%d dumps, error %v", len(dumps), err)
	}
	d := dumps[0]
	t.Logf("%d whole routines, %d read, warnings %v", whole, routines[0], d.Warnings)
	if !d.Truncated || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Msg, "truncated") {
		t.Fatalf("truncated %v, warnings %v", d.Truncated, d.Warnings)
	}
	// The cut routine is kept with what it has, so whole or whole+1.
	if routines[0] != whole && routines[0] != whole+1 {
		t.Errorf("read %d routines, %d were whole", routines[0], whole)
	}
}

// TestHostileInvalidUTF8 reads names that are not UTF-8, writes them as
// JSON and reads that back: the JSON is valid, the bad bytes become
// U+FFFD, everything else survives, and a second round changes nothing.
func TestHostileInvalidUTF8(t *testing.T) {
	bad := "\xff\xfe\xc3(\xed\xa0\x80"
	for _, tc := range []struct {
		name, in string
		get      func(*stack.Routine) string
	}{
		{"go function", "goroutine 1 [running]:\nmain.f" + bad + "()\n\t/app/ma" + bad + "in.go:3 +0x1d\n\n",
			func(r *stack.Routine) string { return r.Stack.Frames[0].Func + " " + r.Stack.Frames[0].File }},
		{"go label", "goroutine 1 [running labels:{\"s\\xffvc\": \"a\\xfe\\xc3(b\"}]:\nmain.main()\n\t/app/main.go:3 +0x1d\n\n",
			func(r *stack.Routine) string { return r.Labels[0].Key + "=" + r.Labels[0].Value }},
		{"jvm thread", "\"worker-" + bad + "\" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat Main.r" + bad + "un(Main.java:3)\n\n",
			func(r *stack.Routine) string { return r.Name + " " + r.Stack.Frames[0].Func }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dumps, err := ReadAll(strings.NewReader(tc.in), ReadOptions{})
			if err != nil || len(dumps) != 1 || len(dumps[0].Routines) != 1 {
				t.Fatalf("read %d dumps: %v", len(dumps), err)
			}
			orig := tc.get(dumps[0].Routines[0])
			first := writeJSONDumps(t, dumps)
			if !utf8.Valid(first) || !json.Valid(bytes.TrimSpace(first)) {
				t.Fatalf("invalid JSON output:\n%s", first)
			}
			back, err := ReadAll(bytes.NewReader(first), ReadOptions{})
			if err != nil || len(back) != 1 || len(back[0].Routines) != 1 {
				t.Fatalf("reading the JSON back: %d dumps, %v", len(back), err)
			}
			got := tc.get(back[0].Routines[0])
			if want := replaceInvalid(orig); got != want {
				t.Errorf("read back %q, want %q", got, want)
			}
			// The second round writes U+FFFD as itself rather than escaped:
			// other bytes, same model.
			second := writeJSONDumps(t, back)
			again, err := ReadAll(bytes.NewReader(second), ReadOptions{})
			if err != nil || len(again) != 1 || len(again[0].Routines) != 1 || tc.get(again[0].Routines[0]) != got {
				t.Errorf("second round differs:\n%s\n%s", first, second)
			}
		})
	}
}

// replaceInvalid replaces each byte that is not part of valid UTF-8 with
// U+FFFD, as the JSON writer does.
func replaceInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func writeJSONDumps(t *testing.T, dumps []*stack.Dump) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := NewEncoder(&buf, output.JSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestHostileWholeDocuments covers the two readers that may hold a whole
// document: a stackdump JSON document whose array comes before its
// metadata (as `jq -S` sorts it) and a JVM JSON thread dump. Both are
// bounded by MaxDecompressedBytes, which untrusted input should set:
// past it reading stops with a clear error, in bounded memory.
func TestHostileWholeDocuments(t *testing.T) {
	const size, limit = 64 << 20, 16 << 20
	// elem generates prefix, then elements separated by sep, without
	// allocating: the heap measured is the reader's.
	elem := func(prefix, sep, suffix string, one func(dst []byte, i int) []byte) io.Reader {
		i, n := 0, 0
		var b []byte
		return &dumptest.GenReader{Next: func() []byte {
			if n > size {
				return nil
			}
			if n == size {
				n++
				return []byte(suffix)
			}
			if i == 0 {
				b = append(b[:0], prefix...)
			} else {
				b = append(b[:0], sep...)
			}
			i++
			b = one(b, i)
			n = min(n+len(b), size)
			return b
		}}
	}
	for _, tc := range []struct {
		name string
		in   io.Reader
	}{
		{"stackdump json, array first", elem(`{"format":"stackdump/v1","goroutines":[`, ",", `],"preamble":[],"source":{"kind":"go-traceback"}}`, func(dst []byte, i int) []byte {
			return fmt.Appendf(dst, `{"id":%d,"state":"chan receive","stack":[{"func":"main.worker","file":"/app/w.go","line":42}]}`, i)
		})},
		{"jvm json", elem(`{"threadDump":{"processId":1,"threadContainers":[{"container":"<root>","threads":[`, ",", "]}]}}", func(dst []byte, i int) []byte {
			return fmt.Appendf(dst, `{"tid":"%d","name":"worker-%d","stack":["java.lang.Thread.sleep(Thread.java:1)"]}`, i, i)
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			dumptest.CheckHeap(t, tc.name+", 64 MiB with a 16 MiB cap", func() {
				_, _, err = readCounting(tc.in, ReadOptions{MaxDecompressedBytes: limit})
			})
			if !errors.Is(err, stack.ErrTooLarge) && !strings.Contains(fmt.Sprint(err), "JSON value exceeds the size limit") { // dumpjson's errJSONValueSize
				t.Fatalf("error %v, want one saying the input is over the limit", err)
			}
			t.Logf("error: %v", err)
		})
	}
}
