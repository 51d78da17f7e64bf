package unpaste_test

import (
	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
)

// The forms of the text codecs, in the door's order (formats.textForms),
// for the package's own tests.
func init() { unpaste.AllForms = codec.Forms{gotext.Form(), debug1.Form(), jvm.Form()} }
