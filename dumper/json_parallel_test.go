package dumper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// serialJSON is the document the JSON encoder writes for text read whole
// by one reader, with d's metadata: what writeJSONChunks must write.
func serialJSON(t *testing.T, d *stack.Dump, text []byte) []byte {
	t.Helper()
	read, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{Kind: stack.KindGoTraceback})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) > 1 {
		t.Fatalf("text holds %d dumps, want 1", len(read))
	}
	want := &stack.Dump{}
	if len(read) == 1 {
		want = read[0]
	}
	for _, r := range want.Routines {
		r.Line = 0 // a capture's routines carry none: its text is not kept
	}
	want.Source = d.Source
	want.Truncated = want.Truncated || d.Truncated
	want.Warnings = append(want.Warnings, d.Warnings...)
	var out bytes.Buffer
	if err := encodeDump(context.Background(), &out, output.JSON, want); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// parallelJSON writes text with writeJSONChunks and decompresses it.
func parallelJSON(t *testing.T, d *stack.Dump, text []byte, c output.Compression, chunkBytes, workers int) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := writeJSONChunks(context.Background(), &out, c, d, text, chunkBytes, workers); err != nil {
		t.Fatalf("%s, %d-byte chunks, %d workers: %v", c, chunkBytes, workers, err)
	}
	return decompress(t, out.Bytes(), c)
}

// decompress returns b decompressed, failing unless b is compressed with
// c (by its magic bytes) and decompresses whole.
func decompress(t *testing.T, b []byte, c output.Compression) []byte {
	t.Helper()
	var got output.Compression = output.None
	var zr io.Reader
	switch {
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, zr = output.Gzip, r
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		r, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, zr = output.Zstd, r
	}
	if got != c {
		t.Fatalf("output compressed with %s, want %s", got, c)
	}
	if zr == nil {
		return b
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s output does not decompress: %v", c, err)
	}
	return plain
}

// checkSameJSON fails unless got equals want, showing where they part.
func checkSameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%s differs from the serial encoding at byte %d of %d:\n got  %q\n want %q", what, i, len(want),
		got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
}

// TestJSONChunksMatchSerial writes a real traceback of labelled and
// parked goroutines, and the same text with malformed goroutines in it, in
// chunks of many sizes on 1 to 4 workers, uncompressed and compressed: the
// document must be byte for byte the one the encoder writes from the text
// read whole — ids, states, stacks, warnings with their lines and offsets,
// totals — but for the routines' line numbers, which a capture leaves out.
func TestJSONChunksMatchSerial(t *testing.T) {
	startFixture(t, 30)
	d, raw, err := capture(context.Background(), CaptureOptions{NoLabels: !runtimeGo126}, true)
	if err != nil {
		t.Fatal(err)
	}
	if raw == nil {
		t.Fatal("capture kept no raw text")
	}
	text := bytes.Clone(raw.buf[:raw.n])
	putStackBuf(raw.buf)
	d.Warnings = []*stack.ParseError{{Msg: "a warning of the capture"}}

	// Malformed goroutines between real ones: a frame line without its
	// file line, and a header whose state is cut.
	i := len(text) / 2
	i += bytes.Index(text[i:], []byte("\n\ngoroutine ")) + 1
	bad := "\ngoroutine 999999 [chan receive]:\nmain.broken(0x1)\nmain.next()\n\tmain.go:7 +0x1\n\ngoroutine 999998 [sel\n"
	broken := append(append(bytes.Clone(text[:i]), bad...), text[i:]...)

	// Cut mid-goroutine, as a capture that reached MaxBytes is.
	cut := text[:len(text)*2/3]

	for _, tc := range []struct {
		name string
		text []byte
	}{{"runtime", text}, {"malformed", broken}, {"cut", cut}} {
		if tc.name == "cut" {
			d.Truncated = true
		}
		want := serialJSON(t, d, tc.text)
		if tc.name == "cut" && !bytes.Contains(want, []byte(`"truncated":true`)) {
			t.Fatalf("the cut text is not marked truncated:\n%s", want[len(want)-300:])
		}
		if tc.name == "malformed" && !bytes.Contains(want, []byte(`"warnings":[{"line":`)) {
			t.Fatalf("the malformed text gave no warning to compare:\n%s", want[len(want)-300:])
		}
		for _, chunk := range []int{1, 700, 64 << 10, len(tc.text)} {
			for _, workers := range []int{1, 3} {
				got := parallelJSON(t, d, tc.text, output.None, chunk, workers)
				checkSameJSON(t, fmt.Sprintf("%s, %d-byte chunks, %d workers", tc.name, chunk, workers), got, want)
			}
		}
		for _, c := range []output.Compression{output.Gzip, output.Zstd} {
			got := parallelJSON(t, d, tc.text, c, 4<<10, 4)
			checkSameJSON(t, fmt.Sprintf("%s, %s", tc.name, c), got, want)
		}
	}
}

