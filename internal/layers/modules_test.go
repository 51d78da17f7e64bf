package layers

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The library is the root module: what services and test suites import
// (the model, the codecs, dedupe, leakcheck, the dumper). A module that
// imports it gets every requirement of its go.mod into its own module
// graph, where minimal version selection may raise the versions of what
// it uses already, and the go line of every module its packages come from
// becomes a minimum for its own. So the library's go.mod declares the
// oldest Go it supports and requires what its packages link and, for
// tests, the few references named here; the CLI (cobra, the Prometheus
// client) is the module in cmd/stackdump.

// repoRoot is the root module's directory.
const repoRoot = "../.."

// testOnly are the modules the library's go.mod requires for tests alone,
// and why: no package of the library links them.
var testOnly = map[string]string{
	"github.com/google/pprof":    "google/pprof/profile, the reference the pprof codec and internal/profilepb are checked against",
	"github.com/klauspost/pgzip": "a peer in the compression benchmarks of dumper and internal/zseg",
}

// modFile is what `go mod edit -json` prints of a go.mod.
type modFile struct {
	Go      string
	Require []requirement
}

type requirement struct {
	Path, Version string
	Indirect      bool
}

func readModFile(t *testing.T, dir, file string) modFile {
	t.Helper()
	cmd := exec.Command("go", "mod", "edit", "-json", file)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json %s: %v", file, err)
	}
	var m modFile
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m modFile) versions() map[string]string {
	v := map[string]string{}
	for _, r := range m.Require {
		v[r.Path] = r.Version
	}
	return v
}

// TestLibraryRequiresWhatItLinks: every requirement of the library's
// go.mod is a module its packages link, or a test reference of testOnly;
// none is the CLI's.
func TestLibraryRequiresWhatItLinks(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", "./...")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v", err)
	}
	linked := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		linked[p] = true
	}
	if !linked["github.com/klauspost/compress"] {
		t.Fatalf("go list -deps ./... lists no klauspost/compress, which the dumper links: %v", slices.Sorted(maps.Keys(linked)))
	}
	for _, r := range readModFile(t, repoRoot, "go.mod").Require {
		switch {
		case linked[r.Path]:
			if testOnly[r.Path] != "" {
				t.Errorf("%s is linked by the library, not only its tests: take it out of testOnly", r.Path)
			}
		case testOnly[r.Path] != "":
		default:
			t.Errorf("go.mod requires %s %s, which no package of the library links: a test-only requirement reaches every importer's module graph (move the test to a module of its own, as testdata/gen/gopsagent, or name it in testOnly with the reason)", r.Path, r.Version)
		}
	}
}

// goVersion is a go line's version ("1.24", "1.24.0", "1.26rc1") as
// numbers ordered as the go command orders them: "1.24" (the language)
// before "1.24rc1" before "1.24.0".
func goVersion(t *testing.T, v string) [4]int {
	t.Helper()
	var n [4]int // major, minor, kind (0 language, 1 rc, 2 release), patch or rc
	main, rc, isRC := strings.Cut(v, "rc")
	parts := strings.Split(main, ".")
	if len(parts) < 2 || len(parts) > 3 {
		t.Fatalf("go version %q", v)
	}
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("go version %q", v)
		}
		if i < 2 {
			n[i] = x
		} else {
			n[2], n[3] = 2, x
		}
	}
	if isRC {
		x, err := strconv.Atoi(rc)
		if err != nil {
			t.Fatalf("go version %q", v)
		}
		n[2], n[3] = 1, x
	}
	return n
}

func goLess(t *testing.T, a, b string) bool {
	x, y := goVersion(t, a), goVersion(t, b)
	return slices.Compare(x[:], y[:]) < 0
}

func TestGoVersionOrder(t *testing.T) {
	order := []string{"1.20", "1.23.0", "1.24", "1.24rc1", "1.24.0", "1.24.11", "1.25", "1.26.0"}
	for i := range order {
		for j := range order {
			if got := goLess(t, order[i], order[j]); got != (i < j) {
				t.Errorf("goLess(%s, %s) = %v", order[i], order[j], got)
			}
		}
	}
}

