package output_test

import (
	"testing"

	"github.com/stackdump/stackdump/formats/output"
)

// TestFormatListsAreCopies checks that what Formats and GroupedFormats
// return is the caller's: changing it changes neither CanGroup nor
// ParseFormat (an exported slice variable could be changed by any caller).
func TestFormatListsAreCopies(t *testing.T) {
	g := output.GroupedFormats()
	g[0] = output.Pprof
	f := output.Formats()
	f[0] = "bogus"
	if !output.CanGroup(output.Text) || output.CanGroup(output.Pprof) {
		t.Errorf("CanGroup changed with the caller's slice: text %v, pprof %v", output.CanGroup(output.Text), output.CanGroup(output.Pprof))
	}
	if got, err := output.ParseFormat("text"); err != nil || got != output.Text {
		t.Errorf("ParseFormat(text) = %q, %v after the caller changed its slice", got, err)
	}
	if _, err := output.ParseFormat("bogus"); err == nil {
		t.Error("ParseFormat accepts a name a caller wrote into its slice")
	}
}
