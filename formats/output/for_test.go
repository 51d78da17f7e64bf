package output_test

import (
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/output"
)

// Output names mean what they say: every documented extension picks its
// format, compression extensions stackdump does not write and unknown
// extensions are refused, and a command's own formats bound the choice.
func TestOutputFor(t *testing.T) {
	textJSON := []output.Format{output.Text, output.JSON}
	html := []output.Format{output.HTML}
	for _, c := range []struct {
		path     string
		format   output.Format
		compress output.Compression
		allowed  []output.Format
		f        output.Format
		comp     output.Compression
		err      string
	}{
		{path: "", f: output.Text, comp: output.None},
		{path: "dump", f: output.Text, comp: output.None},
		{path: "d.txt", f: output.Text, comp: output.None},
		{path: "d.log.zst", f: output.Text, comp: output.Zstd},
		{path: "d.json.gz", f: output.JSON, comp: output.Gzip},
		{path: "d.pb", f: output.Pprof, comp: output.None},
		{path: "d.pb.gz", f: output.Pprof, comp: output.Gzip},
		{path: "d.pprof", f: output.Pprof, comp: output.None},
		{path: "D.PROF", f: output.Pprof, comp: output.None},
		{path: "d.folded", f: output.Folded, comp: output.None},
		{path: "d.txt", format: "debug1", f: output.Debug1, comp: output.None},
		{path: "d.json", compress: "zstd", err: "d.json: the name has no .zst, but the compression asked for is zstd (name it d.json.zst)"},
		{path: "d.txt", compress: "gzip", err: "d.txt: the name has no .gz, but the compression asked for is gzip (name it d.txt.gz)"},
		{path: "d.html", compress: "gz", allowed: html, err: "the name has no .gz"},
		{path: "d.txt", compress: "none", f: output.Text, comp: output.None},
		{path: "d.txt.gz", compress: "none", err: "d.txt.gz: a .gz name, but the compression asked for is none (name it d.txt)"},
		{path: "d.json.gz", compress: "zstd", err: "d.json.gz: a .gz name, but the compression asked for is zstd (name it d.json.zst)"},
		{path: "d.zst", compress: "gzip", err: "d.zst: a .zst name, but the compression asked for is gzip (name it d.gz)"},
		{path: "d.json.gz", compress: "gzip", f: output.JSON, comp: output.Gzip},
		{path: "d.txt.zst", compress: "zst", f: output.Text, comp: output.Zstd},
		{path: "d.pb", compress: "gzip", f: output.Pprof, comp: output.Gzip},
		{path: "d.prof", compress: "zstd", err: "the name has no .zst"},
		{path: "dump", compress: "gzip", f: output.Text, comp: output.Gzip},
		{path: "d.dat", format: "json", compress: "zstd", f: output.JSON, comp: output.Zstd},
		{path: "", compress: "gzip", f: output.Text, comp: output.Gzip},
		{path: "d.dat", format: "json", f: output.JSON, comp: output.None},
		{path: "d.txt.bz2", err: "bzip2 compression is not supported"},
		{path: "d.json.xz", err: "xz compression is not supported"},
		{path: "d.lz4", err: "lz4 compression is not supported"},
		{path: "d.dat", err: `unknown extension ".dat"`},
		{path: "d.json", format: "text", err: "a json name, but the format asked for is text"},
		{path: "d.html", err: "d.html: an html name, but this writes text, json, debug1, pprof or folded"},
		{path: "d.json", allowed: textJSON, f: output.JSON, comp: output.None},
		{path: "", allowed: textJSON, f: output.Text, comp: output.None},
		{path: "d.pb", allowed: textJSON, err: "a pprof name, but this writes text or json"},
		{path: "d.x", allowed: textJSON, err: `(want .log, .txt or .json, or give the format)`},
		{path: "r.html", allowed: html, f: output.HTML, comp: output.None},
		{path: "r.html.gz", allowed: html, f: output.HTML, comp: output.Gzip},
		{path: "", allowed: html, f: output.HTML, comp: output.None},
		{path: "r.json", allowed: html, err: "a json name, but this writes html"},
		{path: "d", format: "JSON", compress: "gz", f: output.JSON, comp: output.Gzip},
		{path: "d", format: "yaml", err: `unknown format "yaml"`},
		{path: "d", compress: "bz2", err: `unknown compression "bz2"`},
		{path: "d.txt", format: output.JSON, allowed: textJSON, err: "a text name, but the format asked for is json"},
	} {
		f, comp, err := output.For(c.path, output.Options{Format: c.format, Compression: c.compress, Allowed: c.allowed})
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
