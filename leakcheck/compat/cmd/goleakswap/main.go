// Command goleakswap runs real projects' goleak leak tests twice, as
// published and with their goleak import swapped for leakcheck's, then
// again with a leak injected, and prints whether each package and test
// passed and failed the same with both.
//
//	cd leakcheck/compat && go run ./cmd/goleakswap [-keep] [module@version ...]
//
// The default projects are go.uber.org/zap@v1.28.0, go.uber.org/fx@v1.24.0
// and github.com/go-co-op/gocron/v2@v2.21.2. Each is taken from the module
// cache (go mod download) into a temporary directory. The swap changes one
// line per test file that imports goleak:
//
//	"go.uber.org/goleak"  ->  goleak "github.com/stackdump/stackdump/leakcheck"
//
// and adds a replace directive for this stackdump checkout to go.mod. The
// injected leak is a test file, aa_injected_leak_test.go, in each package
// whose tests import goleak: its test, which runs before the others, leaves
// a goroutine blocked on a channel forever, so VerifyTestMain fails the
// package, and every later VerifyNone check fails its test. The exit code
// is 1 when the two checkers' leak checks disagree on any package or test
// (a test that failed without a leak report, on a loaded machine a
// timing-dependent one, is listed apart; both are run again to tell
// flaky ones).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var defaultProjects = []string{
	"go.uber.org/zap@v1.28.0",
	"go.uber.org/fx@v1.24.0",
	"github.com/go-co-op/gocron/v2@v2.21.2",
}

const (
	goleakImport    = `"go.uber.org/goleak"`
	leakcheckImport = `goleak "github.com/stackdump/stackdump/leakcheck"`
	injectedFile    = "aa_injected_leak_test.go"
)

func main() {
	keep := flag.Bool("keep", false, "keep the temporary directory")
	flag.Parse()
	projects := flag.Args()
	if len(projects) == 0 {
		projects = defaultProjects
	}
	root, err := stackdumpRoot()
	if err != nil {
		fatal(err)
	}
	work, err := os.MkdirTemp("", "goleakswap")
	if err != nil {
		fatal(err)
	}
	if *keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	disagree := false
	fmt.Println("| project | packages with goleak | run | goleak | leakcheck | leak verdicts that differ | other differences |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, p := range projects {
		rows, err := runProject(work, root, p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p, err)
			disagree = true
			continue
		}
		for _, r := range rows {
			fmt.Println(r.markdown())
			if leak, _ := r.compare(); len(leak) > 0 {
				disagree = true
			}
		}
	}
	if disagree {
		os.Exit(1)
	}
}

// row is one project's run, clean or with the leak, on both checkers.
type row struct {
	project, run string
	pkgs         []string
	goleak, ours result
	// flaky are the packages and tests whose result changed between two
	// runs on the same checker (run again when the checkers differed):
	// timing-dependent tests, not the leak check.
	flaky map[string]bool
}

// result is one `go test -json` run.
type result struct {
	pkgs  map[string]string // package -> pass/fail
	tests map[string]string // package.Test -> pass/fail/skip
	// fired: the packages whose output has VerifyTestMain's line, and the
	// tests whose output has "found unexpected goroutines".
	fired    map[string]bool
	duration time.Duration
}

// compare returns the keys whose leak-check verdicts differ, and those
// whose results differ for another reason (a test that failed with no
// leak report on either checker: timing-dependent tests on a loaded
// machine). A package whose VerifyTestMain ran on one checker only because
// a test failed on the other is of the second kind.
func (r row) compare() (leak, other []string) {
	keys := map[string]bool{}
	for _, m := range []map[string]string{r.goleak.pkgs, r.ours.pkgs, r.goleak.tests, r.ours.tests} {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		if r.flaky[k] {
			continue
		}
		ga, oa := r.goleak.action(k), r.ours.action(k)
		gf, of := r.goleak.fired[k], r.ours.fired[k]
		_, isPkg := r.goleak.pkgs[k]
		switch {
		case gf != of && isPkg && r.goleak.testFailedIn(k) != r.ours.testFailedIn(k):
			other = append(other, fmt.Sprintf("%s: goleak %s, leakcheck %s (a test failed on one, so VerifyTestMain did not look)", k, ga, oa))
		case gf != of:
			leak = append(leak, fmt.Sprintf("%s: goleak %s%s, leakcheck %s%s", k, ga, firedText(gf), oa, firedText(of)))
		case ga != oa:
			other = append(other, fmt.Sprintf("%s: goleak %s, leakcheck %s", k, ga, oa))
		}
	}
	sort.Strings(leak)
	sort.Strings(other)
	return leak, other
}

