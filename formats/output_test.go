package formats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// A JVM dump's profile counts threads, and the JVM's deadlock report is
// not one of the profile's comments.
func TestPprofOfJVMDump(t *testing.T) {
	f, err := os.Open("../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := ReadAll(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps[0].Preamble) == 0 {
		t.Fatal("the fixture has no deadlock report")
	}
	var buf bytes.Buffer
	enc, _ := NewEncoder(&buf, output.Pprof)
	if err := stack.WriteDump(enc, dumps[0]); err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if st := p.SampleType[0]; st.Type != "thread" || st.Unit != "count" {
		t.Errorf("sample type %s/%s, want thread/count", st.Type, st.Unit)
	}
	for _, c := range p.Comments {
		if strings.Contains(c, "deadlock") || strings.Contains(c, "waiting to lock") {
			t.Errorf("comment %q", c)
		}
	}
	back, err := ReadAll(bytes.NewReader(buf.Bytes()), ReadOptions{})
	if err != nil || len(back) != 1 || back[0].Total != dumps[0].Total {
		t.Errorf("read back: %v, total %d of %d", err, back[0].Total, dumps[0].Total)
	}
}
