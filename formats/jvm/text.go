package jvm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

// jvmTextDecoder reads HotSpot thread dumps (jstack, jcmd Thread.print,
// kill -3 output), their VisualVM and ThreadInfo.toString relatives, and
// jcmd Thread.dump_to_file plain text. docs/jvm.md describes the mapping.
//
// It is a line state machine. Between dumps (nextDump) it skips junk
// until a dump starts: a "Full thread dump" line, a thread header, or a
// Thread.dump_to_file header; the few junk lines just before the start
// are remembered in a small ring, because the timestamp, the jcmd
// "<pid>:" line and the dump_to_file pid/time/version lines come before
// the dump proper. Inside a dump (nextRoutine) the phases are:
//
//	threads        thread blocks: header, state, frames, locks, synchronizers
//	after          after "JNI global refs": Heap summary, histograms, junk
//	deadlock       "Found one Java-level deadlock:" cycle lines, kept in Preamble
//	deadlockStacks "Java stack information for the threads listed above:", skipped
//
// A dump ends at EOF, at a read error of the input (Truncated, with a
// warning; the next dump is the error), at the next "Full thread dump", at a thread header
// after the thread list (phase after), or at a Thread.dump_to_file header
// preceded by a new pid/time/version prelude.
type jvmTextDecoder struct {
	lr   *codec.Lines
	t    *stack.Table
	d    *stack.Dump
	ph   jvmPhase
	cur  *jvmThreadBuilder // thread being read; nil between threads
	vt   *jvmThreadBuilder // the virtual thread mounted on cur, if any
	dst  *jvmThreadBuilder // where frames go: cur, or vt after "Mounted virtual thread"
	bufs [2]jvmThreadBuilder
	// queue holds finished routines not yet returned (a carrier and its
	// mounted virtual thread finish together).
	queue []*stack.Routine
	ended bool // the current dump ended; nextRoutine returns errEndOfDump
	eof   bool
	// readErr is the input's read error that ended the dump, Truncated;
	// the next nextDump returns it.
	readErr error
	prelude jvmPrelude
	cache   jvmCache
	name    splitName
	orphans orphanLines
	// threads counts the threads the current dump read; reportOnly is set
	// when its deadlock report's stack part is read as its threads (a
	// paste of the deadlock report alone).
	threads    int
	reportOnly bool
	// last is the line read last inside the dump; frameNum the line of
	// the last frame read.
	last     linePos
	frameNum int
	// gapped is the last line of the dump where lines were left out;
	// flat is set once a thread line without its indentation was read.
	gapped   int
	flat     bool
	reversed bool // the lines come newest first (warned once)
	// errs holds warnings to return before reading on.
	errs  []*stack.ParseError
	other otherForms
	// foreign is what the reader sets aside of the forms it refuses by
	// name (foreign.go); sa is set in a dump of the serviceability agent
	// (sa.go), which prints "Locked ownable synchronizers:" at column 0.
	foreign foreignState
	sa      bool
}

// jvmCache caches parsed lines by their text, so a repeated frame costs
// one map lookup: frames and locks, and the interned frame values of the
// lock lines that made them (jvmThreadBuilder.vkey), which spares
// Table.Values its key building; scratch is values' buffer.
type jvmCache struct {
	frames  map[string]*stack.Frame
	locks   map[string]stack.Lock
	fvals   map[string]*stack.FrameValues
	scratch []stack.FrameValue
}

// splitName holds the lines so far of a thread name with line breaks in
// it (Java allows them; HotSpot prints the name raw): a line that opens a
// quote but is no header, and the lines after it, joined with "\n", until
// they make a header. lines counts them; first is the first's number.
type splitName struct {
	head  []byte
	lines int
	first int
}

// orphanLines counts the thread lines met with no thread open, from line
// at (see orphan); last is the line of the last one counted.
type orphanLines struct {
	n    int
	at   linePos
	last int
}

// linePos is the number and byte offset of a line.
type linePos struct {
	num int
	off int64
}

// otherForms is what the reader knows of the other text forms: forms
// are the stream's (codec.Stream.Forms), handOver says whether the
// stream's caller reads on with their readers (codec.Stream.HandOver),
// held are the last junk lines, the first lines such a dump may have,
// start is the dump of another form the stream goes on with, and
// skipping the form warned of last.
type otherForms struct {
	forms    codec.Forms
	handOver bool
	held     codec.Held
	start    *codec.OtherFormError
	skipping stack.Kind
}

