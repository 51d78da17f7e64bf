//go:build !goleak

package compat

// Item 3 of issue 25: every exported name of goleak v1.3.0 (read from its
// source in the module cache, so that a name goleak adds is not missed)
// and of goleak's main branch has a leakcheck counterpart of the same
// name and signature.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
	"go.uber.org/goleak"
)

// goleakAPI pairs each exported name of goleak v1.3.0 with goleak's and
// leakcheck's: a func value, or a nil pointer to an interface type.
var goleakAPI = map[string][2]any{
	"Find":              {goleak.Find, leakcheck.Find},
	"VerifyNone":        {goleak.VerifyNone, leakcheck.VerifyNone},
	"VerifyTestMain":    {goleak.VerifyTestMain, leakcheck.VerifyTestMain},
	"IgnoreCurrent":     {goleak.IgnoreCurrent, leakcheck.IgnoreCurrent},
	"IgnoreTopFunction": {goleak.IgnoreTopFunction, leakcheck.IgnoreTopFunction},
	"IgnoreAnyFunction": {goleak.IgnoreAnyFunction, leakcheck.IgnoreAnyFunction},
	"Cleanup":           {goleak.Cleanup, leakcheck.Cleanup},
	"Option":            {(*goleak.Option)(nil), (*leakcheck.Option)(nil)},
	"TestingT":          {(*goleak.TestingT)(nil), (*leakcheck.TestingT)(nil)},
	"TestingM":          {(*goleak.TestingM)(nil), (*leakcheck.TestingM)(nil)},
}

// goleakMainAPI: names goleak's main branch added after v1.3.0 (at
// 2b7fd8a, 2025-12-10), with their signatures there.
var goleakMainAPI = map[string]struct {
	sig string
	our any
}{
	"IgnoreCreatedBy": {"func(string) goleak.Option", leakcheck.IgnoreCreatedBy},
	"RunOnFailure":    {"func() goleak.Option", leakcheck.RunOnFailure},
}

// signature is t's text with leakcheck's package name as goleak's; for an
// interface, its methods (exported ones with their types).
func signature(v any) string {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Interface {
		t = t.Elem()
		var ms []string
		for i := range t.NumMethod() {
			m := t.Method(i)
			if m.PkgPath != "" {
				ms = append(ms, m.Name+" (unexported)")
				continue
			}
			ms = append(ms, m.Name+" "+m.Type.String())
		}
		return strings.ReplaceAll("interface{"+strings.Join(ms, "; ")+"}", "leakcheck.", "goleak.")
	}
	return strings.ReplaceAll(t.String(), "leakcheck.", "goleak.")
}

// exportedNames parses the non-test files of the package in dir.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

func TestGoleakAPI(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "go.uber.org/goleak").Output()
	if err != nil {
		t.Fatalf("go list -m go.uber.org/goleak: %v", err)
	}
	dir, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if version != "v1.3.0" {
		t.Fatalf("goleak %s in go.mod, want v1.3.0", version)
	}
	names := exportedNames(t, dir)
	if len(names) == 0 {
		t.Fatalf("no exported names read from %s", dir)
	}
	for _, name := range names {
		pair, ok := goleakAPI[name]
		if !ok {
			t.Errorf("goleak %s exports %s, which this test does not pair with leakcheck's", version, name)
			continue
		}
		if g, l := signature(pair[0]), signature(pair[1]); g != l {
			t.Errorf("%s: goleak %s, leakcheck %s", name, g, l)
		}
	}
	if len(names) != len(goleakAPI) {
		t.Errorf("goleak %s exports %v; the pairs name %d", version, names, len(goleakAPI))
	}
	for name, m := range goleakMainAPI {
		if got := signature(m.our); got != m.sig {
			t.Errorf("%s: goleak main %s, leakcheck %s", name, m.sig, got)
		}
	}
	t.Logf("goleak %s exports %s; with main's %d more, each has leakcheck's counterpart", version, strings.Join(names, ", "), len(goleakMainAPI))
}
