package unpaste

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/internal/paste"
)

// TestUnwrap wraps every line of real dumps as a structured logger, a log
// shipper and a Markdown converter do (internal/paste), and checks that
// the frame sniffed from the result learns the wrap and gives every line
// back: exactly, or without its indentation where the list dropped it.
func TestUnwrap(t *testing.T) {
	files := []string{"go/sigquit_go126.txt", "go/race_go126.txt", "corpus/go/gostackparse_windows.txt",
		"debug1/go1.26.8.txt", "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", "corpus/jvm/tda_visualvm_remote.log"}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := rawLines(data)
		for _, c := range []struct {
			transform string
			learnt    func(*Frame) bool
			indent    bool // the form keeps the lines' indentation
		}{
			{"log-fields", func(f *Frame) bool { return f.Suffix != "" }, true},
			{"fluentd-quoted", func(f *Frame) bool { return f.Quoted }, true},
			{"markdown-list", func(f *Frame) bool { return f.List }, false},
		} {
			tr, ok := paste.Lookup(c.transform)
			if !ok {
				t.Fatalf("no transformation %q", c.transform)
			}
			pasted := tr.Apply(data, 1)
			f := sniffAll(pasted[:min(len(pasted), 64<<10)])
			if f == nil || !c.learnt(f) {
				t.Errorf("%s, %s: frame %+v does not have the wrap", name, c.transform, f)
				continue
			}
			lines, _ := rawLines(pasted)
			var k int
			for _, l := range lines {
				got := f.unwrap(l)
				if len(bytes.TrimSpace(got)) == 0 && !c.indent {
					continue // the list's blank lines
				}
				for k < len(orig) && len(bytes.TrimSpace(orig[k])) == 0 && !c.indent {
					k++
				}
				if k >= len(orig) {
					t.Errorf("%s, %s: more lines than the original", name, c.transform)
					break
				}
				want := bytes.TrimSuffix(orig[k], []byte("\r"))
				if !c.indent {
					want = bytes.TrimLeft(want, " \t")
				}
				got = bytes.TrimPrefix(got, f.Prefix.Text())
				if c.transform == "log-fields" {
					got = f.Prefix.Strip(got)
				}
				if !bytes.Equal(bytes.TrimSuffix(got, []byte("\r")), want) && !bytes.HasSuffix(got, want) {
					t.Errorf("%s, %s: line %d unwraps to %q, want %q", name, c.transform, k+1, got, want)
					break
				}
				k++
			}
		}
	}
}

// TestCleanDumpsNotWrappedNorReversed checks that no wrap is learnt from
// a dump as the runtime or the JVM wrote it, and that none is taken for
// reversed, and that every reversed one is.
func TestCleanDumpsNotWrappedNorReversed(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "*", "*"))
	shared, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "*", "*")) // beside the repository, when there
	for _, p := range append(append(paths, more...), shared...) {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), 64<<10)]
		var f Frame
		if sniffWrap(head, &f) != nil {
			t.Errorf("%s: a wrap learnt from a clean dump: %+v", p, f)
		}
		if sniffReversed(head, sniffAll(head), AllForms) {
			t.Errorf("%s: a clean dump taken for reversed", p)
		}
		if w, cols := sniffSoftWrap(head, &Frame{forms: AllForms}); w > 0 {
			t.Errorf("%s: a clean dump taken for soft-wrapped at %d (columns %v)", p, w, cols)
		}
		rev, _ := paste.Lookup("reversed")
		if !rev.Applies(data) || refusedForm(p) {
			continue
		}
		r := rev.Apply(data, 1)
		if f := sniffAll(r[:min(len(r), 64<<10)]); f == nil || !f.Reversed {
			if bytes.Count(data, []byte("\n")) > 4 && lineFormIn(r[:min(len(r), 64<<10)]) { // a block starts in the head
				t.Errorf("%s, reversed: frame %+v", p, f)
			}
		}
	}
}

