package report

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

//go:noinline
func axisPark(ch chan struct{}, wg *sync.WaitGroup) { wg.Done(); <-ch }

//go:noinline
func axisLeakA(ch chan struct{}, wg *sync.WaitGroup) { axisPark(ch, wg) }

//go:noinline
func axisLeakB(ch chan struct{}, wg *sync.WaitGroup) { axisPark(ch, wg) }

// snapshots takes n runtime.Stack dumps of this process while goroutines
// pile up in two places that share their top frame (axisPark), named as
// `stackdump watch -o DIR` names its snapshots.
func snapshots(t *testing.T, n int) []Input {
	t.Helper()
	ch := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(ch) }()
	var inputs []Input
	buf := make([]byte, 8<<20)
	for i := range n {
		wg.Add(3)
		go axisLeakA(ch, &wg)
		go axisLeakA(ch, &wg)
		go axisLeakB(ch, &wg)
		wg.Wait()
		k := runtime.Stack(buf, true)
		in, err := Read(bytes.NewReader(buf[:k]), fmt.Sprintf("snapshots/goroutines-20261201T1200%02d.000Z.json", i), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, in...)
	}
	return inputs
}

var svgAttr = func(dom, name string) string {
	m := regexp.MustCompile(`<svg[^>]*class="timeline-svg"[^>]*\s` + name + `="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		return ""
	}
	return m[1]
}

// At 1280 px, the time axis of 20 snapshots shows labels that neither
// overlap nor leave the chart (as the browser lays them out); the legend
// tells apart the two groups that wait in the same function; and the page
// opens on the first dump.
func TestBrowserTimelineAxisOf20Snapshots(t *testing.T) {
	b := findBrowser(t)
	inputs := snapshots(t, 20)
	// Long names that differ from their first letter: clipped and thinned.
	long := make([]Input, len(inputs))
	for i, in := range inputs {
		in.Name = fmt.Sprintf("%c-production-host-%d-with-a-rather-long-snapshot-name.txt", 'a'+i, i)
		long[i] = in
	}
	dom := b.load(t, writeReport(t, long, Options{}), "", "")
	if svgAttr(dom, "data-axis-overlaps") != "0" || svgAttr(dom, "data-axis-outside") != "0" {
		t.Errorf("long names: axis overlaps %q, outside %q", svgAttr(dom, "data-axis-overlaps"), svgAttr(dom, "data-axis-outside"))
	}
	if !strings.Contains(dom, "…</text>") {
		t.Error("long names are not clipped")
	}

	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	shot := artifact(t, "report-axis-20.png")
	dom = b.load(t, page, "", shot)
	keepShot(t, shot)

	if got := svgAttr(dom, "data-axis-overlaps"); got != "0" {
		t.Errorf("axis labels overlapping: %q", got)
	}
	if got := svgAttr(dom, "data-axis-outside"); got != "0" {
		t.Errorf("axis labels outside the chart: %q", got)
	}
	shown := strings.Split(svgAttr(dom, "data-axis-shown"), ",")
	if len(shown) != 2 {
		t.Fatalf("no axis layout recorded in %q", svgAttr(dom, "data-axis-shown"))
	}
	for i, s := range shown {
		if n, _ := strconv.Atoi(s); n < 10 {
			t.Errorf("axis row %d shows %s labels of 20", i, s)
		}
	}
	// Names are shown without what all of them share.
	if !strings.Contains(dom, ">19<") && !strings.Contains(dom, ">19.000Z<") {
		t.Errorf("the last snapshot's label is not its distinct part")
	}
	var labels []string
	for _, s := range doc.Timeline.Series {
		labels = append(labels, s.Label)
	}
	a, bb := -1, -1
	for i, l := range labels {
		if strings.Contains(l, "axisLeakA") {
			a = i
		}
		if strings.Contains(l, "axisLeakB") {
			bb = i
		}
	}
	if a < 0 || bb < 0 || !strings.HasPrefix(labels[a], "github.com/stackdump/stackdump/report.axisPark ← ") {
		t.Errorf("legend does not tell the two axisPark groups apart by their caller: %q", labels)
	}
	count := regexp.MustCompile(`<span id="count"[^>]*>([^<]*)</span>`).FindStringSubmatch(dom)
	first, last := doc.Inputs[0].Total, doc.Inputs[len(doc.Inputs)-1].Total
	if count == nil || !strings.HasSuffix(count[1], " "+strconv.FormatInt(first, 10)+" goroutines") || first == last {
		t.Errorf("the page does not open on the first dump (%d goroutines; the last has %d): %q", first, last, count)
	}
}
