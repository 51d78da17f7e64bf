package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// TestLeakModeOfAgentOrJVM: a leak capture of a gops agent or a JVM is
// refused before anything is sent, as ErrNoLeakProfile, in the library's
// words (the mode, not a flag).
func TestLeakModeOfAgentOrJVM(t *testing.T) {
	for raw, want := range map[string]string{
		"gops://127.0.0.1:1": "mode leak: a gops agent serves no goroutine leak profile (nothing was sent to 127.0.0.1:1)",
		"jvm:1":              "mode leak: a JVM thread dump marks no thread leaked (nothing was sent to process 1)",
	} {
		tg, err := ParseTarget(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), tg, Options{Mode: ModeLeak})
		if !errors.Is(err, ErrNoLeakProfile) || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want ErrNoLeakProfile saying %q", raw, err, want)
		}
	}
}