// refusedForm reports whether path is one of the forms of testdata/wild
// that the readers refuse by name (an Android ANR trace, an OpenJ9
// javacore: docs/jvm.md): its reversed form is not read either, so
// whether it is taken for reversed does not matter.
func refusedForm(path string) bool {
	base := filepath.Base(path)
	return filepath.Base(filepath.Dir(path)) == "wild" && (strings.Contains(base, "anr") || strings.Contains(base, "javacore"))
}

// lineFormIn reports whether a line of data starts a block of a dump.
func lineFormIn(data []byte) bool {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if AllForms.BlockStart(bytes.TrimSpace(l)) != nil {
			return true
		}
	}
	return false
}

// TestSoftWrapJoined breaks the long lines of real dumps at a window's
// width (internal/paste's soft-wrap) and checks that where the frame
// learns the width, the framed reader gives back the dump's own lines.
func TestSoftWrapJoined(t *testing.T) {
	tr, ok := paste.Lookup("soft-wrap")
	if !ok {
		t.Fatal("no soft-wrap transformation")
	}
	learnt := 0
	for _, name := range []string{"corpus/jvm/local_jdk17.0.15-jstack-plain.txt", "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt",
		"go/sigquit_go126.txt", "go/race_go126.txt", "corpus/go/panicparse_panicweb_debug2.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		pasted := tr.Apply(data, 1)
		f := sniffAll(pasted[:min(len(pasted), 64<<10)])
		if f == nil || f.Wrap == 0 {
			t.Logf("%s: no width learnt", name)
			continue
		}
		learnt++
		want, _ := rawLines(data)
		// In memory, and streamed through bufio's smallest buffer, where
		// a line's bytes are gone once the next is read.
		for _, buf := range []int{0, 16} {
			lr, _ := framedLines(pasted, f, buf)
			for i := 0; ; i++ {
				ln, err := lr.Read()
				line := ln.Text
				if err != nil {
					if i != len(want) {
						t.Errorf("%s: %d lines read, the dump has %d (%v)", name, i, len(want), err)
					}
					break
				}
				if i >= len(want) || !bytes.Equal(line, bytes.TrimSuffix(want[i], []byte("\r"))) {
					t.Errorf("%s: line %d reads %q, want %q", name, i+1, line, want[min(i, len(want)-1)])
					break
				}
			}
		}
	}
	if learnt < 3 {
		t.Errorf("the width was learnt for %d of 5 soft-wrapped dumps", learnt)
	}
}

// TestReversedTooLarge: a reversed paste larger than the bound is read in
// its order, every line once, and the frame no longer says reversed (so
// no reader claims to have read it from the last line up).
func TestReversedTooLarge(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "sigquit_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rev, _ := paste.Lookup("reversed")
	pasted := rev.Apply(data, 1)
	f := sniffAll(pasted[:min(len(pasted), 64<<10)])
	if f == nil || !f.Reversed {
		t.Fatalf("frame %+v: not reversed", f)
	}
	for _, limit := range []int64{1 << 30, 200} {
		lr, ly := framedLines(pasted, f, 0)
		ly.maxReversed = limit
		want, _ := rawLines(pasted)
		var nums []int
		for {
			ln, err := lr.Read()
			if err != nil {
				break
			}
			nums = append(nums, ln.Num)
		}
		if len(nums) != len(want) {
			t.Fatalf("limit %d: %d lines read of %d", limit, len(nums), len(want))
		}
		inOrder := nums[0] == 1 && nums[len(nums)-1] == len(want)
		if limit > int64(len(pasted)) && (inOrder || !ly.f.Reversed) {
			t.Errorf("limit %d: lines %d..%d, reversed %v; want the last line first", limit, nums[0], nums[len(nums)-1], ly.f.Reversed)
		}
		if limit < int64(len(pasted)) && (!inOrder || ly.f.Reversed) {
			t.Errorf("limit %d: lines %d..%d, reversed %v; want them in order, not reversed", limit, nums[0], nums[len(nums)-1], ly.f.Reversed)
		}
	}
}
