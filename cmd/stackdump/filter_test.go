package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// demoDump is the demo service's real debug=2 dump (315 goroutines).
var demoDump = filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")

// headerStates counts the goroutine headers of a traceback file by state,
// read apart from the codecs.
func headerStates(t *testing.T, path string) map[string]int {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^goroutine \d+ \[([^,\]]*)`).FindAllStringSubmatch(string(text), -1) {
		states[m[1]]++
	}
	return states
}

// TestFilterFlags runs --focus and --ignore through each offline command
// on the demo dump and checks the counts each prints against the dump's
// own text, and the note on standard error.
func TestFilterFlags(t *testing.T) {
	states := headerStates(t, demoDump)
	send, io, all := states["chan send"], states["IO wait"], 0
	for _, n := range states {
		all += n
	}
	if send < 2 || io < 2 || send+io >= all {
		t.Fatalf("the demo dump changed: %v", states)
	}
	note := func(kept, of int) string {
		return fmt.Sprintf(": kept %d of %d goroutines\n", kept, of)
	}

	t.Run("convert", func(t *testing.T) {
		out, errOut, err := runCLI(t, "convert", "--focus", "state:^chan send$", demoDump)
		if err != nil {
			t.Fatal(err)
		}
		if got := headerStates(t, writeTemp(t, out)); len(got) != 1 || got["chan send"] != send {
			t.Errorf("convert --focus state:^chan send$ wrote %v, want %d chan send", got, send)
		}
		if !strings.HasSuffix(errOut, demoDump+`: --focus 'state:^chan send$'`+note(send, all)) {
			t.Errorf("standard error: %q", errOut)
		}
	})
	t.Run("analyze", func(t *testing.T) {
		out, _, err := runCLI(t, "analyze", "--color", "never", "--ignore", "state:chan send", "--ignore", "state:IO wait", demoDump)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("\n%d goroutines in ", all-send-io); !strings.Contains(out, want) || strings.Contains(out, "chan send") || strings.Contains(out, "IO wait") {
			t.Errorf("analyze with two --ignore: want %q and neither state:\n%s", want, out)
		}
	})
	t.Run("diff", func(t *testing.T) {
		out, _, err := runCLI(t, "diff", "--focus", "state:IO wait", demoDump, demoDump)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("(go-traceback): %d goroutines in ", io); strings.Count(out, want) != 2 {
			t.Errorf("diff --focus state:IO wait: want old and new of %d goroutines:\n%s", io, out)
		}
	})
	t.Run("report", func(t *testing.T) {
		html := filepath.Join(t.TempDir(), "r.html")
		_, errOut, err := runCLI(t, "report", "--focus", "state:IO wait", "-o", html, demoDump)
		if err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"total":%d,`, io); !strings.Contains(string(page), want) || !strings.Contains(errOut, note(io, all)) {
			t.Errorf("report --focus state:IO wait: page lacks %s, or standard error %q", want, errOut)
		}
	})
	t.Run("bad expression", func(t *testing.T) {
		for _, cmd := range []string{"analyze", "convert", "report", "timeline"} {
			_, _, err := runCLI(t, cmd, "--focus", "state:(", demoDump)
			if err == nil || !strings.Contains(err.Error(), "--focus 'state:(': error parsing regexp") {
				t.Errorf("%s --focus 'state:(': %v", cmd, err)
			}
		}
	})
}

// TestFilterFlagsJVM: name: on a real jstack dump's threads, in timeline.
func TestFilterFlagsJVM(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "corpus", "jvm", "local_jdk17.0.15-jstack-l-deadlocks.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`(?m)^"(C[^"]*)" .*\bnid=`).FindAllString(string(text), -1)
	if len(names) == 0 {
		t.Fatal("the fixture has no thread named C…")
	}
	out, errOut, err := runCLI(t, "timeline", "--color", "never", "--focus", "name:^C", path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("  %d  threads ", len(names)); !strings.Contains(out, want) || !strings.Contains(errOut, fmt.Sprintf(": kept %d of ", len(names))) {
		t.Errorf("timeline --focus name:^C: want %q:\n%s\n%s", want, out, errOut)
	}
}

// TestFilterFlagsWatch watches the live stuck program (7 goroutines in
// main.stuckWorker among its others) with --focus.
func TestFilterFlagsWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := livechild.StartStuck(ctx, t)
	out, errOut, err := runCLI(t, "watch", base, "--count", "1", "--json", "--max-pause", "0", "--focus", `main\.stuckWorker`)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var snap struct {
		Total  int64 `json:"total"`
		Groups []struct {
			Count int64  `json:"count"`
			Top   string `json:"top"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if snap.Total != 7 || len(snap.Groups) != 1 || snap.Groups[0].Count != 7 || !strings.HasPrefix(snap.Groups[0].Top, "main.stuckWorker") {
		t.Errorf("watch --focus main.stuckWorker: %s, want one group of the 7 stuck workers", out)
	}
}

// writeTemp writes s to a file of the test and returns its path.
func writeTemp(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
