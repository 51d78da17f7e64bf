package analyze

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// convertBytes streams every dump of data through an encoder of format f,
// as `stackdump convert` does (the reader reuses its routines).
func convertBytes(t *testing.T, data []byte, f output.Format) []byte {
	t.Helper()
	var out bytes.Buffer
	enc, err := formats.NewEncoder(&out, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := formats.Copy(enc, formats.NewReaderBytes(data, formats.ReadOptions{}), nil); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// jvmFacts lists what a JVM dump says about its threads, locks and
// deadlocks, one line each, in a form that does not depend on the format
// it was read from.
func jvmFacts(t *testing.T, data []byte) []string {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var facts []string
	for i, d := range dumps {
		add := func(format string, args ...any) {
			facts = append(facts, fmt.Sprintf("dump %d: ", i+1)+fmt.Sprintf(format, args...))
		}
		add("%d threads", len(d.Routines))
		var threads []string
		for _, r := range d.Routines {
			threads = append(threads, fmt.Sprintf("thread #%d %q [%s]", r.ID, r.Name, r.State))
		}
		slices.Sort(threads)
		for _, th := range threads {
			add("%s", th)
		}
		rep := Locks(d)
		for _, lk := range rep.Locks {
			add("lock %s owner %s (%s) blocked %q waiting %q", lk, threadName(lk.Owner), lk.OwnerFrom,
				routineNames(lk.Blocked), routineNames(lk.Waiting))
		}
		for _, dl := range rep.Deadlocks {
			var locks []string
			for _, lk := range dl.Locks {
				locks = append(locks, lk.String())
			}
			add("deadlock %q on %q", routineNames(dl.Routines), locks)
		}
		add("the JVM reported %d deadlocks in %d sections", rep.ReportedCount, len(rep.Reported))
	}
	// What `stackdump analyze` prints, read as it reads (streaming).
	rd := formats.NewReaderBytes(data, formats.ReadOptions{ReuseRoutines: true})
	for i := 1; ; i++ {
		s, _, err := SummarizeNext(rd, StreamOptions{})
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		facts = append(facts, fmt.Sprintf("summary %d: %d threads, states %v", i, s.Total, s.States))
		if s.JVM != nil {
			facts = append(facts, fmt.Sprintf("summary %d: %d deadlocks, the JVM reported %d", i, len(s.JVM.Deadlocks), s.JVM.ReportedDeadlocks))
		}
	}
	return facts
}

func threadName(r *stack.Routine) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%q", r.Name)
}

// Text → JSON → text keeps every thread, state, lock and deadlock of every
// JVM dump of the corpus, and the JVM's own deadlock report: the streaming
// JSON writer puts the report, met after the threads, in "epilogue".
func TestJVMRoundTripThroughJSON(t *testing.T) {
	withReport := 0
	for _, path := range jvmFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			js := convertBytes(t, orig, output.JSON)
			text := convertBytes(t, js, output.Text)
			want := jvmFacts(t, orig)
			for _, step := range []struct {
				name string
				data []byte
			}{{"JSON", js}, {"text from JSON", text}} {
				if got := jvmFacts(t, step.data); !slices.Equal(got, want) {
					t.Errorf("%s differs from the original:\n%s", step.name, firstDifference(want, got))
				}
			}
			if strings.Contains(string(orig), "Java-level deadlock") {
				withReport++
			}
		})
	}
	if withReport < 8 {
		t.Errorf("only %d files with a JVM deadlock report", withReport)
	}
}

// firstDifference shows the first line where two lists differ.
func firstDifference(want, got []string) string {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, w, g)
		}
	}
	return "(no difference)"
}