// TestRequirementsGoLines: no module the library's go.mod requires
// declares a newer Go than the library: its go line would become the
// importer's minimum ("go 1.24" is raised to "go 1.24.0" by a module at
// go 1.24.0).
func TestRequirementsGoLines(t *testing.T) {
	mod := readModFile(t, repoRoot, "go.mod")
	if mod.Go != "1.24" {
		t.Errorf("go.mod's go line is %s; the library supports Go 1.24 (scripts/oldest-go.sh tests it), and says so as \"go 1.24\", which an importer at go 1.24 or 1.24.0 keeps", mod.Go)
	}
	args := []string{"list", "-m", "-f", "{{.Path}} {{.GoVersion}}"}
	for _, r := range mod.Require {
		args = append(args, r.Path)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, v, _ := strings.Cut(line, " ")
		if v == "" {
			continue // no go line: go 1.16, unpruned
		}
		if goLess(t, mod.Go, v) {
			t.Errorf("go.mod requires %s, whose go line is %s: newer than the library's %s (pick an older version)", path, v, mod.Go)
		}
	}
}

// TestXExpModMatchesGoMod: internal/tracesnap/testdata/xexp.mod is the
// go.mod with a newer golang.org/x/exp, nothing else.
func TestXExpModMatchesGoMod(t *testing.T) {
	want := readModFile(t, repoRoot, "go.mod").versions()
	got := readModFile(t, repoRoot, "internal/tracesnap/testdata/xexp.mod").versions()
	const xexp = "golang.org/x/exp"
	if got[xexp] == "" || got[xexp] <= want[xexp] {
		t.Errorf("xexp.mod requires x/exp %q, want one newer than go.mod's %s", got[xexp], want[xexp])
	}
	delete(want, xexp)
	delete(got, xexp)
	if !maps.Equal(got, want) {
		t.Errorf("xexp.mod requires %v, want go.mod's %v (and a newer x/exp)", got, want)
	}
}

// importer is a module of a service or a test suite that starts to use
// the library: its go.mod is tidied before and after.
type importer struct {
	t   *testing.T
	dir string
	env []string
}

func newImporter(t *testing.T, goMod string) *importer {
	t.Helper()
	im := &importer{t: t, dir: t.TempDir()}
	im.env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	im.write("go.mod", goMod)
	return im
}

func (im *importer) write(name, text string) {
	im.t.Helper()
	if err := os.WriteFile(filepath.Join(im.dir, name), []byte(text), 0o644); err != nil {
		im.t.Fatal(err)
	}
}

// edit replaces old with new in the file name, which must hold it.
func (im *importer) edit(name, old, new string) {
	im.t.Helper()
	b, err := os.ReadFile(filepath.Join(im.dir, name))
	if err != nil {
		im.t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		im.t.Fatalf("%s has no %q", name, old)
	}
	im.write(name, strings.Replace(string(b), old, new, 1))
}

// run runs the go command in the module; unreachable reports a failure
// to download (no module proxy), for the caller to skip.
func (im *importer) run(env []string, args ...string) (out []byte, unreachable bool, err error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = im.dir
	cmd.Env = append(im.env, env...)
	out, err = cmd.CombinedOutput()
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "network is unreachable", "i/o timeout", "TLS handshake timeout", "GOPROXY=off"} {
		if err != nil && bytes.Contains(out, []byte(s)) {
			unreachable = true
		}
	}
	return out, unreachable, err
}

// tidy runs go mod tidy and returns the go.mod it leaves.
func (im *importer) tidy() modFile {
	im.t.Helper()
	out, unreachable, err := im.run(nil, "mod", "tidy")
	if unreachable {
		im.t.Skipf("go mod tidy could not download the importer's modules (no module proxy?); not checked:\n%s", out)
	}
	if err != nil {
		im.t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return readModFile(im.t, im.dir, "go.mod")
}

// useLibrary makes the importer require this checkout.
func (im *importer) useLibrary() {
	im.t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		im.t.Fatal(err)
	}
	if out, _, err := im.run(nil, "mod", "edit", "-replace", module+"="+root); err != nil {
		im.t.Fatalf("go mod edit -replace: %v\n%s", err, out)
	}
}

// checkKept compares go.mod before and after: the same go line (or want,
// when the library's minimum raises it), no toolchain line, every
// version kept, and no module added but the library and those in added.
func checkKept(t *testing.T, before, after modFile, wantGo string, added ...string) {
	t.Helper()
	if after.Go != wantGo {
		t.Errorf("go line %s after go mod tidy, want %s (before: %s)", after.Go, wantGo, before.Go)
	}
	b, a := before.versions(), after.versions()
	for path, v := range b {
		if a[path] != v {
			t.Errorf("%s %s became %q", path, v, a[path])
		}
	}
	for path, v := range a {
		if _, ok := b[path]; !ok && path != module && !slices.Contains(added, path) {
			t.Errorf("%s %s added; only %s and %v may be", path, v, module, added)
		}
	}
	if _, ok := a[module]; !ok {
		t.Errorf("the importer does not require %s after go mod tidy", module)
	}
}

