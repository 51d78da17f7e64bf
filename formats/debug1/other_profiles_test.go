package debug1_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// A goroutine profile followed by a threadcreate profile (two pages
// fetched into one file) keeps the goroutine profile and then stops at
// the threadcreate header, naming its line. Forced to the debug=1 format,
// the threadcreate text is refused as well.
func TestReadGoroutineThenThreadcreate(t *testing.T) {
	goroutines := dumptest.ProfileText(t, "goroutine")
	text := append(append([]byte(nil), goroutines...), dumptest.ProfileText(t, "threadcreate")...)
	dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
	if len(dumps) != 1 || dumps[0].Source.Kind != stack.KindGoDebug1 || dumps[0].Total == 0 {
		t.Fatalf("%d dumps (%v); want the goroutine profile", len(dumps), err)
	}
	wantLine := bytes.Count(goroutines, []byte("\n")) + 1
	var pe *stack.ParseError
	if !errors.Is(err, stack.ErrNotGoroutineProfile) || !errors.As(err, &pe) || pe.Line != wantLine || pe.Offset != int64(len(goroutines)) {
		t.Errorf("error %v; want ErrNotGoroutineProfile at line %d, offset %d", err, wantLine, len(goroutines))
	}

	dumps, err = formats.ReadAll(bytes.NewReader(dumptest.ProfileText(t, "threadcreate")), formats.ReadOptions{Kind: stack.KindGoDebug1})
	if len(dumps) != 0 || !errors.Is(err, stack.ErrNotGoroutineProfile) {
		t.Errorf("threadcreate as --from go-debug1: %d dumps, error %v; want ErrNotGoroutineProfile", len(dumps), err)
	}
}