// jvmMaxNameLines bounds how many lines a thread name may span.
const jvmMaxNameLines = 16

type jvmPhase uint8

const (
	jvmPhaseThreads jvmPhase = iota
	jvmPhaseAfter
	jvmPhaseDeadlock
	jvmPhaseDeadlockStacks
)

func newJVMTextDecoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	opts = opts.WithDefaults()
	return &jvmTextDecoder{
		lr:    unpaste.NewLines(in, opts.MaxLineBytes, codec.Forms{Form()}),
		other: otherForms{forms: in.Forms.Others(stack.KindJVMText), handOver: in.HandOver},
		t:     opts.Table,
		cache: jvmCache{
			frames: make(map[string]*stack.Frame),
			locks:  make(map[string]stack.Lock),
			fvals:  make(map[string]*stack.FrameValues),
		},
	}
}

func (d *jvmTextDecoder) NextDump() (*stack.Dump, error) {
	for d.d != nil && !d.ended {
		if _, err := d.NextRoutine(); err != nil && err != codec.ErrEndOfDump && !codec.IsParseError(err) {
			return nil, err
		}
	}
	if d.readErr != nil {
		return nil, d.readErr
	}
	if d.other.start != nil {
		return nil, d.other.start
	}
	d.d, d.ended, d.ph, d.queue = nil, false, jvmPhaseThreads, d.queue[:0]
	d.name.head = d.name.head[:0]
	d.threads, d.reportOnly, d.gapped, d.sa = 0, false, 0, false
	for !d.eof {
		ln, err := d.lr.Read()
		line := ln.Text
		if err == io.EOF {
			d.eof = true
			break
		}
		if err == codec.ErrLineTooLong || err == codec.ErrRegionEnd || err == codec.ErrGap {
			continue // an over-long junk line or a paste's frame between dumps
		}
		if err != nil {
			return nil, err
		}
		if d.inForeign(line) {
			continue
		}
		if k := foreignStart(line); k != foreignNone {
			d.foreign.pending = append(d.foreign.pending, d.startForeign(k, line))
			continue
		}
		if dump := d.dumpStart(line); dump != nil {
			dump.Warnings = append(dump.Warnings, d.foreign.pending...)
			d.foreign.pending = d.foreign.pending[:0]
			if pe := d.orphanWarning(); pe != nil {
				dump.Warnings = append(dump.Warnings, pe)
			}
			d.d = dump
			d.foreign.dumps++
			return dump, nil
		}
		if k := d.other.forms.StartForm(line); k != "" && d.other.handOver {
			d.other.start = d.other.held.HandOver(d.lr, k, line)
			return nil, d.other.start
		}
		d.other.held.Add(line, ln.Num, ln.Off)
		if isOrphanLine(line) {
			d.orphan()
		}
		d.prelude.add(line)
	}
	if err := d.foreignOnly(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// dumpStart returns a new Dump when line starts one, using the prelude
// lines before it; a header line is pushed back to be read as a thread.
func (d *jvmTextDecoder) dumpStart(line []byte) *stack.Dump {
	dump := &stack.Dump{Source: stack.Source{Kind: stack.KindJVMText}}
	if rest, ok := bytes.CutPrefix(line, []byte("Full thread dump")); ok {
		dump.Source.Runtime, dump.Source.CapturedAt = parseJVMDumpLine(rest)
		d.prelude.hotspot(dump)
		d.prelude.reset()
		return dump
	}
	if isJVMDeadlockLine(line) && bytes.HasPrefix(line, []byte("Found one")) {
		// The JVM's deadlock report alone: a paste of it.
		d.prelude.hotspot(dump)
		d.prelude.reset()
		d.lr.Unread()
		return dump
	}
	if pid, ok := parseSAAttach(line); ok {
		// The serviceability agent's forced dump (jstack -F, jhsdb jstack).
		dump.Source.Target = pid
		d.sa = true
		d.prelude.reset()
		return dump
	}
	if len(line) == 0 {
		return nil
	}
	if c := line[0]; c == '*' || c == '_' {
		if h := cutEmphasis(line); h != nil {
			line = h
		}
	}
	h, ok := parseJVMHeader(line)
	if !ok {
		h, ok = parseSAThreadHeader(line)
	}
	if !ok {
		var k int
		if k, h = headerIn(line); k < 0 || h.toFile {
			return nil
		}
	}
	if h.toFile {
		d.prelude.toFile(dump)
	} else {
		d.prelude.hotspot(dump)
	}
	d.prelude.reset()
	d.lr.Unread()
	return dump
}

func (d *jvmTextDecoder) NextRoutine() (*stack.Routine, error) {
	for {
		if len(d.errs) > 0 {
			pe := d.errs[0]
			d.errs = d.errs[1:]
			return nil, pe
		}
		if len(d.queue) > 0 {
			r := d.queue[0]
			d.queue = d.queue[1:]
			d.d.Total += r.Count
			return r, nil
		}
		if d.ended || d.d == nil {
			d.ended = true
			return nil, codec.ErrEndOfDump
		}
		ln, err := d.lr.Read()
		line := ln.Text
		if err == io.EOF {
			d.eof = true
			pe := d.endOfInput(true)
			d.endDump()
			if pe != nil {
				d.errs = append(d.errs, pe)
			}
			if pe := d.orphanWarning(); pe != nil {
				d.errs = append(d.errs, pe)
			}
			continue
		}
		if err == codec.ErrLineTooLong {
			return nil, d.lr.TooLongError()
		}
		if err == codec.ErrRegionEnd {
			// The paste's region ends: so does the dump.
			pe := d.endOfInput(false)
			d.endDump()
			if pe != nil {
				d.errs = append(d.errs, pe)
			}
			if pe := d.orphanWarning(); pe != nil {
				d.errs = append(d.errs, pe)
			}
			continue
		}
		if err == codec.ErrGap {
			return nil, d.gap("grep's -- group separator", []byte("--"))
		}
		if err != nil {
			// Keep what was read: the dump ends here, truncated.
			d.readErr, d.eof, d.d.Truncated = err, true, true
			d.endDump()
			return nil, &stack.ParseError{Line: ln.Num, Offset: ln.Off, Msg: "dump truncated: reading stopped: " + err.Error(), Err: err}
		}
		if ln.NoEOL || ln.Last {
			if pe := d.lastLine(line); pe != nil {
				return nil, pe
			}
		}
		d.last = linePos{ln.Num, ln.Off}
		if perr := d.line(line); perr != nil {
			return nil, perr
		}
	}
}

// lastLine judges line, the last line of the input or of a paste region,
// before it is read: a piece of a thread line is dropped, a header cut
// short is read and marked cut; either marks the dump truncated and
// returns the warning that says so.
func (d *jvmTextDecoder) lastLine(line []byte) *stack.ParseError {
	if d.partialLine(line) {
		return d.cut(line, d.lr.Line().NoEOL)
	}
	if !cutHeader(line) {
		return nil
	}
	// The header says who the thread is; the rest was cut.
	if perr := d.line(line); perr != nil {
		d.errs = append(d.errs, perr)
	}
	d.last = linePos{d.lr.Num(), d.lr.Line().Off}
	d.d.Truncated = true
	if d.cur != nil {
		d.cur.cut = true
	}
	return d.lr.ParseError("dump truncated: the input ends inside a thread's header; what it says is kept")
}

// endDump finishes the current thread and marks the end of the dump.
func (d *jvmTextDecoder) endDump() {
	d.finish()
	d.ended = true
}

// line handles one line inside a dump. It returns a *ParseError for a
// line it cannot place; reading goes on.
func (d *jvmTextDecoder) line(line []byte) *stack.ParseError {
	trim := bytes.TrimLeft(line, " \t")
	if len(trim) == 0 {
		if d.cur != nil {
			d.cur.blank = true
		}
		d.name.head = d.name.head[:0]
		return nil
	}
	if d.inForeign(line) {
		return nil
	}
	if k := foreignStart(line); k != foreignNone {
		d.finish()
		return d.startForeign(k, line)
	}
	if d.nameContinues(line) {
		return nil
	}
	if c := line[0]; c == '*' || c == '_' {
		if h := cutEmphasis(line); h != nil {
			line = h // a header whose name a paste made bold or italic
		}
	}
	indented := len(trim) < len(line)
	if !indented && bytes.HasPrefix(line, []byte("Full thread dump")) {
		d.lr.Unread()
		d.endDump()
		return nil
	}
	switch d.ph {
	case jvmPhaseDeadlock, jvmPhaseDeadlockStacks:
		return d.deadlockLine(line)
	}
	if c := trim[0]; c == '-' || c == '.' || c == '[' || c == 0xE2 { // 0xE2: "…"
		if string(trim) == "--" {
			return d.gap("grep's -- group separator", trim)
		}
		if isEllipsis(trim) && !((indented || d.flat) && string(trim) == "...") {
			// Lines a person cut out of the paste ("....." or "[...]"; an
			// indented "..." is the JVM's own elision).
			return d.gap("an ellipsis in place of lines", trim)
		}
	}
	if !indented && d.cur != nil && d.ph == jvmPhaseThreads && flatThreadLine(line) {
		// Flattened text: a thread line that lost its indentation (the
		// agent prints its synchronizers' heading so).
		indented = true
		d.flat = d.flat || !(d.sa && bytes.HasPrefix(line, []byte("Locked ownable synchronizers:")))
	}
	if indented {
		if d.cur == nil || d.ph != jvmPhaseThreads {
			if d.ph == jvmPhaseThreads && isOrphanLine(line) {
				d.orphan()
			}
			d.prelude.add(line)
			return nil
		}
		d.prelude.reset()
		return d.threadLine(line, trim)
	}
	switch line[0] {
	case '"', '#':
		if h, ok := parseJVMHeader(line); ok {
			if d.ph != jvmPhaseThreads || (h.toFile && d.prelude.isToFile()) {
				d.lr.Unread()
				d.endDump()
				return nil
			}
			return d.startHeader(h)
		}
		if line[0] == '"' && d.ph == jvmPhaseThreads {
			d.name.head = append(d.name.head[:0], line...)
			d.name.lines, d.name.first = 1, d.lr.Num()
		}
	case 'T':
		if h, ok := parseSAThreadHeader(line); ok && d.ph == jvmPhaseThreads {
			d.sa = true
			return d.startHeader(h)
		}
	case 'A':
		if _, ok := parseSAAttach(line); ok && (d.threads > 0 || len(d.queue) > 0 || d.d.Total > 0) {
			d.lr.Unread()
			d.endDump()
			return nil
		}
	case 'J':
		if bytes.HasPrefix(line, []byte("JNI global ref")) {
			d.finish()
			d.ph = jvmPhaseAfter
			return nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("JVM version is ")); ok && d.threads == 0 && d.d.Source.Runtime == "" {
			d.d.Source.Runtime = string(bytes.TrimSpace(v)) // the agent's dump
			return nil
		}
	case 'F':
		if isJVMDeadlockLine(line) {
			d.finish()
			return d.deadlockLine(line)
		}
	}
	if k := d.other.forms.StartForm(line); k != "" {
		if d.other.handOver {
			// A dump of another form: this one ends here.
			d.other.start = d.other.held.HandOver(d.lr, k, line)
			d.endDump()
			d.eof = true
			return nil
		}
		if k != d.other.skipping {
			d.other.skipping = k
			d.finish()
			return d.lr.ParseError("a " + string(k) + " dump starts here; the JVM text reader skips it as other text")
		}
	}
	d.other.held.Add(line, d.lr.Num(), d.lr.Line().Off)
	if k, h := headerIn(line); k > 0 && d.ph == jvmPhaseThreads && !h.toFile {
		// A thread header after text a paste or a logger put before it.
		d.prelude.reset()
		d.finish()
		d.start(h)
		if pe := d.orphanWarning(); pe != nil {
			return pe
		}
		if !isFramePrefix(line[:k]) {
			return d.lr.ParseError(fmt.Sprintf("thread header after other text on its line; the text before it (%q) is set aside", line[:k]))
		}
		return nil
	}
	// Junk: log lines, the Threads class SMR list, a Heap summary, a class
	// histogram. A junk line right inside a thread block is reported when
	// the thread goes on after it (it broke into the block); junk after
	// the thread's last line (a log line, a prompt, text after a paste)
	// is not. After a blank line junk ends the thread, so that the lines
	// of, say, a logged exception after it are not taken for its frames.
	if d.cur != nil {
		if !d.cur.blank {
			d.prelude.add(line)
			d.cur.junk = append(d.cur.junk, d.lr.ParseError("unexpected line in a thread block"))
			return nil
		}
		d.finish()
	}
	d.prelude.add(line)
	return nil
}

// startHeader starts the thread of a header line, after the thread before
// it; frames right before it (orphans) say the lines come newest first.
func (d *jvmTextDecoder) startHeader(h jvmHeader) *stack.ParseError {
	d.prelude.reset()
	d.finish()
	reversed := d.orphans.n > 0 && d.orphans.last == d.lr.Num()-1 && !d.reversed
	d.start(h)
	if reversed {
		// Its frames came before its header: newest line first.
		d.reversed = true
		d.errs = append(d.errs, d.lr.ParseError("the lines look reversed (newest first, as a log viewer shows them): threads are read without their frames; reverse the input (tac) to read it"))
	}
	return d.orphanWarning()
}

// nameContinues joins line to a thread name begun on earlier lines
// (nameHead) and, when the joined lines make a thread header, starts that
// thread and reports true. Otherwise the line is read as usual.
func (d *jvmTextDecoder) nameContinues(line []byte) bool {
	if len(d.name.head) == 0 {
		return false
	}
	if d.ph != jvmPhaseThreads {
		d.name.head = d.name.head[:0]
		return false
	}
	d.name.head = append(append(d.name.head, '\n'), line...)
	d.name.lines++
	h, ok := parseJVMHeader(d.name.head)
	if !ok || h.toFile {
		if _, alone := parseJVMHeader(line); alone || d.name.lines >= jvmMaxNameLines {
			// A header on its own line starts its own thread (read as
			// usual): the lines before it were no name, and no line is
			// read as part of two threads.
			d.name.head = d.name.head[:0]
		}
		return false
	}
	d.name.head = d.name.head[:0]
	d.prelude.reset()
	d.finish()
	d.start(h)
	d.cur.r.Line = d.name.first
	return true
}

// isJVMDeadlockLine matches "Found one Java-level deadlock:", "Found N
// deadlocks." and "Found a total of N deadlocks.".
func isJVMDeadlockLine(line []byte) bool {
	return bytes.HasPrefix(line, []byte("Found ")) && bytes.Contains(line, []byte("deadlock"))
}

// deadlockLine keeps the cycle part of a deadlock report in Preamble and
// skips its "Java stack information" part, which repeats the stacks.
func (d *jvmTextDecoder) deadlockLine(line []byte) *stack.ParseError {
	switch {
	case isJVMDeadlockLine(line):
		d.finish()
		d.d.Preamble = append(d.d.Preamble, string(line))
		d.ph = jvmPhaseDeadlock
		if !bytes.HasPrefix(line, []byte("Found one")) {
			d.ph = jvmPhaseAfter
			if d.threads == 0 && len(d.queue) == 0 && d.d.Total == 0 && d.d.Source.Runtime != "" && !d.reportOnly {
				// The agent's dump (jstack -F) prints its report before
				// the threads.
				d.ph = jvmPhaseThreads
			}
		}
	case bytes.HasPrefix(line, []byte("Java stack information")):
		d.ph = jvmPhaseDeadlockStacks
		if d.threads == 0 && len(d.queue) == 0 && d.d.Total == 0 {
			// The report alone: its stack part is all the threads there are.
			d.reportOnly = true
			return d.lr.ParseError("only the JVM's deadlock report is in the input: its threads are read from its stack part (no ids; states inferred from the lock they wait for)")
		}
	case d.ph == jvmPhaseDeadlock:
		d.d.Preamble = append(d.d.Preamble, string(bytes.TrimRight(line, " \t\r")))
	case d.reportOnly:
		return d.reportThreadLine(line)
	default:
		// Stack part: a real thread header here starts the next dump.
		if line[0] == '"' {
			if _, ok := parseJVMHeader(line); ok {
				d.lr.Unread()
				d.endDump()
			}
		}
	}
	return nil
}

// reportThreadLine reads a line of the stack part of a deadlock report
// that is all the input holds: `"name":` starts a thread, its frame and
// lock lines follow.
func (d *jvmTextDecoder) reportThreadLine(line []byte) *stack.ParseError {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) > 2 && t[0] == '"' && bytes.HasSuffix(t, []byte(`":`)):
		d.finish()
		d.start(jvmHeader{name: t[1 : len(t)-2]})
		d.cur.bracket = true // a Java thread: its state is inferred when it ends
		return nil
	case d.cur != nil && (len(line) > len(t) || flatThreadLine(t)):
		return d.threadLine(line, t)
	case t[0] == '"':
		if _, ok := parseJVMHeader(t); ok {
			d.reportOnly = false
			d.lr.Unread()
			d.endDump()
		}
	}
	return nil
}

