package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// withScript returns page with one more inline script at the end of the
// body, allowed by adding its hash to the page's policy: a test's way in,
// which pages made by Write never have.
func withScript(t *testing.T, page, script string) string {
	t.Helper()
	if !strings.Contains(page, "script-src ") || !strings.Contains(page, "</body>") {
		t.Fatal("page has no script-src policy or no body end")
	}
	page = strings.Replace(page, "script-src ", "script-src "+scriptHash(script)+" ", 1)
	return strings.Replace(page, "</body>", "<script>"+script+"</script>\n</body>", 1)
}

func TestBrowserInteractions(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	d := manyGroups(250)
	d.Source.Target = "interact"
	tab := stack.NewTable()
	frame := func(fn, file string, line int) *stack.Frame {
		return tab.Frame(stack.Frame{Func: fn, File: file, Line: line})
	}
	mainStack := tab.Stack([]*stack.Frame{frame("sync.(*WaitGroup).Wait", "/usr/local/go/src/sync/waitgroup.go", 118), frame("main.main", "/app/main.go", 30)}, stack.Elision{})
	workerStack := tab.Stack([]*stack.Frame{frame("main.worker", "/app/worker.go", 12)}, stack.Elision{})
	d.Routines = append(d.Routines, &stack.Routine{ID: 1, Count: 1, State: "semacquire", Stack: mainStack})
	for id := int64(5); id < 8; id++ {
		d.Routines = append(d.Routines, &stack.Routine{ID: id, Count: 1, State: "chan receive", Stack: workerStack,
			CreatedBy: frame("main.main", "/app/main.go", 21), ParentID: 1})
	}
	d.Total += 4
	groups := groupsOf(d)
	page := writeReport(t, []Input{{Dump: d, Groups: groups}}, Options{})
	doc := pageData(t, page)
	in := doc.Inputs[0]

	var workersKey, mainKey string
	for _, g := range groups {
		switch g.Sample.Stack {
		case workerStack:
			workersKey = g.Key
		case mainStack:
			mainKey = g.Key
		}
	}
	filtered, _ := wantVisible(doc, in, []term{{field: "func", value: "handler1"}})
	stateFiltered, _ := wantVisible(doc, in, []term{{field: "state", value: "select"}})
	params, err := json.Marshal(map[string]any{
		"filter": "func:handler1", "filtered": filtered, "total": len(in.Groups),
		"stateName": "select", "stateFiltered": stateFiltered,
		"workersKey": workersKey, "mainKey": mainKey, "mainFunc": "sync.(*WaitGroup).Wait",
	})
	if err != nil {
		t.Fatal(err)
	}
	drive, err := os.ReadFile("testdata/interact.js")
	if err != nil {
		t.Fatal(err)
	}
	dom := b.load(t, withScript(t, page, "window.SELFTEST = "+string(params)+";\n"+string(drive)), "", "")
	raw, ok := rootAttr(dom, "data-selftest")
	if !ok {
		t.Fatal("the interaction script did not finish")
	}
	var results []struct {
		Name string
		OK   bool
		Got  string
	}
	if err := json.Unmarshal([]byte(raw), &results); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if len(results) < 12 {
		t.Errorf("only %d checks ran", len(results))
	}
	for _, r := range results {
		if !r.OK {
			t.Errorf("%s: failed (got %s)", r.Name, r.Got)
		}
	}
}