// TestJSONChunksEdges covers the texts the runtime does not print but a
// reader must survive: nothing at all, and a first chunk of lines that
// hold no goroutine (its successor's first routine opens the array).
func TestJSONChunksEdges(t *testing.T) {
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback, Runtime: runtime.Version()}}
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "log line %d before the dump\n", i)
	}
	b.WriteString("\n")
	for i := range 50 {
		fmt.Fprintf(&b, "\ngoroutine %d [chan receive]:\nmain.worker(0x%x)\n\t/src/main.go:%d +0x1f\ncreated by main.main in goroutine 1\n\t/src/main.go:9 +0x2a\n", i+1, i, 10+i%3)
	}
	for _, tc := range []struct {
		name string
		text []byte
	}{{"empty", nil}, {"junk first", []byte(b.String())}} {
		want := serialJSON(t, d, tc.text)
		for _, chunk := range []int{1, 512, 4 << 10} {
			for _, c := range []output.Compression{output.None, output.Gzip, output.Zstd} {
				got := parallelJSON(t, d, tc.text, c, chunk, 2)
				checkSameJSON(t, fmt.Sprintf("%s, %d-byte chunks, %s", tc.name, chunk, c), got, want)
			}
		}
	}
}

// TestJSONChunksStop: a failing destination or a cancelled context stops
// the writers and workers (leakcheck checks that none is left) and returns
// the error.
func TestJSONChunksStop(t *testing.T) {
	startFixture(t, 30)
	d, raw, err := capture(context.Background(), CaptureOptions{NoLabels: !runtimeGo126}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer putStackBuf(raw.buf)
	text := raw.buf[:raw.n]
	for _, c := range []output.Compression{output.None, output.Gzip, output.Zstd} {
		for _, after := range []int{0, 100, 5000} {
			w := &failAfter{n: after}
			err := writeJSONChunks(context.Background(), w, c, d, text, 1<<10, 3)
			if !errors.Is(err, errDiskGone) {
				t.Errorf("%s, failing after %d bytes: err = %v, want the write error", c, after, err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := writeJSONChunks(ctx, io.Discard, c, d, text, 1<<10, 3); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled: err = %v", c, err)
		}
	}
}

// TestCutTracebackKeepsCutHeader cuts a real traceback inside its last
// goroutine's header: every chunking keeps that piece with the goroutines
// before it, so the parallel JSON marks the dump truncated with the
// serial reading's warning whatever the chunk size.
func TestCutTracebackKeepsCutHeader(t *testing.T) {
	startFixture(t, 10)
	_, raw, err := capture(context.Background(), CaptureOptions{NoLabels: !runtimeGo126}, true)
	if err != nil {
		t.Fatal(err)
	}
	text := bytes.Clone(raw.buf[:raw.n])
	putStackBuf(raw.buf)
	last := bytes.LastIndex(text, goroutineSep) + 1
	cut := text[:last+1+len("goroutine 1")] // "\ngoroutine 1", cut in the id
	if n := cutTraceback(cut, last-1); n != len(cut) {
		t.Errorf("chunk ends at %d of %d: the cut header went to a chunk of its own", n, len(cut))
	}
	d := &stack.Dump{Truncated: true}
	want := serialJSON(t, d, cut)
	if !bytes.Contains(want, []byte("input ends mid-line")) {
		t.Fatalf("the serial reading gave no cut warning:\n%s", want[max(0, len(want)-300):])
	}
	for _, chunk := range []int{1, 100, last - 1} {
		checkSameJSON(t, fmt.Sprintf("%d-byte chunks", chunk), parallelJSON(t, d, cut, output.None, chunk, 2), want)
	}
}
