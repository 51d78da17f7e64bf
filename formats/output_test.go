package formats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// Output names mean what they say: every documented extension picks its
// format, compression extensions stackdump does not write and unknown
// extensions are refused, and a command's own formats bound the choice.
func TestOutputFor(t *testing.T) {
	textJSON := []Format{FormatText, FormatJSON}
	html := []Format{FormatHTML}
	for _, c := range []struct {
		path     string
		format   Format
		compress Compression
		allowed  []Format
		f        Format
		comp     Compression
		err      string
	}{
		{path: "", f: FormatText, comp: CompressNone},
		{path: "dump", f: FormatText, comp: CompressNone},
		{path: "d.txt", f: FormatText, comp: CompressNone},
		{path: "d.log.zst", f: FormatText, comp: CompressZstd},
		{path: "d.json.gz", f: FormatJSON, comp: CompressGzip},
		{path: "d.pb", f: FormatPprof, comp: CompressNone},
		{path: "d.pb.gz", f: FormatPprof, comp: CompressGzip},
		{path: "d.pprof", f: FormatPprof, comp: CompressNone},
		{path: "D.PROF", f: FormatPprof, comp: CompressNone},
		{path: "d.folded", f: FormatFolded, comp: CompressNone},
		{path: "d.txt", format: "debug1", f: FormatDebug1, comp: CompressNone},
		{path: "d.json", compress: "zstd", err: "d.json: the name has no .zst, but --compress is zstd (name it d.json.zst)"},
		{path: "d.txt", compress: "gzip", err: "d.txt: the name has no .gz, but --compress is gzip (name it d.txt.gz)"},
		{path: "d.html", compress: "gz", allowed: html, err: "the name has no .gz"},
		{path: "d.txt", compress: "none", f: FormatText, comp: CompressNone},
		{path: "d.txt.gz", compress: "none", err: "d.txt.gz: a .gz name, but --compress is none (name it d.txt)"},
		{path: "d.json.gz", compress: "zstd", err: "d.json.gz: a .gz name, but --compress is zstd (name it d.json.zst)"},
		{path: "d.zst", compress: "gzip", err: "d.zst: a .zst name, but --compress is gzip (name it d.gz)"},
		{path: "d.json.gz", compress: "gzip", f: FormatJSON, comp: CompressGzip},
		{path: "d.txt.zst", compress: "zst", f: FormatText, comp: CompressZstd},
		{path: "d.pb", compress: "gzip", f: FormatPprof, comp: CompressGzip},
		{path: "d.prof", compress: "zstd", err: "the name has no .zst"},
		{path: "dump", compress: "gzip", f: FormatText, comp: CompressGzip},
		{path: "d.dat", format: "json", compress: "zstd", f: FormatJSON, comp: CompressZstd},
		{path: "", compress: "gzip", f: FormatText, comp: CompressGzip},
		{path: "d.dat", format: "json", f: FormatJSON, comp: CompressNone},
		{path: "d.txt.bz2", err: "bzip2 compression is not supported"},
		{path: "d.json.xz", err: "xz compression is not supported"},
		{path: "d.lz4", err: "lz4 compression is not supported"},
		{path: "d.dat", err: `unknown extension ".dat"`},
		{path: "d.json", format: "text", err: "a json name, but --format is text"},
		{path: "d.html", err: "d.html: an html name, but this writes text, json, debug1, pprof or folded"},
		{path: "d.json", allowed: textJSON, f: FormatJSON, comp: CompressNone},
		{path: "", allowed: textJSON, f: FormatText, comp: CompressNone},
		{path: "d.pb", allowed: textJSON, err: "a pprof name, but this writes text or json"},
		{path: "d.x", allowed: textJSON, err: `(want .log, .txt or .json, or say --format)`},
		{path: "r.html", allowed: html, f: FormatHTML, comp: CompressNone},
		{path: "r.html.gz", allowed: html, f: FormatHTML, comp: CompressGzip},
		{path: "", allowed: html, f: FormatHTML, comp: CompressNone},
		{path: "r.json", allowed: html, err: "a json name, but this writes html"},
		{path: "d", format: "JSON", compress: "gz", f: FormatJSON, comp: CompressGzip},
		{path: "d", format: "yaml", err: `unknown format "yaml"`},
		{path: "d", compress: "bz2", err: `unknown compression "bz2"`},
		{path: "d.txt", format: FormatJSON, allowed: textJSON, err: "a text name, but --format is json"},
	} {
		f, comp, err := OutputFor(c.path, OutputOptions{Format: c.format, Compression: c.compress, Allowed: c.allowed})
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("OutputFor(%q, %q, %q, %v): %v, want an error with %q", c.path, c.format, c.compress, c.allowed, err, c.err)
			}
		case err != nil || f != c.f || comp != c.comp:
			t.Errorf("OutputFor(%q, %q, %q, %v) = %s, %s, %v; want %s, %s", c.path, c.format, c.compress, c.allowed, f, comp, err, c.f, c.comp)
		}
	}
}

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
	enc, _ := NewEncoder(&buf, FormatPprof)
	if err := WriteDump(enc, dumps[0]); err != nil {
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
