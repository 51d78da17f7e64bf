package gotext

import (
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// The first-byte filter of Form's Block lets through every goroutine
// header and race report block line of the real dumps in testdata.
func TestFormBlockFirstBytes(t *testing.T) {
	dumptest.CheckFormBlocks(t, Form().Block,
		dumptest.BlockLine{Name: "goroutine header", Is: isHeaderStart},
		dumptest.BlockLine{Name: "race block", Is: isRaceBlockStart})
}