// start begins a thread from its header.
func (d *jvmTextDecoder) start(h jvmHeader) {
	d.threads++
	b := &d.bufs[0]
	b.reset()
	b.headerEnd = d.lr.Num()
	alloc := new(jvmRoutineAlloc)
	r := &alloc.r
	r.Count, r.Line, r.ID = 1, d.lr.Num(), h.id
	r.Name = string(h.name)
	alloc.th = h.th
	alloc.th.Detail = string(h.detail)
	r.Thread = &alloc.th
	if len(h.state) > 0 {
		r.State = d.t.Bytes(h.state)
		b.hasState = true
	}
	b.r, b.hasID, b.bracket, b.toFile, b.threadInfo = r, h.hasID, h.bracket, h.toFile, h.threadInfo
	if len(h.lock) > 0 {
		b.headLock, b.hasHeadLock = d.headLock(r.State, h.lock), true
	}
	d.cur, d.dst, d.vt = b, b, nil
}

// jvmRoutineAlloc allocates a routine and its thread together.
type jvmRoutineAlloc struct {
	r  stack.Routine
	th stack.Thread
}

// headLock turns the object of "WAITING on X" (VisualVM state lines,
// ThreadInfo headers) into the lock line HotSpot would print under the
// top frame: waiting to lock when BLOCKED, parking for java.util.concurrent
// synchronizers, waiting on (Object.wait) otherwise.
func (d *jvmTextDecoder) headLock(state string, obj []byte) stack.Lock {
	l := stack.Lock{Kind: stack.LockWaitOn}
	l.Addr, l.Class = parseJVMObject(obj)
	switch {
	case state == "BLOCKED":
		l.Kind = stack.LockWaitEnter
	case bytes.HasPrefix(obj, []byte("java.util.concurrent.")):
		l.Kind = stack.LockParked
	}
	return l
}

