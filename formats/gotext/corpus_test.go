package gotext

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// Independent counts of what should become a routine, by regexp over the
// whole file.
var (
	reGoCountHeader      = regexp.MustCompile(`(?m)^[ \t]*goroutine \d+ (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[`)
	reGoCountRace        = regexp.MustCompile(`(?m)^(?:Previous )?(?:[Aa]tomic )?(?:Read|Write|read|write)(?: at 0x[0-9a-f]+)? by (?:main goroutine|goroutine \d+)[^\n]*:\r?$`)
	reGoCountRaceMade    = regexp.MustCompile(`(?m)^Goroutine \d+ \(\w+\) created at:\r?$`)
	reGoCountSysStack    = regexp.MustCompile(`(?m)^runtime stack:\r?$`)
	goHeaderlessRoutines = map[string]int{
		// SIGABRT: abort / PC= then the signalled thread's frames with
		// no goroutine header: one routine with ID 0.
		"gotfmt_sigabrt.txt": 1,
	}
)

func readGoText(t testing.TB, data []byte) []*stack.Dump {
	t.Helper()
	dumps, err := readAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return dumps
}

// TestGoTextCorpusCounts reads every real dump and checks that each
// goroutine header became exactly one routine, and that race access
// blocks, race creator blocks and `runtime stack:` sections became none:
// they are kept in Dump.Races and Dump.SystemStack, each exactly once.
func TestGoTextCorpusCounts(t *testing.T) {
	for _, path := range dumptest.GoTextFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := len(reGoCountHeader.FindAll(data, -1)) + goHeaderlessRoutines[name]
			wantAccesses, wantMade := len(reGoCountRace.FindAll(data, -1)), len(reGoCountRaceMade.FindAll(data, -1))
			wantSys := len(reGoCountSysStack.FindAll(data, -1))
			dumps := readGoText(t, data)
			got, total := 0, int64(0)
			accesses, made, sys := 0, 0, 0
			for _, d := range dumps {
				got += len(d.Routines)
				for _, rc := range d.Races {
					accesses += len(rc.Accesses)
					made += len(rc.Creators)
				}
				if d.SystemStack != nil {
					sys++
				}
				total += d.Total
				var sum int64
				for _, r := range d.Routines {
					sum += r.Count
					if r.Stack == nil {
						t.Errorf("routine %d (line %d) has a nil Stack", r.ID, r.Line)
					}
					if r.Line <= 0 {
						t.Errorf("routine %d has no line", r.ID)
					}
				}
				if sum != d.Total {
					t.Errorf("Total = %d, sum of counts = %d", d.Total, sum)
				}
				for _, w := range d.Warnings {
					t.Logf("warning: %v", w)
				}
			}
			if got != want {
				t.Errorf("%d routines, want %d", got, want)
			}
			if accesses != wantAccesses || made != wantMade || sys != wantSys {
				t.Errorf("%d race accesses, %d creators, %d system stacks; want %d, %d, %d", accesses, made, sys, wantAccesses, wantMade, wantSys)
			}
		})
	}
}

// TestGoTextMalformed checks that the hand-broken inputs give positioned
// ParseErrors and keep the partial goroutines.
func TestGoTextMalformed(t *testing.T) {
	m, _ := filepath.Glob("../../testdata/corpus/go/malformed/*.txt")
	if len(m) == 0 {
		t.Fatal("no malformed inputs")
	}
	for _, path := range m {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dumps := readGoText(t, data)
			headers := len(reGoCountHeader.FindAll(data, -1))
			got, warnings := 0, 0
			for _, d := range dumps {
				got += len(d.Routines)
				for _, w := range d.Warnings {
					warnings++
					if w.Line <= 0 || w.Line > bytes.Count(data, []byte("\n"))+1 {
						t.Errorf("warning without a valid line: %v", w)
					}
					t.Logf("%v", w)
				}
			}
			if warnings == 0 {
				t.Error("no ParseError for a malformed input")
			}
			if got != headers {
				t.Errorf("%d routines, want %d (partial goroutines are kept)", got, headers)
			}
		})
	}
}
