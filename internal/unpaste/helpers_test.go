package unpaste

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
)

// AllForms are every text codec's forms, as the door composes them. The
// codecs import this package, so its own tests cannot import them: the
// external test package sets AllForms (forms_test.go) before any test
// runs.
var AllForms codec.Forms

// sniffAll is Sniff with every text codec's forms.
func sniffAll(head []byte) *Frame { return Sniff(head, AllForms) }

// framedLines returns the lines of data read through the layer of f (nil:
// as they are, and no layer), in memory when buf is 0, else streamed
// through a bufio.Reader of buf bytes.
func framedLines(data []byte, f *Frame, buf int) (*codec.Lines, *layer) {
	in := codec.NewMemStream(data, "", 16)
	if buf > 0 {
		in = codec.NewStream(bytes.NewReader(data), "", false, buf)
	}
	l := codec.NewLines(in, 1<<16)
	var ly *layer
	if f != nil {
		l.Wrap(func(raw *codec.LineReader) codec.Layer {
			ly = newLayer(raw, f)
			return ly
		})
	}
	return l, ly
}
