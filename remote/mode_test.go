package remote

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stackdump/stackdump/dumper"
)

// TestOneModeOneLeakError: the capture mode parses as dumper's does, in
// any case, with ModeCounts beside; and remote's ErrNoLeakProfile is
// dumper's, so errors.Is matches an error of either package by either
// name.
func TestOneModeOneLeakError(t *testing.T) {
	for _, s := range []string{"", "full", "FULL", "Grouped", "trace", "leak", "debug1", "DEBUG1"} {
		m, err := ParseMode(s)
		dm, derr := dumper.ParseMode(s)
		switch {
		case err != nil:
			t.Errorf("ParseMode(%q): %v", s, err)
		case derr == nil && m != dm:
			t.Errorf("ParseMode(%q) = %q, dumper.ParseMode = %q", s, m, dm)
		case derr != nil && m != ModeCounts:
			t.Errorf("ParseMode(%q) = %q; dumper refuses it (%v), so only ModeCounts may be", s, m, derr)
		}
	}
	if _, err := ParseMode("fast"); err == nil {
		t.Error("ParseMode(fast) accepted")
	}
	fromRemote := fmt.Errorf("%w (404)", ErrNoLeakProfile)
	fromDumper := fmt.Errorf("%w; this process runs go1.26", dumper.ErrNoLeakProfile)
	for _, err := range []error{fromRemote, fromDumper, noLeakProfileError{}} {
		if !errors.Is(err, ErrNoLeakProfile) || !errors.Is(err, dumper.ErrNoLeakProfile) {
			t.Errorf("%v: errors.Is misses remote's or dumper's ErrNoLeakProfile", err)
		}
	}
}
