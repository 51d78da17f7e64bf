package jvm

import (
	"io"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// jvmTextEncoder writes dumps in jstack form, which the JVM text reader
// reads back to the same model:
//
//	6835:
//	2026-11-30 10:15:40
//	Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):
//
//	"main" #1 prio=5 os_prio=0 cpu=58.52ms elapsed=5.10s tid=0x… nid=0x1ab5 waiting on condition  [0x…]
//	   java.lang.Thread.State: TIMED_WAITING (sleeping)
//		at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
//		- locked <0x…> (a java.lang.Object)
//
//	   Locked ownable synchronizers:
//		- <0x…> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)
//
//	Found one Java-level deadlock:          (Preamble lines, at the end as the JVM prints them)
//
// A virtual thread that follows its carrier (as the reader yields a
// "Mounted virtual thread #N" section) is written inside the carrier's
// block; other virtual threads get a header of their own with the word
// "virtual", which HotSpot never prints but the reader accepts. Routines
// are formatted into one reusable buffer that is handed to w in large
// chunks; the encoder never flushes w.
type jvmTextEncoder struct {
	w   io.Writer
	buf []byte
	// pend is a possible carrier, held back until the next routine shows
	// whether a virtual thread is mounted on it.
	pend *stack.Routine
}

func newJVMTextEncoder(w io.Writer) stack.Encoder {
	return &jvmTextEncoder{w: w, buf: make([]byte, 0, 2*codec.WriteChunkSize)}
}

func (e *jvmTextEncoder) BeginDump(d *stack.Dump) error {
	b := e.buf
	if pid := d.Source.Target; pid != "" {
		if _, ok := jvmAtoi([]byte(pid)); ok {
			b = append(b, pid...)
			b = append(b, ":\n"...)
		}
	}
	if at := d.Source.CapturedAt; !at.IsZero() {
		b = at.UTC().AppendFormat(b, "2006-01-02 15:04:05.999999999")
		b = append(b, '\n')
	}
	b = append(b, "Full thread dump"...)
	if rt := d.Source.Runtime; rt != "" {
		// A runtime the reader would take for the HP-UX date ("[…]") or
		// unwrap ("(…)") is written in parentheses, which it removes.
		wrap := rt[0] == '[' || rt[0] == '(' && rt[len(rt)-1] == ')'
		b = append(b, ' ')
		if wrap {
			b = append(b, '(')
		}
		b = append(b, rt...)
		if wrap {
			b = append(b, ')')
		}
	}
	b = append(b, ":\n\n"...)
	e.buf = b
	return e.flushIfFull()
}

func (e *jvmTextEncoder) WriteRoutine(r *stack.Routine) error {
	if p := e.pend; p != nil {
		e.pend = nil
		if mountable(p, r) {
			e.buf = e.appendThread(e.buf, p, r)
			return e.flushIfFull()
		}
		e.buf = e.appendThread(e.buf, p, nil)
	}
	if th := r.Thread; th != nil && !th.Virtual && !th.Native && (r.State == "" || r.State == stack.StateCarrier) && r.ID != 0 {
		e.pend = r
		return e.flushIfFull()
	}
	e.buf = e.appendThread(e.buf, r, nil)
	return e.flushIfFull()
}

// mountable reports whether v can be written as the virtual thread mounted
// on carrier c: the carrier section carries only its id and stack.
func mountable(c, v *stack.Routine) bool {
	th := v.Thread
	return th != nil && th.Virtual && th.Carrier == c.ID && v.ID != 0 && v.Name == "" && (v.State == "" || v.State == stack.StateMounted) &&
		th.Detail == "" && len(th.Synchronizers) == 0 && !th.Daemon && th.Priority == 0 && th.OSID == 0 &&
		th.CPU == 0 && th.Elapsed == 0 && th.Container == "" && v.Values == nil
}

func (e *jvmTextEncoder) EndDump(d *stack.Dump) error {
	if p := e.pend; p != nil {
		e.pend = nil
		e.buf = e.appendThread(e.buf, p, nil)
	}
	b := e.buf
	prev := ""
	for _, line := range d.Preamble {
		// The reader keeps the deadlock report without its blank lines;
		// put them back where HotSpot prints them.
		if strings.HasPrefix(line, "Found ") || (strings.HasPrefix(line, `"`) && !strings.HasPrefix(prev, "====")) {
			b = append(b, '\n')
		}
		b = append(b, line...)
		b = append(b, '\n')
		prev = line
	}
	if len(d.Preamble) > 0 {
		b = append(b, '\n')
	}
	e.buf = b
	return e.flush()
}

// flushIfFull hands the buffer to w once it is large.
func (e *jvmTextEncoder) flushIfFull() error {
	if len(e.buf) < codec.WriteChunkSize {
		return nil
	}
	return e.flush()
}

// flush hands whatever the buffer holds to w.
func (e *jvmTextEncoder) flush() (err error) {
	e.buf, err = codec.WriteRest(e.w, e.buf)
	return err
}

// appendThread writes one thread block; v, when not nil, is the virtual
// thread mounted on r.
func (e *jvmTextEncoder) appendThread(b []byte, r *stack.Routine, v *stack.Routine) []byte {
	th := r.Thread
	if th == nil {
		th = &stack.Thread{}
	}
	b = appendJVMHeader(b, r, th)
	switch {
	case v != nil:
		b = append(b, "   Carrying virtual thread #"...)
		b = strconv.AppendInt(b, v.ID, 10)
		b = append(b, '\n')
	case r.State != "" && !(th.Native && r.State == stack.StateVMThread):
		b = append(b, "   java.lang.Thread.State: "...)
		b = append(b, r.State...)
		b = append(b, '\n')
	}
	b = appendJVMFrames(b, r)
	if v != nil && len(v.Frames()) > 0 {
		b = append(b, "   Mounted virtual thread #"...)
		b = strconv.AppendInt(b, v.ID, 10)
		b = append(b, '\n')
		b = appendJVMFrames(b, v)
	}
	if len(th.Synchronizers) > 0 {
		b = append(b, "\n   Locked ownable synchronizers:\n"...)
		for _, l := range th.Synchronizers {
			b = append(b, "\t- "...)
			l.Kind = stack.LockOwnable
			b = appendJVMLockObject(b, l)
			b = append(b, '\n')
		}
	}
	return append(b, '\n')
}

// appendJVMHeader writes `"name" #id [osid] virtual daemon prio=5 os_prio=0
// cpu=…ms elapsed=…s <detail>`, the tokens in the order the reader takes
// them (see jvmTokenPos).
func appendJVMHeader(b []byte, r *stack.Routine, th *stack.Thread) []byte {
	b = append(b, '"')
	b = append(b, r.Name...)
	b = append(b, '"')
	last := -1 // position of the last token written
	// A thread with no id, state, frames or "[0x…]" reads back as a
	// native (VM) thread; a Java thread without an id gets "#0".
	if r.ID != 0 || (!th.Native && !th.Virtual && r.State == "" && len(r.Frames()) == 0 && !strings.HasSuffix(th.Detail, "]")) {
		b = append(b, " #"...)
		b = strconv.AppendInt(b, r.ID, 10)
		last = jvmPosID
	}
	nid := strings.Index(th.Detail, "nid=")
	if th.OSID != 0 && (nid < 0 || (r.ID != 0 && !strings.HasPrefix(th.Detail[nid+4:], "0x"))) {
		// JDK 21+ prints the OS id in brackets and as a decimal nid.
		if last < 0 {
			// "[osId]" alone after the name does not make a header.
			b = append(b, " #0"...)
		}
		b = append(b, " ["...)
		b = strconv.AppendInt(b, th.OSID, 10)
		b = append(b, ']')
		last = jvmPosOSID
	}
	if th.Virtual {
		b = append(b, " virtual"...)
		last = jvmPosVirtual
	}
	if th.Daemon {
		b = append(b, " daemon"...)
		last = jvmPosDaemon
	}
	if th.Priority != 0 {
		b = append(b, " prio="...)
		b = strconv.AppendInt(b, int64(th.Priority), 10)
		last = jvmPosPrio
	}
	timed := th.CPU != 0 || th.Elapsed != 0
	// os_prio arrived in JDK 8 together with "#id"; JDK 11 added cpu=.
	if th.OSPrio != 0 || timed || (r.ID != 0 && th.Priority != 0 && strings.Contains(th.Detail, "tid=")) ||
		(th.Native && th.Priority == 0 && strings.HasPrefix(th.Detail, "tid=")) || last < 0 {
		b = append(b, " os_prio="...)
		b = strconv.AppendInt(b, int64(th.OSPrio), 10)
		last = jvmPosOSPrio
	}
	// A detail starting with a token word the reader would still take gets
	// cpu= and elapsed= before it, after which no token is read.
	word, _, _ := strings.Cut(th.Detail, " ")
	if timed || jvmTokenPos([]byte(word)) > last {
		b = append(b, " cpu="...)
		b = jvmAppendFixed(b, th.CPU, 1e6)
		b = append(b, "ms elapsed="...)
		b = jvmAppendFixed(b, th.Elapsed, 1e9)
		b = append(b, 's')
	}
	if th.Detail != "" {
		b = append(b, ' ')
		b = append(b, th.Detail...)
	}
	return append(b, '\n')
}

// appendJVMFrames writes `	at Func(module/File.java:12)` lines, each
// followed by its lock lines.
func appendJVMFrames(b []byte, r *stack.Routine) []byte {
	frames := r.Frames()
	for i, f := range frames {
		if r.Stack.Elided && r.Stack.ElidedAt == i {
			b = append(b, "\t...\n"...)
		}
		b = append(b, "\tat "...)
		b = append(b, f.Func...)
		b = append(b, '(')
		if f.Module != "" {
			b = append(b, f.Module...)
			b = append(b, '/')
		}
		switch {
		case f.Native:
			b = append(b, "Native Method"...)
		case f.File == "":
			b = append(b, "Unknown Source"...)
			if f.Line > 0 {
				// A frame of the serviceability agent's dump has a line
				// and no file (jstack -F): keep the line.
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(f.Line), 10)
			}
		default:
			b = append(b, f.File...)
			if f.Line > 0 {
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(f.Line), 10)
			}
		}
		b = append(b, ")\n"...)
		if r.Values != nil && i < len(r.Values.Frames) {
			for _, l := range r.Values.Frames[i].Locks {
				b = appendJVMLockLine(b, l)
			}
		}
	}
	if r.Stack != nil && r.Stack.Elided && r.Stack.ElidedAt >= len(frames) {
		b = append(b, "\t...\n"...)
	}
	return b
}

// appendJVMLockLine writes `	- locked <0x…> (a java.lang.Object)`.
func appendJVMLockLine(b []byte, l stack.Lock) []byte {
	b = append(b, "\t- "...)
	switch l.Kind {
	case stack.LockEliminated:
		if l.Addr == "" && l.Class == "" {
			return append(b, "lock is eliminated\n"...)
		}
		b = append(b, "eliminated "...)
	case stack.LockWaitEnter:
		b = append(b, "waiting to lock "...)
	case stack.LockWaitOn:
		b = append(b, "waiting on "...)
	case stack.LockParked:
		b = append(b, "parking to wait for  "...)
	default:
		b = append(b, "locked "...)
	}
	b = appendJVMLockObject(b, l)
	return append(b, '\n')
}
