package dumper

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// TestParseTracebackChunks reads one real traceback whole and in parallel
// chunks: the routines must be the same, line numbers included, and
// routines with equal stacks must share one interned Stack.
func TestParseTracebackChunks(t *testing.T) {
	startFixture(t, fixturePerKind)
	buf := make([]byte, 64<<20)
	text := buf[:runtime.Stack(buf, true)]
	whole, err := parseTracebackChunks(context.Background(), text, stack.NewTable(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 5, 16} {
		if got := len(splitTraceback(text, n)); got != n {
			t.Errorf("splitTraceback(%d) made %d chunks", n, got)
		}
		tab := stack.NewTable()
		split, err := parseTracebackChunks(context.Background(), text, tab, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(split.Routines) != len(whole.Routines) || split.Total != whole.Total {
			t.Fatalf("%d chunks: %d routines (total %d), whole: %d (total %d)", n, len(split.Routines), split.Total, len(whole.Routines), whole.Total)
		}
		byFrames := map[string]*stack.Stack{}
		for i, r := range split.Routines {
			if got, want := describeRoutine(r), describeRoutine(whole.Routines[i]); got != want {
				t.Errorf("%d chunks: routine %d\n got %s\nwant %s", n, i, got, want)
			}
			k := describeFrames(r.Frames())
			if s, ok := byFrames[k]; ok && s != r.Stack {
				t.Errorf("%d chunks: goroutine %d does not share the interned stack of its equals", n, r.ID)
			}
			byFrames[k] = r.Stack
		}
		_, stacks := tab.Len()
		if stacks != len(byFrames) {
			t.Errorf("%d chunks: table holds %d stacks, %d distinct", n, stacks, len(byFrames))
		}
	}
}

func describeRoutine(r *stack.Routine) string {
	var args []string
	for i := range r.Frames() {
		args = append(args, r.Arg(i))
	}
	cb := "<nil>"
	if r.CreatedBy != nil {
		cb = describeFrames([]*stack.Frame{r.CreatedBy})
	}
	return fmt.Sprintf("id=%d line=%d state=%q wait=%d labels=%v parent=%d created=%s frames=%s args=%q",
		r.ID, r.Line, r.State, r.WaitMinutes, r.Labels, r.ParentID, cb, describeFrames(r.Frames()), args)
}

func describeFrames(fs []*stack.Frame) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s:%d +%#x;", f.Func, f.File, f.Line, f.Offset)
	}
	return b.String()
}

// TestRawTextMatchesEncoder is why text output of a full capture is the
// runtime's own text, unread: reading that text and writing it back with
// the text encoder gives the same bytes.
func TestRawTextMatchesEncoder(t *testing.T) {
	startFixture(t, 20)
	d, raw, err := capture(context.Background(), CaptureOptions{NoLabels: !runtimeGo126}, true)
	if err != nil {
		t.Fatal(err)
	}
	if raw == nil {
		t.Fatal("a full capture with printed labels kept no raw text")
	}
	defer putStackBuf(raw.buf)
	if d.Source.Capture == nil || d.Source.Capture.Mode != "full" || d.Source.Capture.Pauses < 1 {
		t.Errorf("raw capture metadata %+v", d.Source.Capture)
	}
	text := raw.buf[:raw.n]
	parsed, err := parseTraceback(context.Background(), text, stack.NewTable())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := encodeDump(context.Background(), &out, output.Text, parsed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), text) {
		a, b := out.Bytes(), text
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Errorf("re-encoded text differs from the runtime's at byte %d:\n encoded %q\n runtime %q", i, a[max(0, i-40):min(len(a), i+40)], b[max(0, i-40):min(len(b), i+40)])
	}
	// With tracebacklabels=0 the labels must be joined: no raw text.
	t.Setenv("GODEBUG", "tracebacklabels=0")
	if _, raw, err := capture(context.Background(), CaptureOptions{}, true); err != nil || raw != nil {
		t.Errorf("capture with tracebacklabels=0 kept the raw text (%v)", err)
	}
}