func logGoMod(t *testing.T, when, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("go.mod %s:\n%s", when, b)
}

// TestImporterKeepsItsGoMod is issue 37's case: a service at go 1.24
// using client_golang v1.11.0 mounts dumper.Handler and checks its tests
// with leakcheck. After go mod tidy its go line and every version are
// the same, and it gains the library and what the endpoint links
// (klauspost/compress) alone; it builds and its leakcheck test passes,
// with this Go and with Go 1.24 when that toolchain is at hand.
func TestImporterKeepsItsGoMod(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads client_golang v1.11.0's modules through the module proxy")
	}
	im := newImporter(t, "module example.com/service\n\ngo 1.24\n\nrequire github.com/prometheus/client_golang v1.11.0\n")
	im.write("main.go", `package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var requests = prometheus.NewCounter(prometheus.CounterOpts{Name: "requests_total", Help: "Requests."})

func main() {
	prometheus.MustRegister(requests)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.Handler())
	routes(mux)
	http.ListenAndServe("127.0.0.1:8080", mux)
}

func routes(mux *http.ServeMux) {}
`)
	before := im.tidy()
	logGoMod(t, "before", im.dir)

	im.edit("main.go", "func routes(mux *http.ServeMux) {}", `func routes(mux *http.ServeMux) {
	mux.Handle("/debug/stackdump", dumper.Handler(dumper.HandlerOptions{}))
}`)
	im.edit("main.go", `"net/http"`, `"net/http"

	"github.com/stackdump/stackdump/dumper"`)
	im.write("main_test.go", `package main

import (
	"net/http"
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

func TestRoutes(t *testing.T) { routes(http.NewServeMux()) }
`)
	im.useLibrary()
	after := im.tidy()
	logGoMod(t, "after importing leakcheck and dumper", im.dir)
	checkKept(t, before, after, before.Go, "github.com/klauspost/compress")

	if out, _, err := im.run(nil, "vet", "./..."); err != nil {
		t.Fatalf("go vet in the importer: %v\n%s", err, out)
	}
	if out, _, err := im.run(nil, "test", "-count=1", "./..."); err != nil {
		t.Fatalf("go test in the importer (leakcheck.VerifyTestMain): %v\n%s", err, out)
	}
	const oldest = "go1.24.11"
	if out, _, err := im.run([]string{"GOTOOLCHAIN=" + oldest}, "version"); err != nil {
		t.Logf("%s not at hand (%s): the importer is not built with it here (scripts/oldest-go.sh tests the library with it)", oldest, bytes.TrimSpace(out))
		return
	}
	if out, _, err := im.run([]string{"GOTOOLCHAIN=" + oldest, "GOFLAGS=-mod=readonly"}, "test", "-count=1", "./..."); err != nil {
		t.Fatalf("go test in the importer with %s: %v\n%s", oldest, err, out)
	}
}

// TestGoleakSuiteAtGo120 is the other case the issue names: a test suite
// at go 1.20 that switches from goleak to leakcheck. The library needs Go
// 1.24, so the importer's go line rises to the library's minimum, 1.24,
// and nothing else changes: every version is kept, and goleak's
// replacement adds only the library.
func TestGoleakSuiteAtGo120(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads goleak through the module proxy")
	}
	im := newImporter(t, "module example.com/suite\n\ngo 1.20\n\nrequire go.uber.org/goleak v1.3.0\n")
	im.write("suite.go", "package suite\n\nfunc Work() {}\n")
	im.write("suite_test.go", `package suite

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWork(t *testing.T) { Work() }
`)
	before := im.tidy()
	logGoMod(t, "before", im.dir)
	im.edit("suite_test.go", `"go.uber.org/goleak"`, `goleak "github.com/stackdump/stackdump/leakcheck"`)
	im.useLibrary()
	after := im.tidy()
	logGoMod(t, "after switching to leakcheck", im.dir)
	// goleak is no longer imported: tidy drops it.
	before.Require = slices.DeleteFunc(before.Require, func(r requirement) bool { return r.Path == "go.uber.org/goleak" })
	checkKept(t, before, after, "1.24")
	if out, _, err := im.run(nil, "test", "-count=1", "./..."); err != nil {
		t.Fatalf("go test in the importer: %v\n%s", err, out)
	}
}
