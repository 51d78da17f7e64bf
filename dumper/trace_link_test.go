package dumper

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTraceModeLinksNoTraceParser: trace mode decodes its own trace with
// internal/tracesnap, so a service mounting the endpoint does not link
// golang.org/x/exp/trace (the reader of every trace version, and a large
// part of what the dumper used to add to a binary).
func TestTraceModeLinksNoTraceParser(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/stackdump/stackdump/dumper").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "golang.org/x/exp/trace") || p == "github.com/stackdump/stackdump/formats/exectrace" {
			t.Errorf("dumper links %s", p)
		}
	}
}
