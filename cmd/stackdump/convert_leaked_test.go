package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// groupsLeaked parses a grouped JSON document and returns each group's
// "leaked" by its top function (absent: not in the map).
func groupsLeaked(t *testing.T, doc []byte) map[string]int64 {
	t.Helper()
	var parsed struct {
		Groups []struct {
			Leaked *int64 `json:"leaked"`
			Stack  []struct {
				Func string `json:"func"`
			} `json:"stack"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatalf("not a grouped document: %v\n%.300s", err, doc)
	}
	leaked := map[string]int64{}
	for _, g := range parsed.Groups {
		if g.Leaked != nil && len(g.Stack) > 0 {
			leaked[g.Stack[0].Func] += *g.Leaked
		}
	}
	return leaked
}

// TestConvertDedupeLeaked converts Go 1.27.3's leak profile of
// testdata/gen/leakproof with --dedupe to JSON: the handlers' group
// carries "leaked":200, the fan-out workers' 60, and no other group has
// one. Converting that grouped document again gives the same.
func TestConvertDedupeLeaked(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "groups.json"), filepath.Join(dir, "again.json")
	if _, stderr, err := runCLI(t, "convert", "--dedupe", "--format", "json", "../../testdata/go/leakproof_go127.txt", "-o", first); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "convert", "--dedupe", "--format", "json", first, "-o", second); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, path := range []string{first, second} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := groupsLeaked(t, b)
		if len(got) != 2 || got["main.handle"] != 200 || got["main.fanOutWorker"] != 60 {
			t.Errorf("%s: leaked per group %v; want main.handle 200, main.fanOutWorker 60 and no other", filepath.Base(path), got)
		}
	}
}
