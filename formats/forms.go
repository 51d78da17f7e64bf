package formats

import (
	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/internal/codec"
)

// textForms are the text codecs' forms (codec.Form), in the order they
// are asked: which of them a line belongs to sniffs an input's format
// (sniffKind), teaches the paste layer a paste's frame (internal/unpaste),
// and tells a text reader where a dump of another form starts, to hand
// the stream on to that form's reader (Reader.Next).
var textForms = codec.Forms{gotext.Form(), debug1.Form(), jvm.Form()}