// threadLine handles an indented line of the current thread; junk lines
// met inside the thread before it are reported first.
func (d *jvmTextDecoder) threadLine(line, trim []byte) *stack.ParseError {
	if junk := d.cur.junk; len(junk) > 0 {
		d.cur.junk = nil
		if pe := d.threadLineOf(line, trim); pe != nil {
			junk = append(junk, pe)
		}
		d.errs = append(d.errs, junk[1:]...)
		return junk[0]
	}
	return d.threadLineOf(line, trim)
}

func (d *jvmTextDecoder) threadLineOf(line, trim []byte) *stack.ParseError {
	b := d.cur
	switch {
	case bytes.HasPrefix(trim, []byte("at ")):
		return d.frame(line, trim[3:])
	case isSAFrame(trim):
		return d.saFrame(trim[2:])
	case bytes.HasPrefix(trim, []byte("JavaThread state: ")):
		// The agent's VM state of the thread: not modelled.
	case trim[0] == '-' && len(trim) > 1 && (trim[1] == ' ' || trim[1] == '\t'):
		return d.lock(trim[2:])
	case bytes.HasPrefix(trim, []byte("java.lang.Thread.State:")):
		st := bytes.TrimSpace(trim[len("java.lang.Thread.State:"):])
		// VisualVM: "TIMED_WAITING on java.util.TaskQueue@7311acb7".
		if i := bytes.Index(st, []byte(" on ")); i > 0 && bytes.IndexByte(st[:i], '(') < 0 {
			b.r.State = d.t.Bytes(st[:i])
			b.headLock, b.hasHeadLock = d.headLock(b.r.State, st[i+4:]), true
		} else {
			b.r.State = d.t.Bytes(st)
		}
		b.hasState = true
	case bytes.HasPrefix(trim, []byte("Locked ownable synchronizers:")),
		bytes.HasPrefix(trim, []byte("Number of locked synchronizers")):
		b.inSync = true
	case bytes.HasPrefix(trim, []byte("Carrying virtual thread #")):
		d.mount(trim[len("Carrying virtual thread #"):])
	case bytes.HasPrefix(trim, []byte("Mounted virtual thread #")):
		d.mount(trim[len("Mounted virtual thread #"):])
		d.dst = d.vt
	case string(trim) == "...":
		d.dst.elided, d.dst.elidedAt = true, len(d.dst.frames)
	case bytes.HasPrefix(trim, []byte("No compile task")), bytes.HasPrefix(trim, []byte("Compiling:")):
		// Compiler thread status: not modelled.
	case b.toFile:
		return d.frame(line, trim)
	default:
		if !b.blank {
			return d.lr.ParseError("unexpected line in a thread block")
		}
	}
	return nil
}

