package paste

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
)

// The property checks of the forms of issue 38.

// jsonLogLead: JSON log lines before and after the whole dump, the first
// line of the output one of them.
func jsonLogLead(t *testing.T, in, out []byte) {
	logLead(t, in, out)
	i := bytes.Index(out, withNL(in))
	for _, part := range [][]byte{out[:i], out[i+len(withNL(in)):]} {
		for _, l := range lines(part) {
			if !json.Valid(l) || l[0] != '{' {
				t.Errorf("log line %q is not a JSON object", l)
			}
		}
	}
}

// tailed: out is the dump's last lines, cut at a line's start.
func tailed(t *testing.T, in, out []byte) {
	if len(out) == 0 || len(out) >= len(in) || !bytes.HasSuffix(in, out) {
		t.Fatal("output is not a shorter end of the dump")
	}
	if in[len(in)-len(out)-1] != '\n' {
		t.Fatal("the cut is not at a line start")
	}
}

// threadsOnly: out is the dump from its first thread header on, and what
// was left out holds the "Full thread dump" line.
func threadsOnly(t *testing.T, in, out []byte) {
	fromHeader(t, in, out)
	if left := in[:len(in)-len(out)]; !fullDump.Match(left) || jvmHeader.Match(left) {
		t.Fatalf("left out %q: want the lines before the first thread, its Full thread dump line among them", tail(left))
	}
}

// halfFenced: a fence, the dump's first lines as they were, a fence, the
// rest of its lines without their leading whitespace.
func halfFenced(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want)+2 || string(got[0]) != "```" {
		t.Fatalf("%d lines starting %q: want the dump's %d and two fences, the first on top", len(got), got[0], len(want))
	}
	cut := -1
	for i, l := range got[1:] {
		if string(l) == "```" {
			cut = i
			break
		}
	}
	if cut < len(want)/3 || cut > len(want)*2/3 {
		t.Fatalf("closing fence after %d of %d lines: want it in the middle third", cut, len(want))
	}
	equalLines(t, "inside the fence", got[1:cut+1], want[:cut])
	var rest [][]byte
	for _, l := range want[cut:] {
		rest = append(rest, trimLeftSpace(l))
	}
	equalLines(t, "after the fence", got[cut+2:], rest)
}

var headingRe = regexp.MustCompile(`^### Thread dump (\d+)$`)

// headed: the dump's lines with a heading and a blank line over its first
// line and over each later "Full thread dump" (or the time stamp before
// it), numbered from 1.
func headed(t *testing.T, in, out []byte) {
	var body [][]byte
	n := 0
	ls := lines(out)
	for i := 0; i < len(ls); i++ {
		if m := headingRe.FindSubmatch(ls[i]); m != nil {
			n++
			if string(m[1]) != strconv.Itoa(n) || i+1 >= len(ls) || len(ls[i+1]) != 0 {
				t.Fatalf("line %d %q: want heading %d and a blank line", i+1, ls[i], n)
			}
			i++
			if next := ls[min(i+1, len(ls)-1)]; n > 1 && !jvmBanner.Match(next) && !stamp.Match(next) {
				t.Fatalf("heading %d is over %q, not a dump's first line", n, next)
			}
			continue
		}
		body = append(body, ls[i])
	}
	if n != 1+len(dumpStarts(lines(in))) {
		t.Fatalf("%d headings for %d dumps", n, 1+len(dumpStarts(lines(in))))
	}
	equalLines(t, "under the headings", body, lines(in))
}

// emboldened: every header whose name holds no quote has its name between
// ** and **, and nothing else changed.
func emboldened(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	bold := 0
	for i := range got {
		if boldable.Match(want[i]) {
			bold++
			q := bytes.IndexByte(want[i][1:], '"') + 2
			w := concat([]byte("**"), want[i][:q], []byte("**"), want[i][q:])
			if !bytes.Equal(got[i], w) {
				t.Fatalf("line %d %q, want %q", i+1, got[i], w)
			}
			continue
		}
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("line %d %q changed, want %q", i+1, got[i], want[i])
		}
	}
	if bold == 0 {
		t.Fatal("no thread name made bold")
	}
}

// logCut: the dump's first lines up to one inside a stack, then log
// lines that are no dump's.
func logCut(t *testing.T, in, out []byte) {
	got, want := lines(out), lines(in)
	if len(got) < 3 || len(got)-2 >= len(want) {
		t.Fatalf("%d lines of a %d-line dump", len(got), len(want))
	}
	kept := got[:len(got)-2]
	equalLines(t, "before the log lines", kept, want[:len(kept)])
	if !contains(intsToStrings(midStackLines(in)), strconv.Itoa(len(kept)-1)) {
		t.Fatalf("cut after line %d %q, not inside a stack", len(kept), kept[len(kept)-1])
	}
	for _, l := range got[len(kept):] {
		if DetectKind(l) != 0 {
			t.Fatalf("log line %q looks like a dump", l)
		}
	}
}

func intsToStrings(n []int) []string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return s
}

func init() {
	checks["cut-log"] = logCut
	checks["log-lead-json"] = jsonLogLead
	checks["tail"] = tailed
	checks["threads-only"] = threadsOnly
	checks["fence-half"] = halfFenced
	checks["headings"] = headed
	checks["bold-names"] = emboldened
}
