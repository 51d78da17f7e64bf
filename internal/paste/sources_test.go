package paste

import (
	"os"
	"testing"
)

func TestFramesALoss(t *testing.T) {
	get := func(name string) Transform {
		tr, ok := Lookup(name)
		if !ok {
			t.Fatalf("no transformation %q", name)
		}
		return tr
	}
	for _, c := range []struct {
		t    Transform
		want bool
	}{
		{get("cut-end"), false},                            // a loss alone
		{get("fence"), false},                              // a frame alone
		{Compose(get("cut-end"), get("fence")), true},      // cut, then fenced
		{Compose(get("fence"), get("cut-end")), false},     // the loss comes last
		{Compose(get("cut-start"), get("cut-end")), false}, // two losses
		{Compose(get("grep"), get("fence"), get("fence-lang")), true},
	} {
		if got := c.t.FramesALoss(); got != c.want {
			t.Errorf("%s: FramesALoss = %v, want %v", c.t.Name, got, c.want)
		}
	}
}

func TestGlueBases(t *testing.T) {
	for _, c := range []struct {
		file string
		want map[string]string
	}{
		{"../../testdata/go/sigquit_go126.txt", map[string]string{"debug1": "debug1_go126.txt", "jvm": "local_jdk17.0.15-jstack-plain.txt"}},
		{"../../testdata/groups/debug1_go126.txt", map[string]string{"debug2": "debug2_go126.txt", "jvm": "local_jdk17.0.15-jstack-plain.txt"}},
		{"../../testdata/corpus/jvm/local_jdk17.0.15-jstack-plain.txt", map[string]string{"go": "sigquit_go126.txt"}},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		got := GlueBases(b)
		if len(got) != len(c.want) {
			t.Errorf("%s: GlueBases = %v, want %v", c.file, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: GlueBases = %v, want %v", c.file, got, c.want)
			}
		}
	}
	for _, dir := range []string{"gen", "json", "golden", "malformed"} {
		if !SkipDir(dir) {
			t.Errorf("SkipDir(%q) = false", dir)
		}
	}
	if SkipDir("go") || SkipDir("jvm") {
		t.Error("SkipDir skips a directory of dumps")
	}
}
