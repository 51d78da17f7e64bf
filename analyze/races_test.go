package analyze

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// summarizeFixture summarises each dump of a testdata/go fixture as the
// analyze command does, streaming.
func summarizeFixture(t *testing.T, name string) []*Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", name))
	if err != nil {
		t.Fatal(err)
	}
	rd := formats.NewReaderBytes(data, formats.ReadOptions{})
	var out []*Summary
	for {
		s, _, err := SummarizeNext(rd, StreamOptions{Name: name})
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

// TestRacesFolded reads three reports of one race followed by a panic
// (testdata/gen/go127 racepanic): one dump holds both, the race is
// folded with its count, and the goroutine count counts goroutines only.
func TestRacesFolded(t *testing.T) {
	ss := summarizeFixture(t, "racepanic_go127.txt")
	if len(ss) != 1 {
		t.Fatalf("%d dumps, want 1 (races then panic)", len(ss))
	}
	s := ss[0]
	if s.Total != 8 || len(s.Preamble) == 0 || s.Preamble[0] != "panic: after the races" {
		t.Errorf("total %d, preamble %q: want the panic's 8 goroutines and its message", s.Total, s.Preamble)
	}
	if s.RacesTotal != 3 || len(s.Races) != 1 || s.Races[0].Count != 3 {
		t.Fatalf("%d reports in %d races (%+v), want 3 reports of 1 race", s.RacesTotal, len(s.Races), s.Races)
	}
	acc := s.Races[0].Accesses
	if len(acc) != 2 || acc[0].Op != "write" || acc[1].Op != "previous read" || !acc[1].Main || acc[1].Goroutine != 1 {
		t.Fatalf("accesses %+v", acc)
	}
	if acc[0].Frames[0].Func != "main.raceWrite" || acc[1].Frames[0].Func != "main.raceRead" {
		t.Errorf("top frames %v and %v", acc[0].Frames, acc[1].Frames)
	}
	if len(acc[0].CreatedAt) == 0 || acc[0].CreatedAt[0].Func != "main.modeRacePanic" || len(acc[1].CreatedAt) != 0 {
		t.Errorf("created at %v and %v, want main.modeRacePanic for the goroutine, none for main", acc[0].CreatedAt, acc[1].CreatedAt)
	}
	var text bytes.Buffer
	WriteText(&text, s, TextOptions{})
	for _, want := range []string{"Data races: 1 race in 3 reports", "write by goroutine 8", "previous read by main goroutine", "created at main.modeRacePanic main.go:169", "PANIC  after the races", "8 goroutines in"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// TestRacesJSON checks `races` and `races_total` in the JSON of real race
// reports (two different races), and that they are not goroutines.
func TestRacesJSON(t *testing.T) {
	for _, name := range []string{"race_go126.txt", "race_go127.txt"} {
		ss := summarizeFixture(t, name)
		var b bytes.Buffer
		if err := WriteJSON(&b, ss...); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Dumps []struct {
				Total      int64 `json:"total"`
				RacesTotal int   `json:"races_total"`
				Races      []struct {
					Count    int `json:"count"`
					Accesses []struct {
						Op        string     `json:"op"`
						Goroutine int64      `json:"goroutine"`
						Frames    []FrameRef `json:"frames"`
						CreatedAt []FrameRef `json:"created_at"`
					} `json:"accesses"`
				} `json:"races"`
			} `json:"dumps"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Dumps) != 1 {
			t.Fatalf("%s: %d dumps", name, len(doc.Dumps))
		}
		d := doc.Dumps[0]
		if d.Total != 0 || d.RacesTotal != 2 || len(d.Races) != 2 {
			t.Fatalf("%s: total %d, races_total %d, %d races; want 0, 2, 2", name, d.Total, d.RacesTotal, len(d.Races))
		}
		for _, rc := range d.Races {
			if rc.Count != 1 || len(rc.Accesses) != 2 {
				t.Errorf("%s: race %+v", name, rc)
				continue
			}
			for _, a := range rc.Accesses {
				if a.Goroutine == 0 || len(a.Frames) == 0 {
					t.Errorf("%s: access %+v without goroutine or frames", name, a)
				}
			}
		}
	}
}

// TestRacesNone: a dump without race reports has an empty races list.
func TestRacesNone(t *testing.T) {
	ss := summarizeFixture(t, "panic_go127.txt")
	var b bytes.Buffer
	if err := WriteJSON(&b, ss...); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"races": []`) || !strings.Contains(b.String(), `"races_total": 0`) {
		t.Errorf("no empty races:\n%s", b.String())
	}
}

// raceSummary summarises the one dump of a testdata/go fixture.
func raceSummary(t *testing.T, name string, opts Options) *Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", name))
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := SummarizeNext(formats.NewReaderBytes(data, formats.ReadOptions{}), StreamOptions{Options: opts, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The headline counts the distinct races, not the rows --top lets
// through: race_go126.txt has two reports of two different races.
func TestRaceCountFollowsTheRacesNotTop(t *testing.T) {
	s := raceSummary(t, "race_go126.txt", Options{Top: 1})
	if s.RacesTotal != 2 || s.RacesDistinct != 2 || len(s.Races) != 1 {
		t.Fatalf("%d reports, %d distinct, %d rows", s.RacesTotal, s.RacesDistinct, len(s.Races))
	}
	var b strings.Builder
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Data races: 2 races, the 1 most reported below") || strings.Contains(b.String(), "1 race in 2 reports") {
		t.Errorf("text:\n%s", b.String())
	}
	if s := raceSummary(t, "racepanic_go127.txt", Options{}); s.RacesTotal != 3 || s.RacesDistinct != 1 {
		t.Errorf("racepanic: %d reports, %d distinct; want 3 reports of one race", s.RacesTotal, s.RacesDistinct)
	}
}
