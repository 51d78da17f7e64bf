package formats

import (
	"bytes"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestTextWriterChoosesFormPerDump(t *testing.T) {
	for _, c := range []struct {
		kind stack.Kind
		form string
	}{
		{stack.KindGoTraceback, "traceback"}, {stack.KindJSON, "traceback"}, {stack.KindGoTrace, "traceback"}, {"", "traceback"},
		{stack.KindGoDebug1, "debug1"}, {stack.KindGoPprof, "debug1"},
		{stack.KindJVMText, "jvm"}, {stack.KindJVMJSON, "jvm"},
	} {
		e := newTextDispatch(&bytes.Buffer{})
		_ = e.BeginDump(&stack.Dump{Source: stack.Source{Kind: c.kind}})
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