// mount starts (or names) the virtual thread mounted on the current carrier.
func (d *jvmTextDecoder) mount(idText []byte) {
	id, _ := jvmAtoi(bytes.TrimSpace(idText))
	if d.vt == nil {
		v := &d.bufs[1]
		v.reset()
		alloc := new(jvmRoutineAlloc)
		alloc.r.Count, alloc.r.Line, alloc.r.ID = 1, d.lr.Num(), id
		alloc.th.Virtual, alloc.th.Carrier = true, d.cur.r.ID
		alloc.r.Thread = &alloc.th
		v.r, v.hasID = &alloc.r, true
		d.vt = v
	}
	if d.vt.r.ID == 0 {
		d.vt.r.ID = id
	}
}

// frame adds a frame line ("at …" or a bare StackTraceElement).
func (d *jvmTextDecoder) frame(line, text []byte) *stack.ParseError {
	return d.addFrame(text, parseJVMFrame)
}

// saFrame adds one of the serviceability agent's frames (sa.go).
func (d *jvmTextDecoder) saFrame(text []byte) *stack.ParseError {
	d.sa = true
	return d.addFrame(text, parseSAFrame)
}

// addFrame adds the frame parse reads from text, cached by its text.
func (d *jvmTextDecoder) addFrame(text []byte, parse func([]byte) (stack.Frame, bool)) *stack.ParseError {
	f, ok := d.cache.frames[string(text)]
	if !ok {
		pf, ok := parse(text)
		if !ok {
			return d.lr.ParseError("malformed frame")
		}
		f = d.t.Frame(pf)
		d.cache.frames[string(text)] = f
	}
	b := d.dst
	if b.inSync {
		return d.lr.ParseError("frame after the ownable synchronizers")
	}
	d.frameNum = d.lr.Num()
	b.frames = append(b.frames, f)
	b.blank = false
	d.cur.blank = false
	return nil
}