func firedText(f bool) string {
	if f {
		return " (leak reported)"
	}
	return ""
}

func (r result) action(k string) string {
	if a, ok := r.pkgs[k]; ok {
		return a
	}
	return or(r.tests[k], "absent")
}

// testFailedIn reports whether a test of package pkg failed without a
// leak report.
func (r result) testFailedIn(pkg string) bool {
	for k, a := range r.tests {
		if a == "fail" && !r.fired[k] && strings.HasPrefix(k, pkg+".") {
			return true
		}
	}
	return false
}

func (r row) markdown() string {
	leak, other := r.compare()
	cell := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, "; ")
	}
	o := cell(other)
	if len(r.flaky) > 0 {
		var f []string
		for name := range r.flaky {
			f = append(f, name)
		}
		sort.Strings(f)
		o += "; flaky (changed between two runs on the same checker): " + strings.Join(f, ", ")
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s |", r.project, len(r.pkgs), r.run, r.goleak.summary(), r.ours.summary(), cell(leak), o)
}

func (r result) summary() string {
	var pass, fail, tp, tf, main, tests int
	for k, a := range r.pkgs {
		if a == "pass" {
			pass++
		} else {
			fail++
		}
		if r.fired[k] {
			main++
		}
	}
	for k, a := range r.tests {
		switch a {
		case "pass":
			tp++
		case "fail":
			tf++
		}
		if r.fired[k] && !strings.Contains(k[strings.LastIndex(k, ".")+1:], "/") {
			tests++
		}
	}
	return fmt.Sprintf("packages %d ok, %d FAIL (VerifyTestMain reported %d); tests %d ok, %d FAIL (VerifyNone reported %d) in %.0fs",
		pass, fail, main, tp, tf, tests, r.duration.Seconds())
}

