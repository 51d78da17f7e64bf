//go:build !goleak

package compat

// goleak's own suite against leakcheck. The test takes goleak v1.3.0's
// test files from the module cache (nothing of goleak is kept in this
// repository), leaves out the tests that touch goleak's internals, and
// runs the rest in a temporary module named go.uber.org/goleak whose only
// non-test file is shim.go: goleak's names bound to leakcheck's. The same
// tests are run against goleak itself for the first column of the table.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// suiteVersion is the goleak release whose tests are run.
const suiteVersion = "v1.3.0"

// shimSource is the temporary module's package goleak: goleak's API bound
// to leakcheck's, and the three unexported names goleak's public-API tests
// use, bound to public API: maxSleep (to MaxSleep), and the _osExit and
// _osStderr stubs TestVerifyTestMain sets. VerifyTestMain exits through
// Cleanup, and what it writes is taken from file descriptor 2, redirected
// into a file for the call: where goleak writes (its _osStderr is the
// os.Stderr of its package's init). The suite runs under go test -json,
// where the testing package points os.Stderr at os.Stdout before the
// tests, so a leakcheck that wrote to os.Stderr as it is when it reports
// fails goleak's TestVerifyTestMain here, as it would in any harness that
// captures a test binary's standard error. (The shim used to redirect the
// os.Stderr variable instead, which hid that.)
const shimSource = `// Package goleak is leakcheck under goleak's names, for running goleak's
// own tests against leakcheck (written by stackdump's compat tests).
package goleak

import (
	"io"
	"os"
	"syscall"
	"time"

	lc "github.com/stackdump/stackdump/leakcheck"
)

type (
	TestingT = lc.TestingT
	TestingM = lc.TestingM
	Option   = lc.Option
)

func Find(options ...Option) error                { return lc.Find(options...) }
func VerifyNone(t TestingT, options ...Option)    { lc.VerifyNone(t, options...) }
func IgnoreCurrent() Option                       { return lc.IgnoreCurrent() }
func IgnoreTopFunction(f string) Option           { return lc.IgnoreTopFunction(f) }
func IgnoreAnyFunction(f string) Option           { return lc.IgnoreAnyFunction(f) }
func IgnoreCreatedBy(f string) Option             { return lc.IgnoreCreatedBy(f) }
func RunOnFailure() Option                        { return lc.RunOnFailure() }
func Cleanup(cleanupFunc func(exitCode int)) Option { return lc.Cleanup(cleanupFunc) }

func maxSleep(d time.Duration) Option { return lc.MaxSleep(d) }

var (
	_osExit             = os.Exit
	_osStderr io.Writer = os.Stderr
)

func VerifyTestMain(m TestingM, options ...Option) {
	f, err := os.CreateTemp("", "goleak-shim-stderr")
	if err != nil {
		panic(err)
	}
	saved, err := syscall.Dup(2)
	if err == nil {
		err = syscall.Dup3(int(f.Fd()), 2, 0)
	}
	if err != nil {
		panic(err)
	}
	done := false
	flush := func() {
		if done {
			return
		}
		done = true
		syscall.Dup3(saved, 2, 0)
		syscall.Close(saved)
		b, _ := os.ReadFile(f.Name())
		f.Close()
		os.Remove(f.Name())
		if _osStderr != nil {
			_osStderr.Write(b)
		}
	}
	defer flush()
	exit := lc.Cleanup(func(code int) { flush(); _osExit(code) })
	lc.VerifyTestMain(m, append([]Option{exit}, options...)...)
}
`

// shimProvides are goleak's unexported names that shimSource binds.
var shimProvides = []string{"maxSleep", "_osExit", "_osStderr"}

// testDecl is one top-level declaration of goleak's test files.
type testDecl struct {
	file       string
	names      []string // what it declares
	start, end int      // byte range in the file, doc comment included
	internals  []string // goleak internals it uses
	uses       []string // other test declarations it uses
	testFunc   bool     // a Test function
}

func TestGoleakSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs goleak's test suite twice")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the shim redirects file descriptor 2 with dup3: Linux only")
	}
	dir := goleakDir(t)
	root := stackdumpRoot(t)
	internals, internalPkgs := goleakInternals(t, dir)
	files, decls := readTestFiles(t, dir, internals, internalPkgs)
	dropped := dropInternal(decls)

	// The baseline: goleak's tests against goleak, in a copy of its module.
	base := t.TempDir()
	if err := os.CopyFS(base, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	withGoleak := goTestJSON(t, base, ".")

	// The shim module.
	shim := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = append(setGoVersion(gomod), fmt.Sprintf("\nrequire github.com/stackdump/stackdump v0.0.0-00010101000000-000000000000\n\nreplace github.com/stackdump/stackdump => %s\n", root)...)
	gosum := concatFiles(t, filepath.Join(dir, "go.sum"), filepath.Join(root, "go.sum"))
	writeFile(t, filepath.Join(shim, "go.mod"), gomod)
	writeFile(t, filepath.Join(shim, "go.sum"), gosum)
	writeFile(t, filepath.Join(shim, "shim.go"), []byte(shimSource))
	for name, src := range files {
		writeFile(t, filepath.Join(shim, name), pruneFile(t, name, src, decls, dropped))
	}
	withLeakcheck := goTestJSON(t, shim, ".")

	// The table, and the verdict: every test left in passes on leakcheck.
	var tests []string
	for name := range withGoleak {
		tests = append(tests, name)
	}
	sort.Strings(tests)
	var table strings.Builder
	fmt.Fprintf(&table, "goleak %s's tests (%s), against goleak and against leakcheck through the shim:\n", suiteVersion, dir)
	fmt.Fprintf(&table, "%-60s %-8s %s\n", "test", "goleak", "leakcheck")
	passed, ran := 0, 0
	for _, name := range tests {
		top, _, _ := strings.Cut(name, "/")
		ours, ok := withLeakcheck[name]
		switch {
		case ok:
			ran++
			if ours == "pass" {
				passed++
			} else {
				t.Errorf("goleak's %s %s on leakcheck (it does not touch goleak's internals)", name, ours)
			}
		case dropped[top] != "":
			ours = "not run: " + dropped[top]
		default:
			ours = "missing"
			t.Errorf("goleak's %s was not run against leakcheck", name)
		}
		fmt.Fprintf(&table, "%-60s %-8s %s\n", name, withGoleak[name], ours)
	}
	for name, ours := range withLeakcheck {
		if _, ok := withGoleak[name]; !ok {
			t.Errorf("%s ran on leakcheck (%s) but not on goleak", name, ours)
		}
	}
	for _, d := range decls {
		if !d.testFunc && len(d.names) > 0 && dropped[d.names[0]] != "" {
			fmt.Fprintf(&table, "left out with them: %s (%s): %s\n", strings.Join(d.names, ", "), d.file, dropped[d.names[0]])
		}
	}
	fmt.Fprintf(&table, "%d of %d tests and subtests that do not touch goleak's internals pass on leakcheck", passed, ran)
	t.Log(table.String())
	if ran == 0 {
		t.Fatal("no goleak test ran against leakcheck")
	}
}

// goleakDir is goleak's directory in the module cache.
func goleakDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", "go.uber.org/goleak@"+suiteVersion).Output()
	if err != nil {
		t.Fatalf("go mod download go.uber.org/goleak@%s: %v", suiteVersion, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download: %v %s %s", err, m.Error, out)
	}
	return m.Dir
}

// stackdumpRoot is the directory of the stackdump module this module
// replaces.
func stackdumpRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/stackdump/stackdump").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/stackdump/stackdump: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// goleakInternals returns the unexported top-level names of goleak's
// non-test files that the shim does not provide, and the import paths of
// its internal packages.
func goleakInternals(t *testing.T, dir string) (names map[string]bool, pkgs map[string]bool) {
	t.Helper()
	names, pkgs = map[string]bool{}, map[string]bool{}
	for _, f := range parseDir(t, dir, func(name string) bool { return !strings.HasSuffix(name, "_test.go") }) {
		for _, d := range f.file.Decls {
			for _, n := range declNames(d) {
				if !ast.IsExported(n) && n != "_" && !slices.Contains(shimProvides, n) {
					names[n] = true
				}
			}
		}
		for _, imp := range f.file.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, "go.uber.org/goleak/internal/") {
				pkgs[p] = true
			}
		}
	}
	return names, pkgs
}

type parsedFile struct {
	name string
	src  []byte
	fset *token.FileSet
	file *ast.File
}

func parseDir(t *testing.T, dir string, keep func(string) bool) []parsedFile {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []parsedFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || !keep(e.Name()) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, e.Name(), src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, parsedFile{e.Name(), src, fset, f})
	}
	return files
}

