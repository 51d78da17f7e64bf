package formats

import "testing"

// TestFormatListsAreCopies checks that what Formats and GroupedFormats
// return is the caller's: changing it changes neither CanGroup nor
// ParseFormat (an exported slice variable could be changed by any caller).
func TestFormatListsAreCopies(t *testing.T) {
	g := GroupedFormats()
	g[0] = FormatPprof
	f := Formats()
	f[0] = "bogus"
	if !CanGroup(FormatText) || CanGroup(FormatPprof) {
		t.Errorf("CanGroup changed with the caller's slice: text %v, pprof %v", CanGroup(FormatText), CanGroup(FormatPprof))
	}
	if got, err := ParseFormat("text"); err != nil || got != FormatText {
		t.Errorf("ParseFormat(text) = %q, %v after the caller changed its slice", got, err)
	}
	if _, err := ParseFormat("bogus"); err == nil {
		t.Error("ParseFormat accepts a name a caller wrote into its slice")
	}
}
