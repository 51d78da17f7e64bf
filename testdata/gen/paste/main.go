// Command paste writes the pasted forms of every real dump of the
// repository: each transformation of internal/paste (and each combination
// seen in a real paste) applied to each dump of testdata/ and of the shared
// corpus beside the repository, as docs/paste-forms.md describes them. Tests
// do not read its output: they call internal/paste themselves; this corpus is
// for looking at, and for the baseline of docs/paste-baseline.md.
//
// From the repository root:
//
//	go run ./testdata/gen/paste /tmp/paste
//	go build -o /tmp/stackdump ./cmd/stackdump
//	go run ./testdata/gen/paste -compare /tmp/stackdump -report /tmp/paste-baseline.md /tmp/paste
//
// The first writes OUT/<dump>/<transformation>.txt and OUT/manifest.tsv
// (file, source, transformation, loss); for a combination that first cuts the
// dump and then only frames it (cut-end+fence), also the cut alone as
// OUT/<dump>/ref/<transformation>.txt. The second also runs
// "stackdump analyze --json" and "stackdump convert --format json" on every
// original and every pasted form and writes how they differ (dumps, counts,
// states, crash, deadlocks, races, truncation, warnings, frames) as Markdown,
// and every form's verdict in OUT/results.tsv. A form is compared with its
// original; a glued form with both dumps; a framed cut with the cut alone.
// Sources are read from testdata/ (fixtures of testdata/gen, the committed
// public corpus; not malformed/, JSON, pprof or trace files) and -shared
// (default ../shared/corpus), once per content. -seed changes every random
// choice; the same seed writes the same files.
package main

import (
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/stackdump/stackdump/internal/paste"
)

// source is one real dump.
type source struct {
	path string // as given, relative to the working directory
	name string // unique, for the output directory
	data []byte
}

// form is one pasted form written to disk.
type form struct {
	file      string // relative to the output directory
	source    *source
	transform paste.Transform
	glued     *source // the dump glued after source, for a glue form
	// ref is, for a composition that first destroys part of the dump and
	// then only frames it (a cut, then fenced), the file of the first step's
	// result: the form must read as that does.
	ref string
}

func main() {
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	shared := flag.String("shared", filepath.Join("..", "shared", "corpus"), "directory of the shared corpus (skipped when missing)")
	compare := flag.String("compare", "", "stackdump binary: also compare what it reads from each form and its original")
	report := flag.String("report", "", "with -compare, write the comparison here (default standard output)")
	only := flag.String("only", "", "comma-separated transformation names: write only these")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/gen/paste [-seed N] [-shared DIR] [-compare BIN [-report FILE]] [-only NAMES] OUTDIR")
		os.Exit(2)
	}
	out := flag.Arg(0)

	sources, err := readSources([]string{"testdata", *shared})
	if err != nil {
		log.Fatal(err)
	}
	keep := func(string) bool { return true }
	if *only != "" {
		names := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			names[n] = true
		}
		keep = func(name string) bool { return names[name] }
	}
	forms, err := writeForms(out, sources, keep, *seed)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d pasted forms of %d dumps written to %s", len(forms), len(sources), out)
	if *compare == "" {
		return
	}
	w := os.Stdout
	if *report != "" {
		f, err := os.Create(*report)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		w = f
	}
	if err := compareForms(w, *compare, out, sources, forms); err != nil {
		log.Fatal(err)
	}
}

// readSources returns every file under roots that holds a text dump, once
// per content, sorted by path.
func readSources(roots []string) ([]*source, error) {
	seen := map[string]bool{}
	names := map[string]int{}
	var sources []*source
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			log.Printf("skipping %s: %v", root, err)
			continue
		}
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if paste.SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if paste.DetectKind(b) == 0 || seen[string(b)] {
				return nil
			}
			seen[string(b)] = true
			name := strings.TrimSuffix(d.Name(), filepath.Ext(d.Name()))
			if n := names[name]; n > 0 {
				name = fmt.Sprintf("%s-%d", name, n+1)
			}
			names[name]++
			sources = append(sources, &source{path: path, name: name, data: b})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading dumps under %s: %w", root, err)
		}
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].path < sources[j].path })
	return sources, nil
}

// glues returns, for a dump, the dumps that glue forms put after it, by
// glue name (paste.GlueBases).
func glues(s *source, all []*source) map[string]*source {
	g := map[string]*source{}
	for name, base := range paste.GlueBases(s.data) {
		for _, o := range all {
			if filepath.Base(o.path) == base && o != s {
				g[name] = o
				break
			}
		}
	}
	return g
}

// writeForms writes every form of every source whose transformation keep
// accepts, and the manifest.
func writeForms(out string, sources []*source, keep func(name string) bool, seed uint64) ([]form, error) {
	var forms []form
	var manifest strings.Builder
	manifest.WriteString("file\tsource\ttransformation\tloss\n")
	for _, s := range sources {
		ts := append(paste.All(), paste.Combos()...)
		glued := map[string]*source{}
		g := glues(s, sources)
		for _, name := range slices.Sorted(maps.Keys(g)) { // the manifest in one order
			o := g[name]
			t := paste.GlueWith(name, o.data)
			ts = append(ts, t)
			glued[t.Name] = o
		}
		for _, t := range ts {
			if !keep(t.Name) || !t.Applies(s.data) {
				continue
			}
			f := form{file: filepath.Join(s.name, t.Name+".txt"), source: s, transform: t, glued: glued[t.Name]}
			path := filepath.Join(out, f.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, t.Apply(s.data, seed), 0o644); err != nil {
				return nil, err
			}
			if t.FramesALoss() {
				f.ref = filepath.Join(s.name, "ref", t.Name+".txt")
				if err := os.MkdirAll(filepath.Join(out, s.name, "ref"), 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(out, f.ref), t.ApplyFirst(s.data, seed, 1), 0o644); err != nil {
					return nil, err
				}
			}
			fmt.Fprintf(&manifest, "%s\t%s\t%s\t%s\n", f.file, s.path, t.Name, t.Loss)
			forms = append(forms, f)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "manifest.tsv"), []byte(manifest.String()), 0o644); err != nil {
		return nil, err
	}
	return forms, nil
}
