package report

import (
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// Text a dump may carry that must never become markup or script.
const (
	hostileScript = `</script><script>document.documentElement.setAttribute("data-pwned","script")</script>`
	hostileImg    = `<img src=x onerror="document.documentElement.setAttribute('data-pwned','img')">`
	hostileSep    = "a\u2028b\u2029c<!--d"
)

// hostileDump has hostile text in every field the page shows: function
// names, files, states, labels, thread names, the preamble, warnings and
// the source.
func hostileDump() *stack.Dump {
	b := newDump(stack.KindGoTraceback, hostileImg)
	b.dump.Source.Runtime = hostileScript
	b.dump.Preamble = []string{"panic: " + hostileScript, hostileSep}
	b.dump.Warnings = []*stack.ParseError{{Line: 3, Msg: hostileImg, Text: hostileScript}}
	labels := b.tab.Labels(stack.Labels{{Key: hostileScript, Value: hostileSep}})
	b.add(1, 2, stack.Routine{
		State:  hostileScript,
		Name:   hostileImg,
		Labels: labels,
		Stack:  b.stack("main."+hostileScript+"@/src/"+hostileImg+".go:1", "main.main@/src/main.go:2"),
	})
	b.add(5, 1, stack.Routine{
		State:     "<b>bold</b>",
		Stack:     b.stack("main.(*T)." + hostileImg + "@/src/a.go:3"),
		CreatedBy: b.frame(hostileSep + "@/src/" + hostileScript + ".go:4"),
		ParentID:  1,
	})
	return b.dump
}

func TestHostileTextIsEscaped(t *testing.T) {
	d := hostileDump()
	page := writeReport(t, []Input{{Name: hostileScript, Dump: d}}, Options{Title: "<script>alert(1)</script>"})

	// The page's own elements only: the guard, the data and the app.
	if n := strings.Count(page, "<script"); n != 3 {
		t.Errorf("page has %d <script elements, want 3", n)
	}
	head, rest, _ := strings.Cut(page, dataOpen)
	blob, tail, _ := strings.Cut(rest, "</script>")
	for _, bad := range []string{"<img", "<b>", "data-pwned", "<script>alert", "\u2028", "\u2029"} {
		if strings.Contains(head+tail, bad) || strings.Contains(blob, bad) && bad != "data-pwned" {
			t.Errorf("page contains %q raw", bad)
		}
	}
	if !strings.Contains(page, "<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>") {
		t.Error("title is not escaped as text")
	}
	// The data element holds no '<' at all, so nothing can end it early.
	if strings.ContainsAny(blob, "<>&") {
		t.Error("data element holds a raw <, > or &")
	}
	if !strings.HasSuffix(strings.TrimSpace(blob), "}") {
		t.Errorf("data element was cut short: ends %q", blob[max(0, len(blob)-40):])
	}

	// And the text survives: the page shows it as it was.
	doc := pageData(t, page)
	in := doc.Inputs[0]
	if in.Name != hostileScript || in.Target != hostileImg || in.Runtime != hostileScript || in.Preamble[1] != hostileSep {
		t.Errorf("source fields changed: %q %q %q %q", in.Name, in.Target, in.Runtime, in.Preamble)
	}
	if in.Warnings[0].Msg != hostileImg || in.Warnings[0].Text != hostileScript {
		t.Errorf("warning changed: %+v", in.Warnings[0])
	}
	g := in.Groups[0]
	if fn := doc.Strings[doc.Frames[g.Stack[0]][0]]; fn != "main."+hostileScript {
		t.Errorf("function %q", fn)
	}
	if g.States[0].State != hostileScript || g.Name != hostileImg || g.Labels[0].Set[0] != [2]string{hostileScript, hostileSep} {
		t.Errorf("group fields changed: %+v", g)
	}
	if c := in.Groups[1].Creator; c == nil || doc.Strings[doc.Frames[*c][0]] != hostileSep {
		t.Errorf("creator changed: %v", c)
	}
}

func TestAssetsCannotEndTheirElements(t *testing.T) {
	if _, err := loadPage(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.css", "guard.js", "report.js"} {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ToLower(string(b))
		for _, bad := range []string{"</script", "</style", "<!--", "<script", "innerhtml", "outerhtml", "insertadjacenthtml", "document.write", "eval(", "fetch(", "xmlhttprequest", "http://", "https://"} {
			if bad == "http://" && strings.Count(s, bad) == strings.Count(s, "http://www.w3.org/2000/svg") {
				continue // the SVG namespace name, not a fetch
			}
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}
