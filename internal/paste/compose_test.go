package paste

import (
	"bytes"
	"testing"
)

// TestCompose checks a composition applies its steps in order, takes the
// worst loss, and joins the names.
func TestCompose(t *testing.T) {
	in := realDump(t, "sigquit_go126.txt")
	quote, _ := Lookup("quote")
	fence, _ := Lookup("fence")
	cut, _ := Lookup("cut-end")
	c := Compose(quote, fence, cut)
	if c.Name != "quote+fence+cut-end" || c.Loss != Destroyed {
		t.Fatalf("name %q, loss %v; want quote+fence+cut-end, destroyed", c.Name, c.Loss)
	}
	out := c.Apply(in, 5)
	ls := lines(out)
	if string(ls[0]) != "```" {
		t.Fatalf("first line %q: the fence was not put around the quoted dump", ls[0])
	}
	for i, l := range ls[1 : len(ls)-1] {
		if !bytes.HasPrefix(l, []byte("> ")) {
			t.Fatalf("line %d %q is not quoted inside the fence", i+2, l)
		}
	}
	if bytes.HasSuffix(out, []byte("```\n")) {
		t.Error("the cut end kept the closing fence")
	}
	if !bytes.Equal(c.Apply(in, 5), out) {
		t.Error("two runs with one seed differ")
	}
}

// TestComposeJudgesKindOnDump checks a later step's needs are judged on the
// intermediate result and the composition's kind on the dump: a Go-only first
// step leaves a JVM dump alone.
func TestComposeJudgesKindOnDump(t *testing.T) {
	jvm := realDump(t, "jthreaddump_deadlock_jdk25.txt")
	echo, _ := Lookup("sigquit-echo")
	fence, _ := Lookup("fence")
	if c := Compose(echo, fence); c.Applies(jvm) || !bytes.Equal(c.Apply(jvm, 1), jvm) {
		t.Error("a composition starting with a Go-only step changed a JVM dump")
	}
	only, _ := Lookup("deadlock-only")
	out := Compose(only, fence).Apply(jvm, 1)
	if !bytes.HasPrefix(out, []byte("```\nFound one Java-level deadlock:")) || bytes.Contains(out, []byte("Full thread dump")) {
		t.Errorf("deadlock-only then fence: got %q...", head(out))
	}
	// A later step whose needs the result does not meet is skipped.
	if got, want := Compose(fence, echo).Apply(jvm, 1), fence.Apply(jvm, 1); !bytes.Equal(got, want) {
		t.Error("fence then sigquit-echo on a JVM dump is not the fenced dump")
	}
}

// TestCombos checks each combination seen in a real paste applies to a
// real dump and changes it, and names a real paste.
func TestCombos(t *testing.T) {
	dumps := realDumps(t)
	for _, c := range Combos() {
		applied := false
		for _, d := range dumps {
			if !c.Applies(d.data) {
				continue
			}
			applied = true
			if out := c.Apply(d.data, 3); bytes.Equal(out, d.data) {
				t.Errorf("%s: left %s unchanged", c.Name, d.name)
			}
		}
		if !applied {
			t.Errorf("%s applies to no real dump", c.Name)
		}
	}
}

// TestGlueWith checks the glued paste is the first dump, a blank line and
// the second, whole.
func TestGlueWith(t *testing.T) {
	debug2 := realDump(t, "debug2_go126.txt")
	debug1 := realDump(t, "debug1_go126.txt")
	g := GlueWith("debug1", debug1)
	if g.Name != "glue-debug1" || g.Loss != Intact {
		t.Fatalf("name %q loss %v", g.Name, g.Loss)
	}
	out := g.Apply(debug2, 1)
	if want := concat(withNL(debug2), []byte("\n"), debug1); !bytes.Equal(out, want) {
		t.Error("glued paste is not the first dump, a blank line, the second dump")
	}
	if DetectKind(out) != Go {
		t.Errorf("kind of glued Go dumps: %v", DetectKind(out))
	}
	jvm := realDump(t, "local_jdk17.0.15-jstack-plain.txt")
	if k := DetectKind(GlueWith("go", debug2).Apply(jvm, 1)); k != Go|JVM {
		t.Errorf("kind of a JVM dump glued to a Go dump: %v, want both", k)
	}
}

// TestDetectKind checks the kinds of the real dumps by their directory, and
// that JSON and binary inputs are none.
func TestDetectKind(t *testing.T) {
	for _, d := range realDumps(t) {
		if DetectKind(d.data) == 0 {
			t.Errorf("%s: no kind", d.name)
		}
	}
	for name, want := range map[string]Kind{
		"sigquit_go126.txt":              Go,
		"debug1_go126.txt":               Go,
		"race_go126.txt":                 Go,
		"tda_visualvm_remote.log":        JVM,
		"jthreaddump_deadlock_jdk25.txt": JVM,
	} {
		if got := DetectKind(realDump(t, name)); got != want {
			t.Errorf("%s: kind %v, want %v", name, got, want)
		}
	}
	for _, in := range []string{`{"format":"stackdump/v1","goroutines":[]}`, "\x1f\x8b\x08\x00\x00", "hello\nworld\n", ""} {
		if k := DetectKind([]byte(in)); k != 0 {
			t.Errorf("DetectKind(%q) = %v, want 0", in, k)
		}
	}
}

// TestLossString checks the names docs/paste-forms.md uses.
func TestLossString(t *testing.T) {
	for l, want := range map[Loss]string{Intact: "intact", Reinferred: "reinferred", Destroyed: "destroyed", Loss(7): "loss(7)"} {
		if l.String() != want {
			t.Errorf("%d: %q, want %q", int(l), l.String(), want)
		}
	}
}

// TestApplyFirst checks the first steps of a composition are applied with
// the choices Apply makes: the fenced cut is the cut, fenced.
func TestApplyFirst(t *testing.T) {
	in := realDump(t, "sigquit_go126.txt")
	c, ok := Lookup("cut-end+fence")
	if !ok {
		t.Fatal("no combo cut-end+fence")
	}
	if len(c.Steps()) != 2 || c.Steps()[0].Name != "cut-end" {
		t.Fatalf("steps %v", c.Steps())
	}
	for _, seed := range []uint64{1, 2, 3} {
		cut := c.ApplyFirst(in, seed, 1)
		if !bytes.HasPrefix(in, cut) || len(cut) >= len(in) {
			t.Fatalf("seed %d: first step is not a cut end of the dump", seed)
		}
		if want := concat([]byte("```\n"), withNL(cut), []byte("```\n")); !bytes.Equal(c.Apply(in, seed), want) {
			t.Errorf("seed %d: Apply is not the fenced ApplyFirst(1)", seed)
		}
		if !bytes.Equal(c.ApplyFirst(in, seed, 2), c.Apply(in, seed)) || !bytes.Equal(c.ApplyFirst(in, seed, 0), in) {
			t.Errorf("seed %d: ApplyFirst(2) is not Apply, or ApplyFirst(0) is not the dump", seed)
		}
	}
	fence, _ := Lookup("fence")
	if len(fence.Steps()) != 1 || !bytes.Equal(fence.ApplyFirst(in, 1, 1), fence.Apply(in, 1)) {
		t.Error("a single transformation is not its own only step")
	}
}
