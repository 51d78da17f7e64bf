package debug1

import (
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// The first-byte filter of Form's Block lets through every record line
// of the real dumps in testdata.
func TestFormBlockFirstBytes(t *testing.T) {
	dumptest.CheckFormBlocks(t, Form().Block, dumptest.BlockLine{Name: "debug=1 record", Is: isRecordLine})
}
