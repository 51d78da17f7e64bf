package layers

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/stackdump/stackdump"

// deps returns the packages pkg links that are not in the standard
// library, itself excluded, as import paths relative to the module
// ("stack", "formats/gotext") or whole for other modules.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"/"+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var ds []string
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(p, module+"/")
		if p != pkg {
			ds = append(ds, p)
		}
	}
	return ds
}

// TestLeavesLinkOnlyWhatTheyNeed: the model links the standard library
// alone; the Go traceback codec the model, the codecs' shared internals
// and the paste layer; leakcheck those and grouping. A third-party module or
// another codec among their dependencies is a defect: service owners and
// library authors audit what they link.
func TestLeavesLinkOnlyWhatTheyNeed(t *testing.T) {
	for pkg, allowed := range map[string][]string{
		"stack":          {},
		"formats/gotext": {"stack", "internal/codec", "internal/unpaste", "internal/words"},
		"leakcheck":      {"stack", "formats/gotext", "internal/codec", "internal/unpaste", "internal/words", "dedupe"},
		"dedupe":         {"stack", "internal/words"},
		"filter":         {"stack"},
	} {
		for _, d := range deps(t, pkg) {
			if !slices.Contains(allowed, d) {
				t.Errorf("%s links %s; it may link only the standard library and %v", pkg, d, allowed)
			}
		}
	}
}

// codecs are the format packages: each may import the model, the
// internals the codecs share and its own third-party parser, never
// another codec or the door.
var codecs = []string{"formats/gotext", "formats/debug1", "formats/pprof", "formats/dumpjson", "formats/jvm", "formats/exectrace", "formats/folded"}

func TestCodecsImportNoOtherCodec(t *testing.T) {
	for _, c := range codecs {
		for _, d := range deps(t, c) {
			if d == "formats" || d != c && slices.Contains(codecs, d) {
				t.Errorf("%s links %s: a codec imports no other codec and not the door", c, d)
			}
		}
	}
}

// TestDumperLinksOnlyTheGoCodecs: a service that mounts the endpoint
// links the codecs that serve a Go process's dumps, and not the door
// (which links every reader), the JVM codec, the JSON reader's gjson, or
// google/pprof/profile (with its regexp and legacy parsers:
// internal/profilepb reads and writes profile.proto instead, and
// google/pprof/profile is the tests' reference only).
func TestDumperLinksOnlyTheGoCodecs(t *testing.T) {
	for _, d := range deps(t, "dumper") {
		switch {
		case d == "formats", d == "formats/jvm", strings.HasPrefix(d, "github.com/tidwall/"),
			strings.HasPrefix(d, "github.com/google/pprof/"),
			d == "analyze", d == "report", d == "remote", strings.HasPrefix(d, "cmd/"):
			t.Errorf("dumper links %s", d)
		}
	}
}

// TestPprofCodecLinksNoGooglePprof: the pprof codec, which the endpoint
// serves, reads and writes profiles with internal/profilepb and links no
// third-party module; google/pprof/profile is for its tests.
func TestPprofCodecLinksNoGooglePprof(t *testing.T) {
	for _, pkg := range []string{"formats/pprof", "internal/profilepb"} {
		for _, d := range deps(t, pkg) {
			if strings.HasPrefix(d, "github.com/") || strings.HasPrefix(d, "golang.org/") {
				t.Errorf("%s links %s", pkg, d)
			}
		}
	}
}

// TestMemoryReaderLinksTheModelAlone: goproc, which reads goroutines from
// a process's memory or a core, links the model, its own tables and the
// ptrace stopper, nothing third-party; the stopper links the standard
// library alone (it runs with a target stopped). The door and the
// in-process capture do not link them: a core is recognised by the door
// (formats.ErrCoreFile) and read by goproc, which a program links only
// when it reads processes or cores.
func TestMemoryReaderLinksTheModelAlone(t *testing.T) {
	for pkg, allowed := range map[string][]string{
		"goproc":          {"stack", "internal/words", "internal/ptrace", "goproc/internal/rtlayout"},
		"internal/ptrace": {},
	} {
		for _, d := range deps(t, pkg) {
			if !slices.Contains(allowed, d) {
				t.Errorf("%s links %s; it may link only the standard library and %v", pkg, d, allowed)
			}
		}
	}
	for _, pkg := range append([]string{"formats", "dumper", "leakcheck"}, codecs...) {
		for _, d := range deps(t, pkg) {
			if d == "goproc" || d == "internal/ptrace" {
				t.Errorf("%s links %s", pkg, d)
			}
		}
	}
}
