package report

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

//go:noinline
func detailWait(which int, ch chan struct{}, wg *sync.WaitGroup) {
	wg.Done()
	if which == 0 {
		<-ch
		return
	}
	<-ch // the same function, another line: another group
}

//go:noinline
func detailBurst(ch chan struct{}, wg *sync.WaitGroup) { wg.Done(); <-ch }

// detailSnapshots takes three runtime.Stack dumps of this process: two
// groups blocked in detailWait at two lines under the same caller, and a
// burst of goroutines that goes 0 → 30 → 0. Each is given the
// modification time a file written a minute apart would have.
func detailSnapshots(t *testing.T) ([]Input, []time.Time) {
	t.Helper()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer close(stop)
	for which := range 2 {
		for range 4 {
			wg.Add(1)
			go detailWait(which, stop, &wg)
		}
	}
	wg.Wait()
	t0 := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	var inputs []Input
	var times []time.Time
	buf := make([]byte, 8<<20)
	for i, burst := range []int{0, 30, 0} {
		ch := make(chan struct{})
		wg.Add(burst)
		for range burst {
			go detailBurst(ch, &wg)
		}
		wg.Wait()
		var text []byte
		for range 1000 {
			text = buf[:runtime.Stack(buf, true)]
			if len(parkedBurst.FindAll(text, -1)) == burst && bytes.Count(text, []byte(".detailBurst(")) == burst {
				break // every one of them parked, none on its way
			}
			time.Sleep(time.Millisecond)
		}
		in, err := Read(bytes.NewReader(text), fmt.Sprintf("goroutines-%d.txt", i), ReadOptions{})
		if err != nil || len(in) != 1 {
			t.Fatal(err)
		}
		in[0].ModTime = t0.Add(time.Duration(i) * time.Minute)
		times = append(times, in[0].ModTime)
		inputs = append(inputs, in[0])
		close(ch)
	}
	return inputs, times
}

// parkedBurst finds a detailBurst goroutine parked on its channel.
var parkedBurst = regexp.MustCompile(`\[chan receive\]:\n[^\n]*\.detailBurst\(`)

var (
	axisLabel   = regexp.MustCompile(`<text [^>]*class="tick axis-name"[^>]*data-full="([^"]*)"[^>]*>([^<]*)</text>`)
	legendEntry = regexp.MustCompile(`(?s)<li( data-peak="(\d+)")?>(.*?)</li>`)
	tags        = regexp.MustCompile(`<[^>]+>`)
	// legendLabel is the label an entry shows after its colour swatch.
	legendLabel = regexp.MustCompile(`<span class="swatch"[^>]*></span><(?:a|span)[^>]*>([^<]*)</`)
)

func textOf(s string) string { return html.UnescapeString(tags.ReplaceAllString(s, "")) }

// In Chromium, a timeline of dumps without capture times names its axis
// by the files' modification times (marked *, in UTC), not by fragments
// of their names; the legend labels are distinct although two groups
// wait in one function; and an entry whose line rises and falls back
// (0 → 30 → 0) shows its peak.
func TestBrowserTimelineDetails(t *testing.T) {
	b := findBrowser(t)
	inputs, times := detailSnapshots(t)
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	for i, in := range doc.Inputs {
		if in.AtFrom != "modified" || in.At != times[i].Format(timeMillis) {
			t.Errorf("input %d: at %q from %q; want the file's time %v", i, in.At, in.AtFrom, times[i])
		}
	}
	shot := artifact(t, "report-timeline-details.png")
	dom := b.load(t, page, "", shot)
	keepShot(t, shot)
	if svgAttr(dom, "data-axis") != "times" {
		t.Fatalf("the axis is named by %q", svgAttr(dom, "data-axis"))
	}
	var labels []string
	for _, m := range axisLabel.FindAllStringSubmatch(dom, -1) {
		labels = append(labels, m[1])
	}
	if want := []string{"09:30:00*", "09:31:00*", "09:32:00*"}; strings.Join(labels, " ") != strings.Join(want, " ") {
		t.Errorf("axis labels %q, want %q", labels, want)
	}
	if !strings.Contains(dom, "times in UTC; * the file's modification time") {
		t.Error("the axis does not say what its times are")
	}

	legend := regexp.MustCompile(`(?s)<ul id="timeline-legend" class="legend">(.*?)</ul>`).FindStringSubmatch(dom)
	if legend == nil {
		t.Fatal("no legend")
	}
	seen := map[string]bool{}
	waits, burst := 0, ""
	for _, m := range legendEntry.FindAllStringSubmatch(legend[1], -1) {
		text := textOf(m[3])
		shown := legendLabel.FindStringSubmatch(m[3])
		if shown == nil {
			t.Errorf("legend entry without a label: %s", m[3])
			continue
		}
		label := html.UnescapeString(shown[1])
		if seen[label] {
			t.Errorf("two legend entries read %q", label)
		}
		seen[label] = true
		if strings.Contains(text, "detailWait") {
			waits++
		}
		if strings.Contains(text, "detailBurst") {
			burst = text
			if m[2] != "30" {
				t.Errorf("burst entry's peak %q", m[2])
			}
		}
	}
	if waits != 2 {
		t.Errorf("%d legend entries for the two detailWait groups:\n%s", waits, textOf(legend[1]))
	}
	if !strings.Contains(burst, "0 → 0, peak 30 at 09:31:00*") {
		t.Errorf("the burst's entry does not show its peak: %q", burst)
	}
}

