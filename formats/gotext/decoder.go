package gotext

import (
	"io"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// goTextDecoder reads Go traceback text (KindGoTraceback): runtime.Stack
// output, /debug/pprof/goroutine?debug=2, panics, fatal errors, SIGQUIT
// dumps and race reports, any number of them in one stream, with junk
// around them. See docs/go-formats.md for every form it reads and how it
// maps to the model.
//
// It is three parts:
//
//   - the lexer (lex.go) says what a line is by its form alone: a
//     goroutine header, a function call, a file line, a crash line, a
//     race report's access…;
//   - the assembler (assemble.go) builds the dump from those tokens. Its
//     state is what a dump holds, each a small struct: the dump itself
//     (dumpState), the crash's preamble (preamble), the routine being
//     read (routine, with its frames in a section), the race report being
//     read (raceReport) and a crash's per-thread blocks (threadBlocks),
//     beside what it learns of the text around the dump (foreignLines,
//     learntPrefix, otherForms);
//   - the accelerator (accel.go) takes the commonest lines, the frames of
//     call sites met before and the header after them, straight out of the
//     line source's window without lexing them, with the effect the
//     assembler gives their tokens. ReadOptions.lineByLine turns it off,
//     for the tests that compare the two.
//
// The pull methods NextDump and NextRoutine drain a small queue of what
// the assembler found (a dump starting, a routine, a problem, a dump
// ending); a line is read only when the queue is empty, so memory stays
// bounded by the longest routine, never by the input.
type goTextDecoder struct {
	in    *codec.Stream
	lines *codec.Lines
	// newLines makes lines: with the paste layer for a paste, plain for
	// the runtime's own text (codec.Options.Lines); kept across Reset.
	newLines func(in *codec.Stream, max int) *codec.Lines
	t        *stack.Table
	accel    bool // the accelerator takes what it can (see accel.go)
	// at names the line being handled: the line source's last, or a line
	// held and read again (learntPrefix.replay).
	at  linePos
	end inputEnd

	queue   eventQueue
	dump    dumpState
	pre     preamble
	rt      routine
	race    raceReport
	threads threadBlocks
	cut     cutLine
	foreign foreignLines
	prefix  learntPrefix
	other   otherForms
	pool    *routinePool // the routines lent and reused (ReadOptions.ReuseRoutines); nil otherwise

	// states caches interned states by length: most goroutines of a dump
	// share a few states, and a compare is cheaper than a map lookup. Each
	// holds the path of the stack read last in that state, the section's
	// guess for the next one.
	states [16]stateGuess
	// trie holds the stacks met so far, values dedups the frame values of
	// routines read close together; both outlive an input (reset).
	trie   *stackTrie
	values valueCache

	// Scratch.
	hdr    goHeader
	fl     fileLine
	labels stack.Labels
}

// linePos is the place of a line: its number and byte offset. off < 0
// means that the line source knows it (goTextDecoder.offset).
type linePos struct {
	num int
	off int64
}

// inputEnd is how the input ended, once it did.
type inputEnd struct {
	eof bool
	err error // a read error, returned once the queue is drained
	// readErr is the read error that ended the input early, if any.
	readErr error
}

// cutLine is the input's last line when it was a cut piece of a line of
// the open routine, dropped (cut.go).
type cutLine struct {
	set  bool
	text []byte
}

const (
	maxPreambleLines = 1000
	ringLines        = 64
	ringLineBytes    = 1024
)

func newGoTextDecoder(in *codec.Stream, opts codec.Options, lineByLine bool) *goTextDecoder {
	t := opts.Table
	if t == nil {
		t = stack.NewTable()
	}
	g := &goTextDecoder{trie: new(stackTrie), accel: !lineByLine}
	if opts.ReuseRoutines {
		g.pool = new(routinePool)
	}
	g.newLines = opts.Lines
	if g.newLines == nil {
		g.newLines = codec.NewLines
	}
	g.start(in, t, opts.MaxLineBytes)
	return g
}

// start readies g to read in from its first line, interning into t. What
// does not depend on the input is kept: the trie of stacks met, the value
// cache, the routine pool and how lines are made and read.
func (g *goTextDecoder) start(in *codec.Stream, t *stack.Table, maxLine int) {
	trie, values, pool, newLines, accel, otherForm := g.trie, g.values, g.pool, g.newLines, g.accel, g.other.line
	*g = goTextDecoder{
		in:       in,
		lines:    newLines(in, maxLine),
		newLines: newLines,
		t:        t,
		accel:    accel,
		rt:       routine{ancestor: -1, frames: newSection(t, trie)},
		trie:     trie,
		values:   values,
		pool:     pool,
		other:    otherForms{line: otherForm},
	}
	g.lines.SetOnMove(nil)
	if pool != nil {
		// A routine's Args may then be views of the input held in
		// memory, or of the line reader's window over a stream: they
		// are valid only until the next routine is read, and the
		// window's are copied before it moves (detachFromWindow).
		g.rt.frames.held = g.lines.Held()
		if g.rt.frames.held == nil && !g.lines.Layered() {
			g.rt.viewsOfWindow = true
			g.lines.SetOnMove(g.detachFromWindow)
		}
	}
}

// detachFromWindow copies what the open routine holds as views of the
// line reader's window before the window moves: the arguments of the
// section being read and, when its own stack was closed already (an
// ancestor section is being read), its values.
func (g *goTextDecoder) detachFromWindow() {
	rt := &g.rt
	if rt.r == nil || rt.slot == nil {
		return
	}
	rt.frames.detachArgs()
	if rt.ancestor >= 0 && rt.r.Values != nil {
		for i := range rt.r.Values.Frames {
			f := &rt.r.Values.Frames[i]
			f.Args = strings.Clone(f.Args)
		}
	}
}

// reset readies g to read in from its first line, keeping its Table, its
// trie of stacks met and its caches.
func (g *goTextDecoder) reset(in *codec.Stream) { g.start(in, g.t, g.lines.Max()) }

func (g *goTextDecoder) NextDump() (*stack.Dump, error) {
	if g.pool != nil {
		g.pool.reclaim()
	}
	for {
		if d := g.queue.nextStart(); d != nil {
			g.dump.out = d
			return d, nil
		}
		if g.end.err != nil {
			return nil, g.end.err
		}
		if g.other.start != nil {
			return nil, g.other.start
		}
		if g.end.eof {
			if pe := g.hiddenOnly(); pe != nil {
				g.end.err = pe
				return nil, pe
			}
			return nil, io.EOF
		}
		g.step()
	}
}

// hiddenOnly returns, at the end of an input that held no dump, the
// warning about goroutine headers hidden in other text, or about lines of
// goroutines whose headers are not in the input, if one was held:
// the input is not read as a dump, and the error says where the headers
// are instead of "no dump found".
func (g *goTextDecoder) hiddenOnly() *stack.ParseError {
	if g.dump.anyPublished {
		return nil
	}
	if pe := g.foreign.hiddenErr; pe != nil {
		pe.Err = stack.ErrNotDump
		return pe
	}
	if pe := g.foreign.orphanErr; pe != nil {
		// Lines of a goroutine and nothing else (a paste of a dump's
		// last lines): named, not "no dump found".
		pe.Err = stack.ErrNotDump
		pe.Msg += "; no goroutine header in the input"
		return pe
	}
	return nil
}

func (g *goTextDecoder) NextRoutine() (*stack.Routine, error) {
	if g.pool != nil {
		g.pool.reclaim()
	}
	for {
		if !g.queue.empty() {
			ev := g.queue.pop()
			switch ev.kind {
			case evRoutine:
				if g.dump.out != nil {
					g.dump.out.Total += ev.r.Count
				}
				if ev.slot != nil {
					g.pool.lend(ev.slot)
				}
				return ev.r, nil
			case evError:
				return nil, ev.err
			case evEnd:
				return nil, codec.ErrEndOfDump
			case evStart: // cannot happen: every start follows an end
				g.queue.head--
				return nil, codec.ErrEndOfDump
			}
		}
		if g.end.eof || g.end.err != nil {
			return nil, codec.ErrEndOfDump
		}
		g.step()
	}
}

// step lets the accelerator take the lines it can, or reads one line and
// hands it to the assembler; at the end of the input it closes what is
// open.
func (g *goTextDecoder) step() {
	if g.accel {
		switch g.rt.want {
		case wantFile, wantCreatorFile:
			if g.skipKnownLine() {
				return
			}
		case wantFrame:
			if g.wholeFrame() {
				return
			}
		}
	}
	prev := linePos{g.at.num, g.offset()}
	ln, err := g.lines.Read()
	g.at = linePos{ln.Num, ln.Off}
	switch {
	case err == nil:
		if (ln.NoEOL || ln.Last) && g.cutLine(ln.Text) {
			return // the input's (or paste region's) last line, cut short: dropped
		}
		g.feed(ln.Text)
	case err == codec.ErrLineTooLong:
		_, head := g.lines.TooLong()
		g.problem(g.lines.TooLongMsg(), head)
	case err == codec.ErrRegionEnd:
		g.at = prev // what is judged is the region's last line
		g.regionEnd()
	case err == codec.ErrGap:
		g.gap("grep's -- group separator", []byte("--"))
	case err == io.EOF:
		g.at = prev // the input's last line
		g.finish()
	default:
		g.end.readErr = err
		g.at = prev
		g.finish()
		g.end.err = err
	}
}

// offset returns the byte offset of the line being handled. The
// accelerator, which takes lines out of the line source's window, leaves
// it to be found there (off < 0), when asked, before the source reads
// on.
func (g *goTextDecoder) offset() int64 {
	if g.at.off < 0 {
		g.at.off = g.lines.Line().Off
	}
	return g.at.off
}

// problem reports a ParseError at the current line.
func (g *goTextDecoder) problem(msg string, text []byte) *stack.ParseError {
	return g.problemAt(g.at.num, g.offset(), msg, text)
}

// problemAt reports a ParseError at line num: in the dump's events once
// it was published, else kept for when it is.
func (g *goTextDecoder) problemAt(num int, off int64, msg string, text []byte) *stack.ParseError {
	pe := &stack.ParseError{Line: num, Offset: off, Msg: msg, Text: string(text[:min(len(text), 200)])}
	if g.dump.published {
		g.queue.push(goEvent{kind: evError, err: pe})
	} else {
		g.dump.pending = append(g.dump.pending, pe)
	}
	return pe
}

// eventQueue holds what the assembler found and the pull methods have
// not returned yet.
type eventQueue struct {
	events []goEvent
	head   int
}

type goEventKind uint8

const (
	evStart goEventKind = iota
	evRoutine
	evError
	evEnd
)

type goEvent struct {
	kind goEventKind
	d    *stack.Dump
	r    *stack.Routine
	slot *routineSlot // r's slot when routines are reused
	err  *stack.ParseError
}

func (q *eventQueue) empty() bool { return q.head == len(q.events) }

func (q *eventQueue) push(ev goEvent) { q.events = append(q.events, ev) }

func (q *eventQueue) pop() goEvent {
	ev := q.events[q.head]
	q.events[q.head] = goEvent{}
	q.head++
	if q.head == len(q.events) {
		q.events, q.head = q.events[:0], 0
	}
	return ev
}

// nextStart drops the events before the next dump's start and returns
// that dump, or nil when the queue holds none.
func (q *eventQueue) nextStart() *stack.Dump {
	for !q.empty() {
		if ev := q.pop(); ev.kind == evStart {
			return ev.d
		}
	}
	return nil
}
