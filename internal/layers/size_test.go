package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxEndpointGrowth bounds what mounting dumper.Handler adds to a service
// that serves net/http/pprof, in the default build (DWARF included): issue
// 21's target, 2.0 MB. docs/PERFORMANCE.md ("What a service links") has
// what makes it up; measured on 2026-12-07: +1,992,280 bytes, 7.7 KB
// under the bound. A change that makes the dumper link more (the door,
// the JSON reader, the paste layer, a codec it does not serve, another
// form's recogniser, google/pprof/profile again) fails here.
const maxEndpointGrowth = 2.0e6

// TestEndpointLinkSize builds testdata/plain and testdata/endpoint and
// compares their sizes.
func TestEndpointLinkSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	dir := t.TempDir()
	size := func(name string) int64 {
		bin := filepath.Join(dir, name)
		out, err := exec.Command("go", "build", "-o", bin, "./testdata/"+name).CombinedOutput()
		if err != nil {
			t.Fatalf("go build ./testdata/%s: %v\n%s", name, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	plain, endpoint := size("plain"), size("endpoint")
	growth := endpoint - plain
	t.Logf("plain %.2f MB, with the endpoint %.2f MB: +%.2f MB", float64(plain)/1e6, float64(endpoint)/1e6, float64(growth)/1e6)
	if growth > maxEndpointGrowth {
		t.Errorf("mounting dumper.Handler adds %.2f MB, over the %.1f MB bound", float64(growth)/1e6, maxEndpointGrowth/1e6)
	}

	// What the dumper must not link although its packages import it: the
	// paste layer, any of it (the dumper reads only what the runtime
	// wrote), generic sorts of the model's labels.
	out, err := exec.Command("go", "tool", "nm", filepath.Join(dir, "endpoint")).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, sym := range []string{"internal/unpaste.",
		"pdqsortCmpFunc[go.shape.struct { github.com/stackdump/stackdump/formats/debug1"} {
		if strings.Contains(string(out), sym) {
			t.Errorf("the endpoint links %s", sym)
		}
	}
}
