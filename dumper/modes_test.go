package dumper

import "testing"

// TestModesAreCopies checks that what Modes returns is the caller's:
// changing it does not change ParseMode.
func TestModesAreCopies(t *testing.T) {
	m := Modes()
	m[0] = "bogus"
	if got, err := ParseMode("full"); err != nil || got != ModeFull {
		t.Errorf("ParseMode(full) = %q, %v after the caller changed its slice", got, err)
	}
	if _, err := ParseMode("bogus"); err == nil {
		t.Error("ParseMode accepts a name a caller wrote into its slice")
	}
}