// lock adds a lock line to the last frame, or to the ownable
// synchronizers after "Locked ownable synchronizers:".
func (d *jvmTextDecoder) lock(text []byte) *stack.ParseError {
	l, ok := d.cache.locks[string(text)]
	if !ok {
		var parsed bool
		l, parsed = parseJVMLock(text)
		if !parsed {
			if string(bytes.TrimSpace(text)) == "None" {
				return nil
			}
			// ThreadInfo's synchronizer list: "- java.util…NonfairSync@1b6d3586".
			if !d.cur.inSync || bytes.IndexByte(text, '@') <= 0 {
				return d.lr.ParseError("malformed lock line")
			}
			l = stack.Lock{Kind: stack.LockOwnable}
			l.Addr, l.Class = jvmSplitIdentity(text)
		}
		l.Addr, l.Class = d.t.String(l.Addr), d.t.String(l.Class)
		d.cache.locks[string(text)] = l
	}
	if d.cur.inSync {
		l.Kind = stack.LockOwnable
		d.cur.sync = append(d.cur.sync, l)
		return nil
	}
	b := d.dst
	if l.Kind == stack.LockOwnable {
		return d.lr.ParseError("ownable synchronizer outside its section")
	}
	if len(b.frames) == 0 {
		return d.lr.ParseError("lock line before any frame")
	}
	if b.threadInfo && l.Kind == stack.LockWaitOn && strings.HasPrefix(l.Class, "java.util.concurrent.") {
		l.Kind = stack.LockParked
	}
	b.locks = append(b.locks, l)
	b.lockAt = append(b.lockAt, int32(len(b.frames)-1))
	b.vkey = binary.AppendUvarint(b.vkey, uint64(len(b.frames)))
	b.vkey = append(b.vkey, text...)
	b.vkey = append(b.vkey, 0)
	return nil
}

