package remote

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// TestParsePIDTarget: pid:PID is a local Go process read from its memory;
// a pid that is not a positive number is refused with what to give.
func TestParsePIDTarget(t *testing.T) {
	tg, err := ParseTarget("pid:8219", "")
	if err != nil || tg.Kind != TargetPID || tg.PID != 8219 || tg.String() != "pid:8219" {
		t.Fatalf("pid:8219: %+v, %v", tg, err)
	}
	for _, bad := range []string{"pid:", "pid:0", "pid:-3", "pid:x", "pid:12a"} {
		if _, err := ParseTarget(bad, ""); err == nil || !strings.Contains(err.Error(), "want pid:PID with a positive process id") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// One dump, not a stream; and read in full mode only.
	if _, err := Open(context.Background(), tg, Options{}); err == nil || !strings.Contains(err.Error(), "OpenDocument") {
		t.Errorf("Open(pid:): %v", err)
	}
	if _, err := OpenDocument(context.Background(), tg, Options{Mode: ModeTrace}, formats.ReadOptions{}); !errors.Is(err, ErrModeNotServed) || !strings.HasPrefix(err.Error(), "mode trace: ") || !strings.Contains(err.Error(), "(mode full)") {
		t.Errorf("OpenDocument(pid:, trace): %v", err)
	}
}
