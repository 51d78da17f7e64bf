package dedupe

import "testing"

// TestListsAreCopies checks that what Levels and Changes return is the
// caller's: changing it changes neither ParseBy nor the diff reports.
func TestListsAreCopies(t *testing.T) {
	l := Levels()
	l[0] = ByFunc
	if b, err := ParseBy("exact"); err != nil || b != ByExact {
		t.Errorf("ParseBy(exact) = %v, %v after the caller changed its slice", b, err)
	}
	c := Changes()
	c[0] = ChangeShrunk
	if got := Changes(); got[0] != ChangeNew || len(got) != 4 {
		t.Errorf("Changes() = %v after the caller changed its slice", got)
	}
}
