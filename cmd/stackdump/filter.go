package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// filterFlags are --focus and --ignore (package filter; docs/filter.md),
// on analyze, convert, diff, report, timeline and watch.
type filterFlags struct {
	focus, ignore []string
}

// filterHelp is the paragraph each command's help gives the flags.
const filterHelp = `--focus REGEXP keeps only the goroutines and threads with a frame whose
function or file:line matches; --ignore REGEXP drops them. state:RE,
label:KEY=RE, name:RE and created:RE match the state, a pprof label, a
thread's name or the creator instead. Every --focus must match; any
--ignore drops (docs/filter.md).`

// add registers the flags on cmd. They are string arrays, not slices:
// a regular expression may hold commas.
func (o *filterFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&o.focus, "focus", nil, "keep only goroutines/threads with a frame (function or file:line) matching `REGEXP`; state:RE, label:KEY=RE, name:RE, created:RE match those; repeat to narrow")
	f.StringArrayVar(&o.ignore, "ignore", nil, "drop goroutines/threads matching `REGEXP` (the syntax of --focus); repeat to drop more")
}

// filter returns the filter the flags ask for, nil when none. Its error
// names the flag (the library's the list: "focus 'state:(': …").
func (o filterFlags) filter() (*filter.Filter, error) {
	if len(o.focus) == 0 && len(o.ignore) == 0 {
		return nil, nil
	}
	f, err := filter.New(o.focus, o.ignore)
	if err != nil {
		return nil, &wordedError{msg: "--" + err.Error(), err: err}
	}
	return f, nil
}

// filterText is f as the flags that make it: --focus 'net/http'
// --ignore 'state:IO wait'.
func filterText(f *filter.Filter) string {
	focus, ignore := f.Exprs()
	var parts []string
	for _, e := range focus {
		parts = append(parts, "--focus "+shellWord(e))
	}
	for _, e := range ignore {
		parts = append(parts, "--ignore "+shellWord(e))
	}
	return strings.Join(parts, " ")
}

// shellWord is s as one word of a command line: in single quotes, or
// Go-quoted when it holds one.
func shellWord(s string) string {
	if strings.Contains(s, "'") {
		return strconv.Quote(s)
	}
	return "'" + s + "'"
}

// filteredInput is an input read through a filter: the filter's source,
// and the kind of the last dump read, to name what was counted.
type filteredInput struct {
	*filter.Source
	f    *filter.Filter
	kind stack.Kind
}

// filterInput returns src read through f, and the filtered input to
// report counts from (nil when f is nil: src as it is).
func filterInput(f *filter.Filter, src stack.DumpSource) (stack.DumpSource, *filteredInput) {
	if f == nil {
		return src, nil
	}
	in := &filteredInput{Source: f.Source(src), f: f}
	return in, in
}

func (in *filteredInput) Next() (*stack.Dump, error) {
	d, err := in.Source.Next()
	if d != nil {
		in.kind = d.Source.Kind
	}
	return d, err
}

// note says on w what the filter kept of the input name: "stackdump:
// dump.txt: --focus "net/http": kept 20 of 315 goroutines". Nothing when in
// is nil.
func (in *filteredInput) note(w io.Writer, name string) {
	if in == nil {
		return
	}
	kept, read := in.Counts()
	noun := "goroutine"
	if in.kind == stack.KindJVMText || in.kind == stack.KindJVMJSON {
		noun = "thread"
	}
	fmt.Fprintf(w, "stackdump: %s: %s: kept %d of %s\n", name, filterText(in.f), kept, words.Count(read, noun))
}
