package formats

import (
	"bytes"
	"testing"
)

func TestTextWriterChoosesFormPerDump(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		form string
	}{
		{KindGoTraceback, "traceback"}, {KindJSON, "traceback"}, {KindGoTrace, "traceback"}, {"", "traceback"},
		{KindGoDebug1, "debug1"}, {KindGoPprof, "debug1"},
		{KindJVMText, "jvm"}, {KindJVMJSON, "jvm"},
	} {
		e := newTextDispatch(&bytes.Buffer{})
		_ = e.BeginDump(&Dump{Source: Source{Kind: c.kind}})
		form := "traceback"
		switch {
		case e.cur == e.goText:
		case e.cur == e.debug1:
			form = "debug1"
		case e.cur == e.jvm:
			form = "jvm"
		}
		if form != c.form {
			t.Errorf("kind %q written as %s, want %s", c.kind, form, c.form)
		}
	}
}
