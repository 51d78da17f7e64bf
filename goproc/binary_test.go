package goproc

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
	"github.com/stackdump/stackdump/internal/livechild"
)

func openBuild(t *testing.T, b livechild.Build) (*Binary, string) {
	t.Helper()
	path := livechild.BuildPidTarget(t, b)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	bin, err := OpenBinary(f)
	if err != nil {
		t.Fatalf("OpenBinary(%s): %v", b, err)
	}
	return bin, path
}

// TestLayoutTableMatchesDWARF compares the generated layout table with
// the DWARF of the programs the tests build with each toolchain.
func TestLayoutTableMatchesDWARF(t *testing.T) {
	for _, tc := range toolchains {
		b := livechild.Build{Toolchain: tc}
		t.Run(b.String(), func(t *testing.T) {
			bin, path := openBuild(t, b)
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := rtlayout.FromELF(f, bin.GoVersion())
			if err != nil {
				t.Fatal(err)
			}
			want := *bin.layout
			want.Toolchain = got.Toolchain
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("%s: the table's layout differs from the DWARF's:\ntable %+v\nDWARF %+v", bin.GoVersion(), want, *got)
			}
		})
	}
}

// TestFindGlobalsFromCode checks that the goroutine list found from the
// code of runtime.forEachGRace is the one the symbol table names, and
// that a stripped build finds it the same way.
func TestFindGlobalsFromCode(t *testing.T) {
	for _, tc := range toolchains {
		b := livechild.Build{Toolchain: tc}
		t.Run(b.String(), func(t *testing.T) {
			bin, _ := openBuild(t, b)
			if bin.Stripped || bin.globalsFrom != "symbol table" {
				t.Fatalf("an unstripped build: stripped %v, globals from %s", bin.Stripped, bin.globalsFrom)
			}
			syms := [2]uint64{bin.allglen, bin.allgptr}
			if err := bin.findGlobals(); err != nil {
				t.Fatal(err)
			}
			if got := [2]uint64{bin.allglen, bin.allgptr}; got != syms {
				t.Errorf("from code %#x, symbol table %#x", got, syms)
			}
			sb, _ := openBuild(t, livechild.Build{Toolchain: tc, Stripped: true})
			if !sb.Stripped || !strings.HasPrefix(sb.globalsFrom, "code of") {
				t.Errorf("stripped build: stripped %v, globals from %q", sb.Stripped, sb.globalsFrom)
			}
		})
	}
}

// TestFindGlobalsArm64 finds the goroutine list in arm64 builds (cross-
// compiled: they are read, not run).
func TestFindGlobalsArm64(t *testing.T) {
	for _, stripped := range []bool{false, true} {
		bin, _ := openBuild(t, livechild.Build{Arch: "arm64", Stripped: stripped})
		if bin.Arch != "arm64" || bin.quantum != 4 {
			t.Fatalf("arch %s quantum %d", bin.Arch, bin.quantum)
		}
		if stripped != bin.Stripped {
			t.Fatalf("stripped %v", bin.Stripped)
		}
		if !stripped {
			syms := [2]uint64{bin.allglen, bin.allgptr}
			if err := bin.findGlobals(); err != nil {
				t.Fatal(err)
			}
			if got := [2]uint64{bin.allglen, bin.allgptr}; got != syms {
				t.Errorf("arm64: from code %#x, symbol table %#x", got, syms)
			}
		}
		main := bin.tab.funcByName("main.main")
		if !main.valid() || bin.FuncName(main.entry+4) != "main.main" {
			t.Errorf("arm64: main.main not found")
		}
	}
}

// TestOpenBinaryRefuses checks the refusals: not ELF, not Go, a Go
// release outside the table (a real go1.19 build whose version string
// says go1.18).
func TestOpenBinaryRefuses(t *testing.T) {
	if _, err := OpenBinary(bytes.NewReader([]byte("#!/bin/sh\necho hi\n"))); err == nil || !strings.Contains(err.Error(), "not an ELF") {
		t.Errorf("a script: %v", err)
	}
	sh, err := os.Open("/bin/sh")
	if err == nil {
		defer sh.Close()
		if _, err := OpenBinary(sh); !errors.Is(err, ErrNotGo) {
			t.Errorf("/bin/sh: %v, want ErrNotGo", err)
		}
	}
	_, path := openBuild(t, livechild.Build{Toolchain: "go1.19.13"})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.ReplaceAll(data, []byte("go1.19.13"), []byte("go1.18.10"))
	_, err = OpenBinary(bytes.NewReader(old))
	if err == nil || !strings.Contains(err.Error(), "go1.18.10") || !strings.Contains(err.Error(), "go1.19–go1.27") {
		t.Errorf("a go1.18 binary: %v, want a refusal naming go1.18.10 and the supported releases", err)
	}
}
