package report

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// term is one word of a filter, as the page reads it.
type term struct {
	field, value string // field "func" or "state"
	neg          bool
}

// wantVisible counts the groups of a dump that every term matches: the
// page's filter semantics for func: and state: words (substring, any case).
func wantVisible(doc *pageDoc, in inputDoc, terms []term) (groups int, routines int64) {
	for _, g := range in.Groups {
		ok := true
		for _, tm := range terms {
			var hay []string
			switch tm.field {
			case "func":
				for _, f := range g.Stack {
					hay = append(hay, doc.Strings[doc.Frames[f][0]])
				}
			case "state":
				for _, s := range g.States {
					hay = append(hay, s.State)
				}
			}
			hit := strings.Contains(strings.ToLower(strings.Join(hay, "\n")), strings.ToLower(tm.value))
			if hit == tm.neg {
				ok = false
			}
		}
		if ok {
			groups++
			routines += g.Count
		}
	}
	return groups, routines
}

var groupItem = regexp.MustCompile(`<details class="group[^"]*" id="g(\d+)"`)

func TestBrowserShowsDump(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	inputs := readCorpus(t, "corpus/jvm/jthreaddump_complex_extended_jdk25.txt")
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	shot := artifact(t, "report-jvm.png")
	dom := b.load(t, page, "", shot)
	keepShot(t, shot)

	in := doc.Inputs[0]
	if got := countAttr(t, dom, "data-visible-groups"); got != len(in.Groups) {
		t.Errorf("page shows %d groups, want all %d", got, len(in.Groups))
	}
	if got := countAttr(t, dom, "data-visible-routines"); int64(got) != in.Total {
		t.Errorf("page counts %d threads, want %d", got, in.Total)
	}
	items := groupItem.FindAllStringSubmatch(dom, -1)
	if len(items) != len(in.Groups) {
		t.Errorf("%d groups drawn, want %d", len(items), len(in.Groups))
	}
	for i, m := range items {
		if m[1] != fmt.Sprint(i) {
			t.Errorf("group %d drawn as g%s: not largest first", i, m[1])
			break
		}
	}
	states := map[string]bool{}
	for _, g := range in.Groups {
		for _, s := range g.States {
			states[s.State] = true
		}
	}
	if n := strings.Count(dom, `class="state-row"`); n != min(len(states), 16) {
		t.Errorf("states chart has %d bars, want %d", n, len(states))
	}
	if n := strings.Count(dom, `<g data-i=`); n < len(in.Groups) {
		t.Errorf("flame graph has %d frames, want at least one per group (%d)", n, len(in.Groups))
	}
	for _, want := range []string{"jthreaddump_complex_extended_jdk25.txt", "jvm-text", ">threads<"} {
		if !strings.Contains(dom, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestBrowserFilter(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	inputs := readCorpus(t, "corpus/jvm/jthreaddump_complex_extended_jdk25.txt")
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	in := doc.Inputs[0]
	for _, c := range []struct {
		filter string
		terms  []term
	}{
		{`func:java.util.concurrent`, []term{{field: "func", value: "java.util.concurrent"}}},
		{`state:"timed_waiting (parking)" -func:ThreadPoolExecutor`, []term{
			{field: "state", value: "TIMED_WAITING (parking)"}, {field: "func", value: "ThreadPoolExecutor", neg: true}}},
		{`func:no.such.function`, []term{{field: "func", value: "no.such.function"}}},
	} {
		t.Run(c.filter, func(t *testing.T) {
			t.Parallel()
			wantGroups, wantRoutines := wantVisible(doc, in, c.terms)
			if c.filter != "func:no.such.function" && (wantGroups == 0 || wantGroups == len(in.Groups)) {
				t.Fatalf("filter %q selects %d of %d groups: it tests nothing", c.filter, wantGroups, len(in.Groups))
			}
			dom := b.load(t, page, "#filter="+url.QueryEscape(c.filter), "")
			if got := countAttr(t, dom, "data-visible-groups"); got != wantGroups {
				t.Errorf("page shows %d groups, want %d", got, wantGroups)
			}
			if got := countAttr(t, dom, "data-visible-routines"); int64(got) != wantRoutines {
				t.Errorf("page counts %d threads, want %d", got, wantRoutines)
			}
			if got := len(groupItem.FindAllString(dom, -1)); got != wantGroups {
				t.Errorf("%d groups drawn, want %d", got, wantGroups)
			}
			if !strings.Contains(dom, `value="`+strings.ReplaceAll(c.filter, `"`, "&quot;")+`"`) && !strings.Contains(dom, "#filter=") {
				t.Log("the filter box's value is not serialized in the DOM; counts checked above")
			}
		})
	}
}

func TestBrowserHostileText(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	d := hostileDump()
	groups := groupsOf(d)
	page := writeReport(t, []Input{{Name: hostileScript, Dump: d, Groups: groups}}, Options{Title: hostileImg})
	// Open the group whose creator carries hostile text, so that its body
	// (frames, creator, links) is drawn too.
	var key string
	for _, g := range groups {
		if g.Sample.CreatedBy != nil {
			key = g.Key
		}
	}
	shot := artifact(t, "report-hostile.png")
	dom := b.load(t, page, "#group="+key, shot)
	keepShot(t, shot)
	if v, ok := rootAttr(dom, "data-pwned"); ok {
		t.Fatalf("text from the dump ran as script: data-pwned=%q", v)
	}
	if strings.Contains(dom, "<img") || strings.Count(dom, "<script") != 3 {
		t.Error("text from the dump became elements")
	}
	for _, want := range []string{
		"main.&lt;/script&gt;&lt;script&gt;document", // a function name, as text
		"&lt;img src=x onerror=",                     // the thread name and target
		"&lt;b&gt;bold&lt;/b&gt;",                    // a state
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("page does not show %q as text", want)
		}
	}
	if !regexp.MustCompile(`<details class="group[^"]*" id="g\d+" open=""`).MatchString(dom) {
		t.Error("#group= did not open the group")
	}
}

func TestBrowserTimelineAndLinks(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	inputs := leakDumps()
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	last := doc.Inputs[2]
	workers, mainG := -1, -1
	for i, g := range last.Groups {
		switch doc.Strings[doc.Frames[g.Stack[0]][0]] {
		case "main.worker":
			workers = i
		case "sync.(*WaitGroup).Wait":
			mainG = i
		}
	}
	shot := artifact(t, "report-timeline.png")
	dom := b.load(t, page, "#dump=2&group="+last.Groups[workers].Key, shot)
	keepShot(t, shot)

	if regexp.MustCompile(`<section id="timeline"[^>]*hidden`).MatchString(dom) {
		t.Error("the timeline of three dumps is hidden")
	}
	if n := strings.Count(dom, "<polyline"); n != len(doc.Timeline.Series) {
		t.Errorf("timeline draws %d lines, want %d", n, len(doc.Timeline.Series))
	}
	if n := strings.Count(dom, `class="col`); n != 3 {
		t.Errorf("timeline has %d columns, want 3", n)
	}
	if got := countAttr(t, dom, "data-total-groups"); got != len(last.Groups) {
		t.Errorf("#dump=2 shows a dump of %d groups, want %d", got, len(last.Groups))
	}
	// The workers' group is open and links to the group of goroutine 1.
	open := regexp.MustCompile(`(?s)<details class="group[^"]*" id="g` + fmt.Sprint(workers) + `" open="">.*?</details>`).FindString(dom)
	if open == "" {
		t.Fatal("#group= did not open the workers' group")
	}
	if !strings.Contains(open, `data-group="`+fmt.Sprint(mainG)+`"`) {
		t.Errorf("the workers' group does not link to its creator's group #%d:\n%s", mainG+1, open)
	}
}

// manyGroups is a dump of n distinct stacks over a few hundred packages,
// sharing their outer frames like a real server's.
func manyGroups(n int) *stack.Dump {
	b := newDump(stack.KindGoTraceback, "big")
	for i := range n {
		pkg := fmt.Sprintf("example.com/svc/pkg%d", i%300)
		b.add(int64(i*10+1), 1+i%7, stack.Routine{
			State: []string{"chan receive", "select", "IO wait", "semacquire"}[i%4],
			Stack: b.stack(
				"runtime.gopark@/usr/local/go/src/runtime/proc.go:435",
				fmt.Sprintf("%s.handler%d@/src/%s/h.go:%d", pkg, i, pkg, 10+i%50),
				fmt.Sprintf("%s.dispatch@/src/%s/d.go:20", pkg, pkg),
				"net/http.HandlerFunc.ServeHTTP@/usr/local/go/src/net/http/server.go:2294",
				"net/http.(*conn).serve@/usr/local/go/src/net/http/server.go:2092",
			),
		})
	}
	return b.dump
}

func TestBrowserManyGroups(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	const n = 10000
	page := writeReport(t, []Input{{Dump: manyGroups(n)}}, Options{})
	t.Logf("page of %d groups: %d KiB", n, len(page)>>10)
	doc := pageData(t, page)
	shot := artifact(t, "report-10k-groups.png")
	dom := b.load(t, page, "", shot)
	keepShot(t, shot)
	if got := countAttr(t, dom, "data-visible-groups"); got != n {
		t.Errorf("page shows %d groups, want %d", got, n)
	}
	if got := len(groupItem.FindAllString(dom, -1)); got != 100 {
		t.Errorf("%d groups drawn, want the first page of 100", got)
	}
	filter := "func:handler12"
	wantGroups, _ := wantVisible(doc, doc.Inputs[0], []term{{field: "func", value: "handler12"}})
	dom = b.load(t, page, "#filter="+url.QueryEscape(filter), "")
	if got := countAttr(t, dom, "data-visible-groups"); got != wantGroups {
		t.Errorf("page shows %d groups, want %d", got, wantGroups)
	}
	if got := len(groupItem.FindAllString(dom, -1)); got != min(wantGroups, 100) {
		t.Errorf("%d groups drawn, want the first page of %d", got, min(wantGroups, 100))
	}
	if wantGroups <= 100 {
		t.Fatalf("filter %q selects %d groups, too few to test the list's paging", filter, wantGroups)
	}
	more := fmt.Sprintf(`<button id="show-more" type="button">Show %d more</button>`, min(100, wantGroups-100))
	if !strings.Contains(dom, more) {
		t.Errorf("no %s under a long list", more)
	}
}