// In Chromium, a report of live JVM dumps (three jstack of
// testdata/gen/jvm/SpinAndPark.java, a second apart) names the axis by
// the dumps' capture times, shows lambda frames by their class
// (SpinAndPark$$Lambda$2.run, not 0x00007f….run) and gives JVM examples
// in the filter box.
func TestBrowserJVMDetails(t *testing.T) {
	b := findBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := livechild.StartJava(ctx, t, "SpinAndPark")
	jstack, err := exec.LookPath("jstack")
	if err != nil {
		t.Skip("jstack is not installed")
	}
	var inputs []Input
	for i := range 3 {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond) // JVM dumps print their time in seconds
		}
		out, err := exec.CommandContext(ctx, jstack, p.PID).Output()
		if err != nil {
			t.Fatalf("jstack: %v", err)
		}
		in, err := Read(bytes.NewReader(out), fmt.Sprintf("t%d.txt", i+1), ReadOptions{})
		if err != nil || len(in) != 1 {
			t.Fatal(err)
		}
		inputs = append(inputs, in[0])
	}
	page := writeReport(t, inputs, Options{})
	doc := pageData(t, page)
	lambda := false
	for _, f := range doc.Frames {
		lambda = lambda || regexp.MustCompile(`^SpinAndPark\$\$Lambda\$\d+/0x[0-9a-f]+\.run$`).MatchString(doc.Strings[f[0]])
	}
	if !lambda {
		t.Fatal("no lambda frame in the dumps")
	}
	dom := b.load(t, page, "", "")
	if svgAttr(dom, "data-axis") != "times" {
		t.Errorf("the axis is named by %q", svgAttr(dom, "data-axis"))
	}
	for i, m := range axisLabel.FindAllStringSubmatch(dom, -1) {
		if want := inputs[i].Dump.Source.CapturedAt.UTC().Format("15:04:05"); m[1] != want {
			t.Errorf("axis label %d %q, want the capture time %s", i, m[1], want)
		}
	}
	flame := regexp.MustCompile(`(?s)<svg[^>]*class="flame-svg".*?</svg>`).FindString(dom)
	if !regexp.MustCompile(`>SpinAndPark\$\$Lambda\$\d+\.run<`).MatchString(flame) {
		t.Errorf("the flame graph does not name the lambda by its class")
	}
	if regexp.MustCompile(`>0x[0-9a-f]+\.run<`).MatchString(flame) {
		t.Errorf("the flame graph names a lambda by its address")
	}
	shown := regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAllString(dom, "")
	if !strings.Contains(shown, `placeholder="Filter: method, package, state, thread name…   e.g. java.util.concurrent`) || strings.Contains(shown, "net/http") {
		t.Errorf("the filter box of a JVM report gives Go examples")
	}
	if !strings.Contains(dom, `<span id="help-id">thread #N</span>`) {
		t.Error("the filter help speaks of goroutines on a JVM report")
	}
}
