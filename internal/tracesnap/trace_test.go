package tracesnap

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMatchesXExpTraceOnFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "trace", "*.trace"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := ParseHeader(data); err != nil || v != Version {
			continue
		}
		n++
		events := compareReaders(t, filepath.Base(f), data)
		t.Logf("%s: %d events equal", filepath.Base(f), events)
	}
	if n == 0 {
		t.Fatal("no go 1.26 trace fixture found")
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "trace", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