func runProject(work, root, modVersion string) ([]row, error) {
	dir, err := download(modVersion)
	if err != nil {
		return nil, err
	}
	// The copies' directories are named as the module's last element
	// (without a /vN): zap's and fx's tests match the caller's directory
	// ("[a-z0-9_-]+/config_test.go", ".*fx/app_test.go").
	mod, _, _ := strings.Cut(modVersion, "@")
	name := path.Base(mod)
	if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = path.Base(path.Dir(mod))
	}
	orig, swapped := filepath.Join(work, "goleak", name), filepath.Join(work, "leakcheck", name)
	for _, d := range []string{orig, swapped} {
		if err := copyTree(dir, d); err != nil {
			return nil, err
		}
	}
	pkgs, err := goleakPackages(orig)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no test file imports %s", goleakImport)
	}
	if err := swap(swapped, root); err != nil {
		return nil, err
	}
	var rows []row
	for _, run := range []string{"as published", "leak injected"} {
		if run == "leak injected" {
			for _, d := range []string{orig, swapped} {
				if err := inject(d, pkgs); err != nil {
					return nil, err
				}
			}
		}
		r := row{project: modVersion, run: run, pkgs: dirs(pkgs)}
		if r.goleak, err = goTest(orig, r.pkgs); err != nil {
			return nil, err
		}
		if r.ours, err = goTest(swapped, r.pkgs); err != nil {
			return nil, err
		}
		if leak, other := r.compare(); len(leak)+len(other) > 0 {
			// Once more on each, to tell timing-dependent tests apart.
			g2, err := goTest(orig, r.pkgs)
			if err != nil {
				return nil, err
			}
			o2, err := goTest(swapped, r.pkgs)
			if err != nil {
				return nil, err
			}
			r.flaky = map[string]bool{}
			for _, pair := range [][2]result{{r.goleak, g2}, {r.ours, o2}} {
				for _, m := range [][2]map[string]string{{pair[0].pkgs, pair[1].pkgs}, {pair[0].tests, pair[1].tests}} {
					for name, a := range m[0] {
						if m[1][name] != a {
							r.flaky[name] = true
						}
					}
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// goleakPackages maps each package directory (relative, "./x") whose test
// files import goleak to the package clause of one of those files.
func goleakPackages(dir string) (map[string]string, error) {
	pkgs := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || exists(filepath.Join(path, "go.mod"))) {
			return filepath.SkipDir // another module, or not a package
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == goleakImport {
				rel, _ := filepath.Rel(dir, filepath.Dir(path))
				pkgs["./"+filepath.ToSlash(rel)] = f.Name.Name
			}
		}
		return nil
	})
	return pkgs, err
}

func dirs(pkgs map[string]string) []string {
	var ds []string
	for d := range pkgs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return ds
}

// swap changes the goleak import of every test file to leakcheck's, named
// goleak, and points go.mod at this stackdump checkout.
func swap(dir, root string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte(goleakImport)) {
			return nil
		}
		return os.WriteFile(path, bytes.ReplaceAll(src, []byte(goleakImport), []byte(leakcheckImport)), 0o644)
	})
	if err != nil {
		return err
	}
	if err := run(dir, "go", "mod", "edit",
		"-require=github.com/stackdump/stackdump@v0.0.0-00010101000000-000000000000",
		"-replace=github.com/stackdump/stackdump="+root); err != nil {
		return err
	}
	return run(dir, "go", "mod", "tidy")
}

// inject adds the leaking test to each package.
func inject(dir string, pkgs map[string]string) error {
	for d, pkg := range pkgs {
		src := fmt.Sprintf(`package %s

import "testing"

// injectedLeakRelease is never closed: the goroutine below stays blocked.
var injectedLeakRelease = make(chan struct{})

// TestAAInjectedLeak runs before the package's other tests and leaves a
// goroutine behind (injected by stackdump's goleakswap).
func TestAAInjectedLeak(t *testing.T) {
	go func() { <-injectedLeakRelease }()
}
`, pkg)
		if err := os.WriteFile(filepath.Join(dir, d, injectedFile), []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goTest runs the packages' tests with -json.
func goTest(dir string, pkgs []string) (result, error) {
	start := time.Now()
	args := append([]string{"test", "-json", "-count=1", "-timeout=8m"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "TEST_ENV=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output() // failing tests exit 1; the events say which
	r := result{pkgs: map[string]string{}, tests: map[string]string{}, fired: map[string]bool{}, duration: time.Since(start)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			if ev.Test == "" {
				r.pkgs[ev.Package] = ev.Action
			} else {
				r.tests[ev.Package+"."+ev.Test] = ev.Action
			}
		case "output":
			switch {
			case ev.Test == "" && strings.Contains(ev.Output, "goleak: Errors on "):
				r.fired[ev.Package] = true
			case ev.Test != "" && strings.Contains(ev.Output, "found unexpected goroutines"):
				r.fired[ev.Package+"."+ev.Test] = true
			}
		}
	}
	if len(r.pkgs) == 0 {
		return r, fmt.Errorf("go test in %s: no result\n%s", dir, stderr.String())
	}
	return r, nil
}

func download(modVersion string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %v %s", modVersion, err, jerr, m.Error)
	}
	return m.Dir, nil
}

func stackdumpRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/stackdump/stackdump").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/stackdump/stackdump (run from leakcheck/compat): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyTree copies the module cache's read-only tree into a writable one.
func copyTree(src, dst string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	return filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	})
}

func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "goleakswap:", err)
	os.Exit(2)
}