// finish turns the current thread (and its mounted virtual thread) into
// routines on the queue.
func (d *jvmTextDecoder) finish() {
	if d.cur == nil {
		return
	}
	if d.vt != nil {
		// HotSpot prints neither a carrier's state nor its virtual thread's.
		if !d.cur.hasState {
			d.cur.r.State = stack.StateCarrier
		}
		d.vt.r.State = stack.StateMounted
	}
	d.queue = append(d.queue, d.build(d.cur))
	if d.vt != nil {
		d.queue = append(d.queue, d.build(d.vt))
	}
	d.cur, d.vt, d.dst = nil, nil, nil
}

// build interns a thread's stack and values into its routine.
func (d *jvmTextDecoder) build(b *jvmThreadBuilder) *stack.Routine {
	r := b.r
	if b.hasHeadLock && len(b.frames) > 0 && !b.waitsAtTop() {
		b.locks = append(b.locks, stack.Lock{})
		copy(b.locks[1:], b.locks)
		b.locks[0] = b.headLock
		b.lockAt = append(b.lockAt, 0)
		copy(b.lockAt[1:], b.lockAt)
		b.lockAt[0] = 0
	} else if b.hasHeadLock && len(b.frames) == 0 && b.headLock.Addr+b.headLock.Class != "" {
		// No frame to carry it: keep the state as written.
		r.State = d.t.String(r.State + " on " + b.headLock.Class + b.headLock.Addr)
	}
	r.Stack = d.t.Stack(b.frames, stack.Elision{Elided: b.elided, At: b.elidedAt})
	// Lock lines alone decide the values, except where the header adds a
	// lock or ThreadInfo reads "waiting on" as parking.
	if len(b.locks) > 0 && !b.hasHeadLock && !b.threadInfo {
		b.vkey = binary.AppendUvarint(b.vkey, uint64(len(b.frames)))
		if fv, ok := d.cache.fvals[string(b.vkey)]; ok {
			r.Values = fv
		} else {
			r.Values = d.values(b)
			d.cache.fvals[string(b.vkey)] = r.Values
		}
	} else if len(b.locks) > 0 {
		r.Values = d.values(b)
	}
	if len(b.sync) > 0 {
		r.Thread.Synchronizers = append([]stack.Lock(nil), b.sync...)
	}
	if d.reportOnly && r.State == "" {
		r.State, r.Inferred = reportedState(b.locks), []string{"state"}
	}
	// A thread cut short is not taken for a VM thread for lack of lines.
	r.Thread.Native = !b.hasID && !b.hasState && len(b.frames) == 0 && !b.bracket && !b.toFile && !r.Thread.Virtual && !b.cut
	if r.Thread.Native {
		r.State = stack.StateVMThread
	}
	return r
}

