package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Exit statuses of query, as grep's.
const (
	queryNoMatch = 1
	queryFailed  = 2
)

type queryOptions struct {
	raw    bool
	quiet  bool
	dedupe bool
	by     string
}

func newQueryCommand() *cobra.Command {
	var o queryOptions
	cmd := &cobra.Command{
		Use:   "query FILE PATH",
		Short: "Select parts of a dump with a gjson path",
		Long: `query reads FILE (any format stackdump reads; "-" for standard input),
turns each dump in it into its stackdump JSON document (docs/json.md), or
into the grouped document with --dedupe, and prints what the gjson PATH
selects in each (syntax: github.com/tidwall/gjson, SYNTAX.md). A PATH that
starts with ".." is applied once to all the documents as JSON lines
("..#" counts the dumps, "..0.total" is the first dump's total).

query streams: each dump is queried and its result printed before the
next is read, so memory is that of the largest single dump's document,
not of the file; only a ".." path holds every document.

Results are printed as JSON, one per matching dump. With --raw a string
is printed without quotes and an array one element per line.

Exit status: 0 when some dump matched, 1 when none did (like grep; an
empty array counts as no match), 2 on an error such as an unreadable
input, an invalid path or a wrong argument. --by implies --dedupe.`,
		Example: `  stackdump query dump.txt 'goroutines.#(state=="chan receive")#.id'
  stackdump query --dedupe --raw dump.txt 'groups.#(count>100)#.stack.0.func'
  stackdump query dump.json.gz total`,
		Args: func(cmd *cobra.Command, args []string) error {
			return queryUsage(cobra.ExactArgs(2)(cmd, args))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("by") {
				o.dedupe = true
			}
			err := runQuery(cmd, args[0], args[1], o)
			var ex exitError
			if err != nil && !errors.As(err, &ex) {
				err = exitError{code: queryFailed, err: err}
			}
			return err
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return queryUsage(err) })
	f := cmd.Flags()
	f.BoolVar(&o.raw, "raw", false, "print strings without quotes and arrays one element per line")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.BoolVar(&o.dedupe, "dedupe", false, "query the grouped document (groups of identical stacks) instead of every goroutine")
	f.StringVar(&o.by, "by", "stack", "group by: exact, stack or func (implies --dedupe)")
	return cmd
}

// queryUsage gives a usage error (wrong arguments, an unknown flag) the
// status of an error, 2, not cobra's 1, which query keeps for "no match".
func queryUsage(err error) error {
	if err == nil {
		return nil
	}
	return exitError{code: queryFailed, err: err}
}

// errNoMatch says a path selected nothing in any dump.
var errNoMatch = errors.New("no match")

func runQuery(cmd *cobra.Command, in, path string, o queryOptions) error {
	if err := checkPath(path); err != nil {
		return err
	}
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return err
	}
	src, count, closeIn, err := openTracked(cmd, in, o.quiet)
	if err != nil {
		return err
	}
	defer closeIn()
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	matched := false
	emit := func(r gjson.Result) {
		if !r.Exists() {
			return
		}
		// An empty array, what a #(…)# query that selects nothing
		// gives, is printed but is no match.
		if !r.IsArray() || len(r.Array()) > 0 {
			matched = true
		}
		writeResult(out, r, o.raw)
	}
	opts := dedupe.Options{By: by}
	warn := func(pe *stack.ParseError) {
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", displayName(in), pe)
	}
	docs := 0
	if lines, ok := strings.CutPrefix(path, ".."); ok {
		// The documents as JSON lines: the path may look at any of them,
		// so all are kept.
		var all []byte
		err = eachDocument(src, o.dedupe, opts, count, warn, func(doc []byte) error {
			docs++
			all = append(append(all, doc...), '\n')
			return nil
		})
		if cutInput(err) && docs > 0 {
			err = keepCut(cmd.ErrOrStderr(), fmt.Errorf("%s: %w", displayName(in), err)) // the rule for cut input (inputcut.go)
		}
		if err == nil {
			emit(gjson.GetBytes(all, ".."+lines))
		}
	} else {
		// One document at a time: memory is that of the largest.
		err = eachDocument(src, o.dedupe, opts, count, warn, func(doc []byte) error {
			docs++
			emit(gjson.GetBytes(doc, path))
			return out.Flush()
		})
		if cutInput(err) && docs > 0 {
			err = keepCut(cmd.ErrOrStderr(), fmt.Errorf("%s: %w", displayName(in), err)) // the rule for cut input (inputcut.go)
		}
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(in), err)
	}
	if !matched {
		return exitError{code: queryNoMatch, err: fmt.Errorf("%s: %w for %q", displayName(in), errNoMatch, path)}
	}
	return nil
}

// eachDocument reads the dumps of src one at a time and calls fn with
// each one's stackdump JSON document, grouped or not. The document is
// valid only during the call: one buffer, as large as the largest
// document, is reused, and routines are not kept, so memory is that of
// the largest dump, not of all of them.
func eachDocument(src io.Reader, grouped bool, by dedupe.Options, progress *atomic.Int64, onWarning func(*stack.ParseError), fn func(doc []byte) error) error {
	docs := &documentStage{grouped: grouped, by: by, fn: fn}
	p := stack.Pipeline{
		Source:    formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true, Progress: progress}),
		Encoder:   docs,
		OnWarning: onWarning,
	}
	n, err := p.Run(context.Background())
	if err == nil && n == 0 {
		return errors.New("no dump found")
	}
	return err
}

// documentStage is the last stage of eachDocument's pipeline: it writes
// each dump as one JSON document (through the grouping stage when
// grouped) into one reused buffer, and hands the document to fn at the
// dump's end.
type documentStage struct {
	grouped bool
	by      dedupe.Options
	fn      func(doc []byte) error
	b       bytes.Buffer
	enc     stack.Encoder // the current dump's
}

func (s *documentStage) BeginDump(d *stack.Dump) error {
	s.b.Reset()
	var err error
	if s.grouped {
		s.enc = dedupe.NewGroupingEncoder(func(d *stack.Dump, groups []*stack.Group) error {
			return formats.WriteGroups(&s.b, output.JSON, d, groups)
		}, s.by)
	} else {
		s.enc, err = formats.NewEncoder(&s.b, output.JSON)
	}
	if err != nil {
		return err
	}
	return s.enc.BeginDump(d)
}

func (s *documentStage) WriteRoutine(r *stack.Routine) error { return s.enc.WriteRoutine(r) }

func (s *documentStage) EndDump(d *stack.Dump) error {
	if err := s.enc.EndDump(d); err != nil {
		return err
	}
	return s.fn(bytes.TrimSpace(s.b.Bytes()))
}

// writeResult prints one result: JSON, or with raw, strings unquoted and
// arrays one element per line (elements that are strings unquoted too).
func writeResult(b *bufio.Writer, r gjson.Result, raw bool) {
	switch {
	case raw && r.Type == gjson.String:
		b.WriteString(r.Str)
		b.WriteByte('\n')
	case raw && r.IsArray():
		for _, e := range r.Array() {
			writeResult(b, e, e.Type == gjson.String)
		}
	default:
		b.WriteString(r.Raw)
		b.WriteByte('\n')
	}
}
