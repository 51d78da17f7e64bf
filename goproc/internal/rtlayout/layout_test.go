package rtlayout

import (
	"reflect"
	"strings"
	"testing"
)

func mustLookup(t *testing.T, version string) *Layout {
	t.Helper()
	l, err := Lookup(version, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestFacts checks the table against what changed in the runtime between
// Go 1.19 and 1.27 (docs/pid.md, /work/shared/reference/go-runtime-g-layout.md).
func TestFacts(t *testing.T) {
	v := map[int]*Layout{}
	for m := 19; m <= 27; m++ {
		v[m] = mustLookup(t, "go1."+itoa(m)+".1")
	}
	// 1.19's g and gobuf are 1.20's; 1.20 added moduledata.covctrs and
	// ecovctrs before gofunc, and the sync wait reasons (1.19 parks a
	// sync.Mutex.Lock as "semacquire").
	if v[19].G != v[20].G || v[19].Module.Gofunc != 304 || v[20].Module.Gofunc != 320 {
		t.Errorf("1.19: g %+v, moduledata.gofunc at %d (1.20: %d); want 1.20's g and gofunc 16 bytes sooner", v[19].G, v[19].Module.Gofunc, v[20].Module.Gofunc)
	}
	if index(v[19].WaitReasons, "sync.Mutex.Lock") >= 0 || index(v[20].WaitReasons, "sync.Mutex.Lock") < 0 || index(v[19].WaitReasons, "timer goroutine (idle)") < 0 {
		t.Error("sync.Mutex.Lock should be a wait reason from 1.20 on, timer goroutine (idle) one in 1.19")
	}
	if v[19].MaxFrames != 100 {
		t.Errorf("1.19 prints %d frames at most; want 100", v[19].MaxFrames)
	}
	if v[20].G.ParentGoid != -1 || v[21].G.ParentGoid < 0 {
		t.Errorf("parentGoid: 1.20 at %d, 1.21 at %d; want it added in 1.21", v[20].G.ParentGoid, v[21].G.ParentGoid)
	}
	if v[22].G.SyscallBP != -1 || v[23].G.SyscallBP < 0 {
		t.Errorf("syscallbp: 1.22 at %d, 1.23 at %d; want it added in 1.23", v[22].G.SyscallBP, v[23].G.SyscallBP)
	}
	// gobuf is sp, pc, g, ctxt, ret, lr, bp until 1.24 and loses ret in 1.25.
	if d24, d25 := v[24].G.SchedBP-v[24].G.SchedSP, v[25].G.SchedBP-v[25].G.SchedSP; d24 != 48 || d25 != 40 {
		t.Errorf("gobuf.bp is %d then %d bytes after gobuf.sp in 1.24 and 1.25; want 48 and 40 (ret removed)", d24, d25)
	}
	for m := 19; m <= 27; m++ {
		if hasMap := v[m].Hmap.Buckets >= 0; hasMap != (m < 24) {
			t.Errorf("1.%d: labels as a map is %v; want a map up to 1.23, a list from 1.24", m, hasMap)
		}
	}
	for _, m := range []int{24, 25, 26} {
		renumbered := false
		for i, w := range v[m].WaitReasons {
			if j := index(v[m-1].WaitReasons, w); j >= 0 && j != i {
				renumbered = true
			}
		}
		if !renumbered {
			t.Errorf("1.%d numbers its wait reasons as 1.%d does; want them renumbered", m, m-1)
		}
	}
	if !reflect.DeepEqual(v[26].WaitReasons, v[27].WaitReasons) {
		t.Error("1.27's wait reasons differ from 1.26's")
	}
	if v[25].Status.Leaked != -1 || v[26].Status.Leaked != 10 || v[26].Status.DeadExtra != 11 {
		t.Errorf("statuses: 1.25 leaked %d, 1.26 leaked %d deadextra %d; want -1, 10, 11", v[25].Status.Leaked, v[26].Status.Leaked, v[26].Status.DeadExtra)
	}
	if got := v[20].WaitReasons[index(v[20].WaitReasons, "IO wait")]; got != "IO wait" || index(v[23].WaitReasons, "sync.WaitGroup.Wait") >= 0 || index(v[24].WaitReasons, "sync.WaitGroup.Wait") < 0 {
		t.Error("sync.WaitGroup.Wait should be a wait reason from 1.24 on")
	}
	if v[20].MaxFrames != 100 || v[21].InnerFrames != 50 || v[21].OuterFrames != 50 {
		t.Errorf("frame limits: 1.20 %d, 1.21 %d+%d; want 100 and 50+50", v[20].MaxFrames, v[21].InnerFrames, v[21].OuterFrames)
	}
}

// TestArchesAgree checks that amd64 and arm64 lay the runtime out alike:
// the table holds both because it must not assume it.
func TestArchesAgree(t *testing.T) {
	for _, l := range table {
		if l.Arch != "amd64" {
			continue
		}
		a, err := Lookup(l.Toolchain, "arm64")
		if err != nil {
			t.Fatal(err)
		}
		if l.G != a.G || l.M != a.M || l.Module != a.Module || !reflect.DeepEqual(l.WaitReasons, a.WaitReasons) {
			t.Errorf("%s: amd64 and arm64 layouts differ", l.Toolchain)
		}
	}
}

func TestLookupRefuses(t *testing.T) {
	for _, v := range []string{"go1.18.10", "go1.28", "go1.18", "devel +abc", "go2"} {
		_, err := Lookup(v, "amd64")
		if err == nil || !strings.Contains(err.Error(), v) {
			t.Errorf("Lookup(%q) = %v, want a refusal naming it", v, err)
		}
	}
	if _, err := Lookup("go1.22.0", "riscv64"); err == nil || !strings.Contains(err.Error(), "riscv64") {
		t.Errorf("Lookup on riscv64 = %v, want a refusal naming it", err)
	}
	for _, v := range []string{"go1.19.8", "go1.20", "go1.22.0", "go1.27.3", "go1.25rc1", "go1.24.1 X:nodwarf5"} {
		if l, err := Lookup(v, "arm64"); err != nil || l.Arch != "arm64" {
			t.Errorf("Lookup(%q, arm64) = %v, %v", v, l, err)
		}
	}
	if got := Supported(); got != "go1.19–go1.27 on amd64, arm64" {
		t.Errorf("Supported() = %q", got)
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }
