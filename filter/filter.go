package filter

import (
	"errors"
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// kind is what an expression matches.
type kind uint8

const (
	kindFrame kind = iota
	kindState
	kindLabel
	kindName
	kindCreated
)

// prefixes are the expressions' prefixes, by kind.
var prefixes = map[string]kind{
	"frame":   kindFrame,
	"state":   kindState,
	"label":   kindLabel,
	"name":    kindName,
	"created": kindCreated,
}

// maxFrameRules bounds the frame expressions of a Filter: their matches
// are cached per stack as the bits of one uint64.
const maxFrameRules = 64

// rule is one expression.
type rule struct {
	expr string
	kind kind
	re   *regexp.Regexp // nil for label:KEY
	key  string         // the label's key
	bit  uint64         // a frame rule's bit in the per-stack cache
}

// Filter decides which routines a dump keeps. It is safe for concurrent
// use; each [Source] keeps its own cache.
type Filter struct {
	focus, ignore []rule
}

// New returns the filter of the focus and ignore expressions (see the
// package documentation for their syntax), or an error naming the first
// expression that does not parse after the name of its list: "focus
// 'state:(': error parsing regexp: …". With no expressions it keeps every
// routine.
func New(focus, ignore []string) (*Filter, error) {
	f := &Filter{}
	bits := 0
	parseAll := func(list string, exprs []string) ([]rule, error) {
		var rules []rule
		for _, e := range exprs {
			r, err := parse(e)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", list, quote(e), err)
			}
			if r.kind == kindFrame {
				if bits == maxFrameRules {
					return nil, fmt.Errorf("%s %s: more than %d frame expressions", list, quote(e), maxFrameRules)
				}
				r.bit = 1 << bits
				bits++
			}
			rules = append(rules, r)
		}
		return rules, nil
	}
	var err error
	if f.focus, err = parseAll("focus", focus); err != nil {
		return nil, err
	}
	if f.ignore, err = parseAll("ignore", ignore); err != nil {
		return nil, err
	}
	return f, nil
}

// parse reads one expression.
func parse(expr string) (rule, error) {
	r := rule{expr: expr, kind: kindFrame}
	pattern := expr
	if p, rest, ok := strings.Cut(expr, ":"); ok {
		if k, known := prefixes[p]; known {
			r.kind, pattern = k, rest
		}
	}
	if r.kind == kindLabel {
		key, value, hasValue := strings.Cut(pattern, "=")
		if key == "" {
			return r, errors.New("want label:KEY=REGEXP or label:KEY")
		}
		r.key = key
		if !hasValue {
			return r, nil
		}
		pattern = value
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return r, err
	}
	r.re = re
	return r, nil
}

// Empty reports whether f keeps every routine (no expressions).
func (f *Filter) Empty() bool { return f == nil || len(f.focus) == 0 && len(f.ignore) == 0 }

// String is f's expressions, each after the name of its list and quoted
// as a shell word: focus 'net/http', ignore 'state:IO wait'.
func (f *Filter) String() string {
	focus, ignore := f.Exprs()
	var parts []string
	for _, e := range focus {
		parts = append(parts, "focus "+quote(e))
	}
	for _, e := range ignore {
		parts = append(parts, "ignore "+quote(e))
	}
	return strings.Join(parts, ", ")
}

// Exprs returns the focus and ignore expressions f was made of, as given
// to New.
func (f *Filter) Exprs() (focus, ignore []string) {
	if f == nil {
		return nil, nil
	}
	for _, r := range f.focus {
		focus = append(focus, r.expr)
	}
	for _, r := range f.ignore {
		ignore = append(ignore, r.expr)
	}
	return focus, ignore
}

// quote is expr as a shell word: in single quotes, or Go-quoted when it
// holds one.
func quote(expr string) string {
	if strings.Contains(expr, "'") {
		return strconv.Quote(expr)
	}
	return "'" + expr + "'"
}

// Keep reports whether f keeps r: r matches every focus expression and
// no ignore expression.
func (f *Filter) Keep(r *stack.Routine) bool {
	return f.keep(r, f.frameBits(r.Stack))
}

func (f *Filter) keep(r *stack.Routine, frames uint64) bool {
	for i := range f.focus {
		if !f.focus[i].match(r, frames) {
			return false
		}
	}
	for i := range f.ignore {
		if f.ignore[i].match(r, frames) {
			return false
		}
	}
	return true
}