func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			return nil // a method goes with its type
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// readTestFiles reads goleak's test files of the top directory and their
// declarations, with what each uses. A method counts as a use by its
// receiver's type, so that a type is dropped with a method that touches
// internals.
func readTestFiles(t *testing.T, dir string, internals, internalPkgs map[string]bool) (map[string][]byte, []*testDecl) {
	t.Helper()
	files := map[string][]byte{}
	var decls []*testDecl
	declared := map[string]bool{}
	parsed := parseDir(t, dir, func(name string) bool { return strings.HasSuffix(name, "_test.go") })
	for _, f := range parsed {
		for _, d := range f.file.Decls {
			for _, n := range declNames(d) {
				declared[n] = true
			}
		}
	}
	for _, f := range parsed {
		files[f.name] = f.src
		internalImports := map[string]bool{}
		for _, imp := range f.file.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if internalPkgs[p] {
				name := filepath.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internalImports[name] = true
			}
		}
		for _, d := range f.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			td := &testDecl{file: f.name, names: declNames(d)}
			start := d.Pos()
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
				td.testFunc = d.Recv == nil && strings.HasPrefix(d.Name.Name, "Test")
				if d.Recv != nil && len(d.Recv.List) == 1 {
					td.names = []string{"method of " + receiverType(d.Recv.List[0].Type)}
					td.uses = append(td.uses, receiverType(d.Recv.List[0].Type))
				}
			case *ast.GenDecl:
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
			}
			td.start, td.end = f.fset.Position(start).Offset, f.fset.Position(d.End()).Offset
			ast.Inspect(d, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && internalImports[x.Name] {
						td.internals = appendOnce(td.internals, x.Name+"."+n.Sel.Name)
					}
					ast.Inspect(n.X, func(m ast.Node) bool { return visitIdent(m, td, internals, declared, f.file.Scope) })
					return false // Sel is a field or method name
				case *ast.KeyValueExpr:
					if _, ok := n.Key.(*ast.Ident); ok {
						ast.Inspect(n.Value, func(m ast.Node) bool { return visitIdent(m, td, internals, declared, f.file.Scope) })
						return false // a struct field name
					}
				}
				return visitIdent(n, td, internals, declared, f.file.Scope)
			})
			decls = append(decls, td)
		}
	}
	return files, decls
}

// visitIdent records a use of a name declared at package level elsewhere
// (Obj nil: not resolved inside the file), or in this file at top level.
func visitIdent(n ast.Node, td *testDecl, internals, declared map[string]bool, fileScope *ast.Scope) bool {
	id, ok := n.(*ast.Ident)
	if !ok {
		return true
	}
	topLevel := id.Obj == nil || fileScope.Lookup(id.Name) == id.Obj
	if !topLevel || slices.Contains(td.names, id.Name) {
		return true
	}
	switch {
	case internals[id.Name]:
		td.internals = appendOnce(td.internals, id.Name)
	case declared[id.Name]:
		td.uses = appendOnce(td.uses, id.Name)
	}
	return true
}

func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return receiverType(e.X)
	}
	return ""
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// dropInternal decides which declarations are left out: those that touch
// goleak's internals, then those that use what is left out. It returns,
// per name, why.
func dropInternal(decls []*testDecl) map[string]string {
	why := map[string]string{}
	for _, d := range decls {
		if len(d.internals) > 0 {
			for _, n := range d.names {
				why[n] = "touches goleak internals (" + strings.Join(d.internals, ", ") + ")"
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			if why[d.names[0]] != "" {
				continue
			}
			for _, u := range d.uses {
				if why[u] != "" {
					for _, n := range d.names {
						why[n] = "uses " + u + ", which " + strings.TrimPrefix(why[u], "uses ")
					}
					changed = true
					break
				}
			}
		}
	}
	return why
}

// pruneFile cuts the dropped declarations out of a test file and the
// imports nothing left uses.
func pruneFile(t *testing.T, name string, src []byte, decls []*testDecl, dropped map[string]string) []byte {
	t.Helper()
	var cuts [][2]int
	for _, d := range decls {
		if d.file == name && len(d.names) > 0 && dropped[d.names[0]] != "" {
			cuts = append(cuts, [2]int{d.start, d.end})
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i][0] > cuts[j][0] })
	out := slices.Clone(src)
	for _, c := range cuts {
		out = append(out[:c[0]], out[c[1]:]...)
	}
	// Drop the imports no longer used.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, out, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s after pruning: %v", name, err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Obj == nil {
				used[x.Name] = true
			}
		}
		return true
	})
	var importCuts [][2]int
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		n := filepath.Base(p)
		if imp.Name != nil {
			n = imp.Name.Name
		}
		if n == "_" || n == "." || used[n] {
			continue
		}
		importCuts = append(importCuts, [2]int{fset.Position(imp.Pos()).Offset, fset.Position(imp.End()).Offset})
	}
	sort.Slice(importCuts, func(i, j int) bool { return importCuts[i][0] > importCuts[j][0] })
	for _, c := range importCuts {
		out = append(out[:c[0]], out[c[1]:]...)
	}
	return out
}

// goTestJSON runs `go test -json` on pkg in module dir and returns each
// test's and subtest's result: pass, fail or skip.
func goTestJSON(t *testing.T, dir, pkg string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "test", "-json", "-count=1", pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	results := map[string]string{}
	var output strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			if ev.Test != "" {
				results[ev.Test] = ev.Action
			}
		case "output":
			output.WriteString(ev.Output)
		}
	}
	if len(results) == 0 {
		t.Fatalf("go test in %s ran no test: %v\n%s\n%s", dir, err, stderr.String(), output.String())
	}
	for name, r := range results {
		if r == "fail" {
			t.Logf("%s failed in %s; output:\n%s", name, dir, output.String())
			break
		}
	}
	return results
}

func setGoVersion(gomod []byte) []byte {
	lines := strings.Split(string(gomod), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "go ") {
			lines[i] = "go 1.26.0"
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

func concatFiles(t *testing.T, paths ...string) []byte {
	t.Helper()
	var b []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, data...)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