// values interns a thread's lock lines as frame values.
func (d *jvmTextDecoder) values(b *jvmThreadBuilder) *stack.FrameValues {
	vs := d.cache.scratch[:0]
	for range b.frames {
		vs = append(vs, stack.FrameValue{})
	}
	for i := 0; i < len(b.locks); {
		j := i
		for j < len(b.locks) && b.lockAt[j] == b.lockAt[i] {
			j++
		}
		vs[b.lockAt[i]].Locks = b.locks[i:j]
		i = j
	}
	fv := d.t.Values(vs)
	clear(vs)
	d.cache.scratch = vs[:0]
	return fv
}

// jvmThreadBuilder gathers one thread's lines; two are reused (carrier
// and mounted virtual thread).
type jvmThreadBuilder struct {
	r          *stack.Routine
	hasID      bool
	hasState   bool
	bracket    bool // header ends with "[0x…]": a Java thread
	toFile     bool // Thread.dump_to_file: bare StackTraceElement frames
	threadInfo bool // ThreadInfo.toString: "waiting on" a j.u.c lock is parking
	inSync     bool // after "Locked ownable synchronizers:"
	// junk holds the warnings for junk lines met since the last line of
	// the thread: they are reported if the thread goes on after them.
	junk        []*stack.ParseError
	blank       bool // a blank line since the last frame
	elided      bool
	elidedAt    int
	hasHeadLock bool
	headLock    stack.Lock
	headerEnd   int  // the number of the header's last line
	cut         bool // the input ends inside the thread
	frames      []*stack.Frame
	locks       []stack.Lock
	lockAt      []int32 // frame index of each lock
	sync        []stack.Lock
	vkey        []byte // frame index and text of each lock line: the values' cache key
}

func (b *jvmThreadBuilder) reset() {
	*b = jvmThreadBuilder{frames: b.frames[:0], locks: b.locks[:0], lockAt: b.lockAt[:0], sync: b.sync[:0], vkey: b.vkey[:0], junk: b.junk[:0]}
}

// waitsAtTop reports whether the top frame already has a wait lock line.
func (b *jvmThreadBuilder) waitsAtTop() bool {
	for i, l := range b.locks {
		if b.lockAt[i] != 0 {
			break
		}
		switch l.Kind {
		case stack.LockWaitOn, stack.LockWaitEnter, stack.LockParked:
			return true
		}
	}
	return false
}
