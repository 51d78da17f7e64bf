package formats_test

import (
	"bytes"
	"errors"
	"io"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// customProfile is a profile of this test binary's own, as a program makes
// with pprof.NewProfile: its debug=1 text has a `NAME profile: total N`
// header like threadcreate's.
var customProfile = pprof.NewProfile("stackdumpOpenFiles")

// otherProfileText returns the debug=1 text runtime/pprof writes for the
// profile name of this process.
func otherProfileText(t *testing.T, name string) []byte {
	t.Helper()
	p := pprof.Lookup(name)
	if p == nil {
		t.Fatalf("no %s profile", name)
	}
	var buf bytes.Buffer
	if err := p.WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The debug=1 text of the runtime's other profiles is refused with
// ErrNotGoroutineProfile and an error that names the profile and its
// header line; threadcreate's, whose header is like a goroutine
// profile's, used to be read as a goroutine profile of as many
// "goroutines" as the process had made threads.
func TestReadOtherProfileText(t *testing.T) {
	customProfile.Add(t, 1)
	defer customProfile.Remove(t)
	for _, c := range []struct{ profile, name string }{
		{"threadcreate", "the threadcreate profile"},
		{"heap", "the heap or allocs profile"},
		{"allocs", "the heap or allocs profile"},
		{"block", "the block profile"},
		{"mutex", "the mutex profile"},
		{"stackdumpOpenFiles", "the stackdumpOpenFiles profile"},
	} {
		text := otherProfileText(t, c.profile)
		for _, read := range []struct {
			how  string
			read func() ([]*stack.Dump, error)
		}{
			{"stream", func() ([]*stack.Dump, error) { return formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{}) }},
			{"bytes", func() ([]*stack.Dump, error) {
				return readAllBytes(formats.NewReaderBytes(text, formats.ReadOptions{}))
			}},
		} {
			dumps, err := read.read()
			if len(dumps) != 0 || !errors.Is(err, stack.ErrNotGoroutineProfile) {
				t.Errorf("%s profile (%s): %d dumps, error %v; want ErrNotGoroutineProfile", c.profile, read.how, len(dumps), err)
				continue
			}
			var pe *stack.ParseError
			if !errors.As(err, &pe) || pe.Line != 1 || pe.Offset != 0 || !strings.Contains(err.Error(), c.name) {
				t.Errorf("%s profile (%s): error %q; want line 1 and %q named", c.profile, read.how, err, c.name)
			}
		}
	}
}

// readAllBytes reads every dump of rd as formats.ReadAll does.
func readAllBytes(rd *formats.Reader) ([]*stack.Dump, error) {
	var dumps []*stack.Dump
	for {
		d, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return dumps, nil
			}
			return dumps, err
		}
		dumps = append(dumps, d)
		for range rd.Routines() {
		}
	}
}

// A goroutine profile followed by a threadcreate profile (two pages
// fetched into one file) keeps the goroutine profile and then stops at
// the threadcreate header, naming its line. Forced to the debug=1 format,
// the threadcreate text is refused as well.
func TestReadGoroutineThenThreadcreate(t *testing.T) {
	goroutines := otherProfileText(t, "goroutine")
	text := append(append([]byte(nil), goroutines...), otherProfileText(t, "threadcreate")...)
	dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
	if len(dumps) != 1 || dumps[0].Source.Kind != stack.KindGoDebug1 || dumps[0].Total == 0 {
		t.Fatalf("%d dumps (%v); want the goroutine profile", len(dumps), err)
	}
	wantLine := bytes.Count(goroutines, []byte("\n")) + 1
	var pe *stack.ParseError
	if !errors.Is(err, stack.ErrNotGoroutineProfile) || !errors.As(err, &pe) || pe.Line != wantLine || pe.Offset != int64(len(goroutines)) {
		t.Errorf("error %v; want ErrNotGoroutineProfile at line %d, offset %d", err, wantLine, len(goroutines))
	}

	dumps, err = formats.ReadAll(bytes.NewReader(otherProfileText(t, "threadcreate")), formats.ReadOptions{Kind: stack.KindGoDebug1})
	if len(dumps) != 0 || !errors.Is(err, stack.ErrNotGoroutineProfile) {
		t.Errorf("threadcreate as --from go-debug1: %d dumps, error %v; want ErrNotGoroutineProfile", len(dumps), err)
	}
}
