package report

import (
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests open real pages in a headless Chromium: the page must load
// from file:// without a script error or a blocked request, and its
// filter must show what the data says it should. The page records its own
// errors in attributes of <html> (see assets/guard.js), which --dump-dom
// reveals. Screenshots are kept in $REPORT_ARTIFACTS, else the test's
// temporary directory.

// browser runs a headless Chromium.
type browser struct{ path string }

// findBrowser returns the Chromium to test with, or skips the test.
func findBrowser(t *testing.T) browser {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return browser{p}
		}
	}
	t.Skip("chromium is not installed (apt-get install -y chromium): skipping the tests that open the page in a browser")
	return browser{}
}

// load opens page#fragment and returns the DOM once the page has run; with
// shot set it also saves a 1280×2000 screenshot there.
func (b browser) load(t *testing.T, page, fragment, shot string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--virtual-time-budget=5000", "--hide-scrollbars", "--window-size=1280,2000",
		"--dump-dom",
	}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	}
	args = append(args, "file://"+filepath.ToSlash(file)+fragment)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.path, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	dom := string(out)
	ms, _ := rootAttr(dom, "data-render-ms")
	t.Logf("chromium ran %v; the page (%d KiB) drew itself in %s ms", time.Since(start).Round(time.Millisecond), len(page)>>10, ms)
	checkNoErrors(t, dom)
	return dom
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var htmlTag = regexp.MustCompile(`<html[^>]*>`)

// rootAttr returns an attribute of the page's <html> element.
func rootAttr(dom, name string) (string, bool) {
	tag := htmlTag.FindString(dom)
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// checkNoErrors fails the test when the page did not finish drawing or
// recorded an error.
func checkNoErrors(t *testing.T, dom string) {
	t.Helper()
	if n, _ := rootAttr(dom, "data-js-error-count"); n != "0" {
		errs, _ := rootAttr(dom, "data-js-errors")
		t.Errorf("page recorded %s errors: %s", n, errs)
	}
	if ready, _ := rootAttr(dom, "data-ready"); ready != "1" {
		t.Errorf("page did not finish drawing (data-ready=%q)", ready)
	}
}

// countAttr returns an integer attribute of the #count element.
func countAttr(t *testing.T, dom, name string) int {
	t.Helper()
	m := regexp.MustCompile(`\s` + name + `="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no %s in the page", name)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// artifact is where a screenshot is kept.
func artifact(t *testing.T, name string) string {
	dir := os.Getenv("REPORT_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

func keepShot(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil || st.Size() < 10<<10 {
		t.Errorf("screenshot %s missing or blank: %v", path, err)
		return
	}
	t.Logf("screenshot: %s", path)
}
