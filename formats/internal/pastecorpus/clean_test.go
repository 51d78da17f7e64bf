package pastecorpus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

// TestCleanCorpusFrameless reads every real dump of testdata/ as the
// runtime or the JVM wrote it twice: through the door, which looks for a
// paste frame in its first lines, and through its codec's reader with the
// frame forced off. The two readings must be the same, warnings and line
// numbers included: the paste frame never takes a line of a dump that was
// not pasted.
func TestCleanCorpusFrameless(t *testing.T) {
	for _, s := range sources(t) {
		framed, err := formats.ReadAll(bytes.NewReader(s.data), formats.ReadOptions{})
		if errors.Is(err, stack.ErrNotDump) && len(framed) == 0 {
			// A form refused by name (an ANR trace): refused the same
			// without the frame.
			in := codec.NewMemStream(s.data, stack.KindJVMText, 64<<10)
			in.SetFrame(nil)
			if _, bare := stack.ReadAll(jvm.NewReader(in, jvm.ReadOptions{})); bare == nil || bare.Error() != err.Error() {
				t.Errorf("%s: refused as %v through the door, as %v without a frame", s.name, err, bare)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if len(framed) == 0 {
			continue
		}
		kind := framed[0].Source.Kind
		in := codec.NewMemStream(s.data, kind, 64<<10)
		in.SetFrame(nil)
		var src stack.DumpSource
		switch kind {
		case stack.KindGoTraceback:
			src = gotext.NewReader(in, gotext.ReadOptions{})
		case stack.KindGoDebug1:
			src = debug1.NewReader(in, debug1.ReadOptions{})
		case stack.KindJVMText:
			src = jvm.NewReader(in, jvm.ReadOptions{})
		default:
			t.Errorf("%s: read as %s", s.name, kind)
			continue
		}
		bare, err := stack.ReadAll(src)
		if err != nil {
			t.Errorf("%s without a frame: %v", s.name, err)
			continue
		}
		if f := unpaste.Sniff(s.data[:min(len(s.data), 64<<10)], codec.Forms{gotext.Form(), debug1.Form(), jvm.Form()}); f != nil {
			t.Logf("%s: a frame is sniffed: %+v", s.name, f)
		}
		dumptest.EqualDumps(t, s.name, bare, framed, dumptest.DescribeOptions{Lines: true, Warnings: true})
	}
}