// frameBits returns the bits of the frame rules that match a frame of s.
func (f *Filter) frameBits(s *stack.Stack) uint64 {
	var bits uint64
	if s == nil {
		return 0
	}
	var fileLine []byte
	for _, rules := range [2][]rule{f.focus, f.ignore} {
		for i := range rules {
			r := &rules[i]
			if r.kind != kindFrame {
				continue
			}
			for _, fr := range s.Frames {
				if r.re.MatchString(fr.Func) {
					bits |= r.bit
					break
				}
				if fr.File == "" {
					continue
				}
				fileLine = append(fileLine[:0], fr.File...)
				if fr.Line > 0 {
					fileLine = strconv.AppendInt(append(fileLine, ':'), int64(fr.Line), 10)
				}
				if r.re.Match(fileLine) {
					bits |= r.bit
					break
				}
			}
		}
	}
	return bits
}

// match reports whether r matches the rule; frames holds the bits of the
// frame rules that match r's stack.
func (r *rule) match(rt *stack.Routine, frames uint64) bool {
	switch r.kind {
	case kindFrame:
		return frames&r.bit != 0
	case kindState:
		return r.re.MatchString(rt.State)
	case kindName:
		return r.re.MatchString(rt.Name)
	case kindCreated:
		return rt.CreatedBy != nil && r.re.MatchString(rt.CreatedBy.Func)
	case kindLabel:
		for _, l := range rt.Labels {
			if l.Key == r.key && (r.re == nil || r.re.MatchString(l.Value)) {
				return true
			}
		}
	}
	return false
}

// hasFrameRules reports whether any rule matches frames.
func (f *Filter) hasFrameRules() bool {
	for _, rules := range [2][]rule{f.focus, f.ignore} {
		for _, r := range rules {
			if r.kind == kindFrame {
				return true
			}
		}
	}
	return false
}

// Source returns src with only the routines f keeps: a stack.DumpSource
// to put where src was, in a stack.Pipeline or any reader of dumps. Each
// dump it yields is a copy of src's whose Total counts the kept routines
// (and whose Routines is empty: the kept ones stream through Routines);
// the rest of it (Truncated, Warnings, Races, Preamble, Source) is src's
// once its routines were read. A parse error is yielded whether its
// partial routine is kept or not. Frame matches are cached per stack, so
// a dump of many goroutines sharing few stacks costs one map lookup per
// goroutine.
func (f *Filter) Source(src stack.DumpSource) *Source {
	s := &Source{src: src, f: f}
	if f.hasFrameRules() {
		s.stacks = make(map[*stack.Stack]uint64)
	}
	return s
}

// Source is a stack.DumpSource that yields the routines its Filter keeps.
type Source struct {
	src    stack.DumpSource
	f      *Filter
	stacks map[*stack.Stack]uint64 // frame rule bits per stack; nil without frame rules
	in     *stack.Dump             // src's current dump
	out    *stack.Dump             // the copy handed on
	// kept and read count goroutines (Routine.Goroutines) over every dump.
	kept, read int64
}

// Next returns a copy of src's next dump.
func (s *Source) Next() (*stack.Dump, error) {
	d, err := s.src.Next()
	if d == nil {
		s.in, s.out = nil, nil
		return nil, err
	}
	out := *d
	out.Total, out.Routines = 0, nil
	s.in, s.out = d, &out
	return s.out, err
}

// Routines yields the current dump's kept routines, and every parse error.
func (s *Source) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		in, out := s.in, s.out
		if out != nil {
			defer func() { finish(out, in) }()
		}
		for r, err := range s.src.Routines() {
			if r != nil {
				n := r.Goroutines()
				s.read += n
				if !s.keepRoutine(r) {
					if err != nil && !yield(nil, err) {
						return
					}
					continue
				}
				s.kept += n
				if out != nil {
					out.Total += n
				}
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// finish copies onto out what src set on in while its routines were read.
func finish(out, in *stack.Dump) {
	total, routines := out.Total, out.Routines
	*out = *in
	out.Total, out.Routines = total, routines
}

func (s *Source) keepRoutine(r *stack.Routine) bool {
	var bits uint64
	if s.stacks != nil && r.Stack != nil {
		b, ok := s.stacks[r.Stack]
		if !ok {
			b = s.f.frameBits(r.Stack)
			s.stacks[r.Stack] = b
		}
		bits = b
	}
	return s.f.keep(r, bits)
}

// Counts returns how many goroutines or threads were kept and read, over
// every dump so far.
func (s *Source) Counts() (kept, read int64) { return s.kept, s.read }
