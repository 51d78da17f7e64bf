package formats_test

import (
	"bytes"
	"errors"
	"io"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// customProfile is a profile of this test binary's own, as a program makes
// with pprof.NewProfile: its debug=1 text has a `NAME profile: total N`
// header like threadcreate's.
var customProfile = pprof.NewProfile("stackdumpOpenFiles")

// The debug=1 text of the runtime's other profiles is refused with
// ErrNotGoroutineProfile and an error that names the profile and its
// header line; threadcreate's, whose header is like a goroutine
// profile's, used to be read as a goroutine profile of as many
// "goroutines" as the process had made threads. A door test: sniffing
// refuses these before any codec reads them (the debug1 reader's own
// refusal, with the format forced, is tested in formats/debug1).
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
		text := dumptest.ProfileText(t, c.profile)
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
