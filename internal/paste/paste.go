package paste

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Loss says what a transformation takes from a dump, and so what a reader
// may promise on its result.
type Loss int

const (
	// Intact: every line of the dump is still there byte for byte; the paste
	// only adds a frame (fences, quotes, prefixes, escapes, surrounding text)
	// that can be set aside without guessing. The result must read exactly as
	// the original: same counts, states, crash, deadlocks, truncation, and no
	// warning.
	Intact Loss = iota
	// Reinferred: dump lines were altered in a way a reader can undo only by
	// inference (indentation flattened or re-indented, blank lines dropped,
	// long lines wrapped). The result must read as the original; a note may
	// say what was guessed, but nothing may be lost.
	Reinferred
	// Destroyed: part of the dump is gone (a cut start or end, lines grep left
	// out, routines not pasted). The reader must read what is left and say with
	// a warning what is missing; counts may differ from the original.
	Destroyed
)

// String names the loss as docs/paste-forms.md does.
func (l Loss) String() string {
	switch l {
	case Intact:
		return "intact"
	case Reinferred:
		return "reinferred"
	case Destroyed:
		return "destroyed"
	}
	return "loss(" + strconv.Itoa(int(l)) + ")"
}

// Func is the body of a transformation: it returns the pasted form of in,
// taking any random choice from r. It must not modify in.
type Func func(in []byte, r *rand.Rand) []byte

// Transform is one named way a paste changes a dump.
type Transform struct {
	// Name identifies the transformation: lower case, words joined by '-',
	// '+' between the steps of a composition ("fence+chat").
	Name string
	// Form is the real form it imitates, in a sentence.
	Form string
	// Example is where that form was seen: a public issue URL, or the file of
	// the corpus that has it.
	Example string
	// Loss is what the transformation takes from the dump.
	Loss Loss
	// Kinds are the dumps it applies to; 0 means any text dump.
	Kinds Kind
	// Needs, when set, tells whether the dump has what the transformation
	// works on (a deadlock section, a SIGQUIT line, a non-ASCII byte). Apply
	// returns such a dump unchanged.
	Needs func(in []byte) bool
	// Fn does the work.
	Fn Func

	steps []Transform // of a composition, in order
}

// Applies reports whether t changes the dump in: its kind is one t works on
// and it has what t needs.
func (t Transform) Applies(in []byte) bool {
	if t.Kinds != 0 && DetectKind(in)&t.Kinds == 0 {
		return false
	}
	return t.Needs == nil || t.Needs(in)
}

// Apply returns the pasted form of in for seed; the same seed always gives
// the same result. A dump t does not apply to is returned unchanged (the same
// slice).
func (t Transform) Apply(in []byte, seed uint64) []byte {
	if !t.Applies(in) {
		return in
	}
	return t.Fn(in, newRand(seed, t.Name))
}

// newRand is the generator of one transformation for one seed: two steps of
// a composition draw different numbers from the same seed.
func newRand(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Compose returns the transformation that applies ts in order (the first to
// the dump, each next one to the result). Its loss is the worst of theirs; it
// applies where the first step applies. A later step is skipped where the
// dump is not of its kind or the intermediate result lacks what it needs.
func Compose(ts ...Transform) Transform {
	names := make([]string, len(ts))
	forms := make([]string, len(ts))
	examples := make([]string, 0, len(ts))
	c := Transform{}
	for i, t := range ts {
		names[i] = t.Name
		forms[i] = t.Form
		if t.Example != "" && !contains(examples, t.Example) {
			examples = append(examples, t.Example)
		}
		if t.Loss > c.Loss {
			c.Loss = t.Loss
		}
	}
	c.Name = strings.Join(names, "+")
	c.Form = strings.Join(forms, " Then: ")
	c.Example = strings.Join(examples, " ")
	if len(ts) > 0 {
		c.Kinds, c.Needs = ts[0].Kinds, ts[0].Needs
	}
	c.steps = append([]Transform(nil), ts...)
	c.Fn = func(in []byte, r *rand.Rand) []byte {
		return applySteps(ts, in, r.Uint64())
	}
	return c
}

// applySteps applies the steps of a composition to in, each with its own
// generator drawn from seed.
func applySteps(ts []Transform, in []byte, seed uint64) []byte {
	kind := DetectKind(in)
	out := in
	for _, t := range ts {
		// The kind is judged on the dump, not on what earlier steps made
		// of it (a prefixed or fenced dump no longer looks like one); the
		// needs on what the step is given.
		if (t.Kinds == 0 || t.Kinds&kind != 0) && (t.Needs == nil || t.Needs(out)) {
			out = t.Fn(out, newRand(seed, t.Name))
		}
	}
	return out
}

// Steps returns the transformations a composition is made of, or t alone.
func (t Transform) Steps() []Transform {
	if t.steps == nil {
		return []Transform{t}
	}
	return append([]Transform(nil), t.steps...)
}

// ApplyFirst applies only the first n steps of the composition t to in, with
// the random choices Apply makes for seed: the form before the later steps
// framed it (a cut dump before it was fenced). n = len(Steps()) is Apply.
func (t Transform) ApplyFirst(in []byte, seed uint64, n int) []byte {
	if !t.Applies(in) {
		return in
	}
	if t.steps == nil {
		if n <= 0 {
			return in
		}
		return t.Apply(in, seed)
	}
	return applySteps(t.steps[:min(max(n, 0), len(t.steps))], in, newRand(seed, t.Name).Uint64())
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// All returns every single transformation, in the order of
// docs/paste-forms.md. Glue is not among them: it needs a second dump
// ([GlueWith]).
func All() []Transform {
	all := make([]Transform, 0, 48)
	all = append(all, markdownTransforms()...)
	all = append(all, quoteTransforms()...)
	all = append(all, logTransforms()...)
	all = append(all, whitespaceTransforms()...)
	all = append(all, terminalTransforms()...)
	all = append(all, cutTransforms()...)
	all = append(all, escapeTransforms()...)
	return all
}

// Lookup returns the transformation of All or Combos with that name.
func Lookup(name string) (Transform, bool) {
	for _, t := range append(All(), Combos()...) {
		if t.Name == name {
			return t, true
		}
	}
	return Transform{}, false
}
