package jvm

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// jvmJSONDecoder reads `jcmd <pid> Thread.dump_to_file -format=json` (and
// HotSpotDiagnosticMXBean.dumpThreads JSON) from JDK 21 to 27:
//
//	{"threadDump": {"processId": "3862", "time": "…", "runtimeVersion": "21.0.10+7-LTS",
//	  "threadContainers": [{"container": "<root>", "parent": null, "owner": null,
//	    "threads": [{"tid": "9", "name": "Reference Handler", "stack": ["java.base/…(…)", …]}, …]}, …]}}
//
// JDK 25 adds per thread "state", "virtual", "carrier", "parkBlocker",
// "blockedOn", "waitingOn" and "monitorsOwned"; JDK 27 (formatVersion 2)
// writes the ids as numbers rather than strings. Both are accepted, and
// unknown keys are ignored.
//
// The input is read into memory (bounded by ReadOptions.MaxDecompressedBytes)
// and walked with gjson without unmarshalling it into structs: the thread
// objects are located once, then turned into routines one at a time.
// Several documents in a row are several dumps.
type jvmJSONDecoder struct {
	in     *codec.Stream
	max    int64
	t      *stack.Table
	data   string
	loaded bool
	pos    int // start of the next document in data

	d       *stack.Dump
	doc     string // the current document
	docOff  int    // its offset in data
	threads []jvmJSONThread
	next    int
	// owned maps a thread id to the synchronizers other threads park on
	// with it as "parkBlocker.owner": JSON dumps list no ownable
	// synchronizers, so they are rebuilt from the waiters.
	owned  map[int64][]stack.Lock
	frames map[string]*stack.Frame // by the raw JSON string of the frame
	warns  []*stack.ParseError
	// scratch
	stack []*stack.Frame
	locks []jvmJSONLock
	vs    []stack.FrameValue
	flat  []stack.Lock
}

type jvmJSONThread struct {
	raw       string // the thread object
	container string
}

type jvmJSONLock struct {
	depth int
	lock  stack.Lock
}

func newJVMJSONDecoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	opts = opts.WithDefaults()
	return &jvmJSONDecoder{in: in, max: opts.MaxBytes, t: opts.Table, frames: make(map[string]*stack.Frame)}
}

// load reads the whole input: in chunks of growing size, then into one
// string of the exact size, so the input is copied once and no buffer is
// regrown.
func (j *jvmJSONDecoder) load() error {
	var chunks [][]byte
	var total int64
	for size := 64 << 10; ; size = min(2*size, 16<<20) {
		buf := make([]byte, size)
		n, err := io.ReadFull(j.in.R, buf)
		total += int64(n)
		if total > j.max {
			return stack.ErrTooLarge
		}
		chunks = append(chunks, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading JSON thread dump: %w", err)
		}
	}
	var sb strings.Builder
	sb.Grow(int(total))
	for _, c := range chunks {
		sb.Write(c)
	}
	j.data, j.loaded = sb.String(), true
	return nil
}

func (j *jvmJSONDecoder) NextDump() (*stack.Dump, error) {
	if !j.loaded {
		if err := j.load(); err != nil {
			return nil, err
		}
	}
	// The next document starts at the next '{' opening a line (or the
	// input); anything else between documents is skipped.
	for {
		rest := strings.TrimLeft(j.data[j.pos:], " \t\r\n\ufeff")
		if rest == "" {
			return nil, io.EOF
		}
		j.pos = len(j.data) - len(rest)
		if rest[0] == '{' {
			break
		}
		i := strings.Index(rest, "\n{")
		if i < 0 {
			j.pos = len(j.data)
			return nil, io.EOF
		}
		j.pos += i + 1
	}
	// Usually the rest of the input is one valid document; only otherwise
	// is its end looked for.
	end, complete, valid := len(j.data), true, gjson.Valid(j.data[j.pos:])
	if !valid {
		end, complete = jvmJSONValueEnd(j.data, j.pos)
		valid = gjson.Valid(j.data[j.pos:end])
	}
	j.doc, j.docOff, j.pos = j.data[j.pos:end], j.pos, end
	td := gjson.Get(j.doc, "threadDump")
	if !td.IsObject() {
		return nil, fmt.Errorf("line %d: JSON document without a threadDump object", j.lineAt(j.docOff))
	}
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindJVMJSON}}
	d.Source.Runtime = td.Get("runtimeVersion").String()
	d.Source.Target = jvmJSONIDString(td.Get("processId"))
	d.Source.CapturedAt, _ = parseJVMISOTime([]byte(td.Get("time").String()))
	if !valid {
		d.Truncated = !complete
		d.Warnings = append(d.Warnings, &stack.ParseError{Line: j.lineAt(j.docOff), Offset: int64(j.docOff),
			Msg: "malformed or truncated JSON thread dump; reading what can be read"})
	}
	j.threads, j.next = j.threads[:0], 0
	clear(j.owned)
	td.Get("threadContainers").ForEach(func(_, c gjson.Result) bool {
		name := j.t.String(c.Get("container").String())
		c.Get("threads").ForEach(func(_, th gjson.Result) bool {
			j.threads = append(j.threads, jvmJSONThread{raw: th.Raw, container: name})
			if !strings.Contains(th.Raw, `"parkBlocker"`) {
				return true
			}
			if owner := th.Get("parkBlocker.owner"); owner.Exists() && owner.Type != gjson.Null {
				if j.owned == nil {
					j.owned = make(map[int64][]stack.Lock)
				}
				l := j.identityLock(stack.LockOwnable, th.Get("parkBlocker.object"))
				id := owner.Int()
				if !containsLock(j.owned[id], l) {
					j.owned[id] = append(j.owned[id], l)
				}
			}
			return true
		})
		return true
	})
	j.d = d
	return d, nil
}

func (j *jvmJSONDecoder) NextRoutine() (*stack.Routine, error) {
	if len(j.warns) > 0 {
		w := j.warns[0]
		j.warns = j.warns[1:]
		return nil, w
	}
	if j.d == nil || j.next >= len(j.threads) {
		return nil, codec.ErrEndOfDump
	}
	th := j.threads[j.next]
	j.threads[j.next] = jvmJSONThread{}
	j.next++
	r := j.routine(th)
	j.d.Total += r.Count
	return r, nil
}

// routine turns one thread object into a routine.
func (j *jvmJSONDecoder) routine(jt jvmJSONThread) *stack.Routine {
	alloc := new(jvmRoutineAlloc)
	r, th := &alloc.r, &alloc.th
	r.Count, r.Thread, th.Container = 1, th, jt.container
	frames := j.stack[:0]
	locks := j.locks[:0]
	thread := gjson.Parse(jt.raw)
	thread.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "tid":
			r.ID = v.Int()
		case "name":
			r.Name = strings.Clone(v.String())
		case "state":
			r.State = j.t.String(v.String())
		case "virtual":
			th.Virtual = v.Bool()
		case "carrier":
			th.Carrier = v.Int()
		case "time":
			th.Detail = strings.Clone(v.String())
		case "stack":
			jvmJSONStrings(v, func(raw string) {
				if f := j.frame(jt.raw, raw); f != nil {
					frames = append(frames, f)
				}
			})
		case "parkBlocker":
			locks = append(locks, jvmJSONLock{0, j.identityLock(stack.LockParked, v.Get("object"))})
		case "blockedOn":
			locks = append(locks, jvmJSONLock{0, j.identityLock(stack.LockWaitEnter, v)})
		case "waitingOn":
			locks = append(locks, jvmJSONLock{0, j.identityLock(stack.LockWaitOn, v)})
		case "monitorsOwned":
			v.ForEach(func(_, m gjson.Result) bool {
				depth := int(m.Get("depth").Int())
				m.Get("locks").ForEach(func(_, l gjson.Result) bool {
					if l.Type == gjson.Null {
						locks = append(locks, jvmJSONLock{depth, stack.Lock{Kind: stack.LockEliminated}})
					} else {
						locks = append(locks, jvmJSONLock{depth, j.identityLock(stack.LockHeld, l)})
					}
					return true
				})
				return true
			})
		}
		return true
	})
	r.Stack = j.t.Stack(frames, stack.Elision{})
	r.Values = j.values(jt.raw, frames, locks)
	if owned := j.owned[r.ID]; len(owned) > 0 {
		th.Synchronizers = append([]stack.Lock(nil), owned...)
	}
	for i := range locks {
		locks[i] = jvmJSONLock{}
	}
	j.stack, j.locks = frames[:0], locks[:0]
	return r
}

// frame parses and interns one stack element given as its raw JSON
// string, warning about bad ones. Elements are cached by their raw text,
// so a repeated frame is neither unescaped nor parsed again.
func (j *jvmJSONDecoder) frame(thread, raw string) *stack.Frame {
	if f, ok := j.frames[raw]; ok {
		return f
	}
	pf, ok := parseJVMFrame([]byte(gjson.Parse(raw).String()))
	if !ok {
		j.warn(thread, "malformed stack element "+raw)
		return nil
	}
	f := j.t.Frame(pf)
	j.frames[strings.Clone(raw)] = f
	return f
}

// jvmJSONStrings calls fn with the raw text (quotes included) of each
// string of a JSON array, without unescaping them; other elements are
// skipped.
func jvmJSONStrings(arr gjson.Result, fn func(raw string)) {
	s := arr.Raw
	if !arr.IsArray() {
		return
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			k := i + 1
			for k < len(s) && s[k] != '"' {
				if s[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(s) {
				return
			}
			fn(s[i : k+1])
			i = k
		case '{', '[':
			end, _ := jvmJSONValueEnd(s, i)
			i = end - 1
		case ']':
			return
		}
	}
}

// values places lock relations on their frames: waits on the top frame,
// owned monitors at their depth, waits first as jstack prints them.
func (j *jvmJSONDecoder) values(thread string, frames []*stack.Frame, locks []jvmJSONLock) *stack.FrameValues {
	if len(locks) == 0 {
		return nil
	}
	// Stable insertion sort by depth: lists are short.
	for i := 1; i < len(locks); i++ {
		for k := i; k > 0 && locks[k].depth < locks[k-1].depth; k-- {
			locks[k], locks[k-1] = locks[k-1], locks[k]
		}
	}
	vs, flat := j.vs[:0], j.flat[:0]
	for range frames {
		vs = append(vs, stack.FrameValue{})
	}
	for _, l := range locks {
		flat = append(flat, l.lock)
	}
	for i := 0; i < len(locks); {
		k := i
		for k < len(locks) && locks[k].depth == locks[i].depth {
			k++
		}
		if d := locks[i].depth; d >= 0 && d < len(vs) {
			vs[d].Locks = flat[i:k]
		} else {
			j.warn(thread, fmt.Sprintf("lock at depth %d of %s stack dropped", d, words.A(strconv.Itoa(len(frames))+"-frame")))
		}
		i = k
	}
	fv := j.t.Values(vs)
	clear(vs)
	clear(flat)
	j.vs, j.flat = vs[:0], flat[:0]
	return fv
}

// warn queues a warning about a thread object.
func (j *jvmJSONDecoder) warn(thread string, msg string) {
	off := j.docOff
	if i := strings.Index(j.doc, thread); i >= 0 {
		off += i
	}
	j.warns = append(j.warns, &stack.ParseError{Line: j.lineAt(off), Offset: int64(off), Msg: msg})
}

// lineAt returns the 1-based line of a byte offset of the input.
func (j *jvmJSONDecoder) lineAt(off int) int {
	return strings.Count(j.data[:min(off, len(j.data))], "\n") + 1
}

// identityLock makes a lock of an identity string
// ("java.lang.Object@4554617c"), its strings interned.
func (j *jvmJSONDecoder) identityLock(kind stack.LockKind, v gjson.Result) stack.Lock {
	l := stack.Lock{Kind: kind}
	addr, class := jvmSplitIdentity([]byte(v.String()))
	l.Addr, l.Class = j.t.String(addr), j.t.String(class)
	return l
}

func containsLock(ls []stack.Lock, l stack.Lock) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

// jvmJSONIDString returns a long written as a string (JDK 21–26) or a
// number (JDK 27) as text.
func jvmJSONIDString(v gjson.Result) string {
	if v.Type == gjson.Number {
		return v.Raw
	}
	return v.String()
}

// jvmJSONValueEnd returns the offset just past the JSON object or array
// starting at s[i], and whether it is closed before the end of s.
func jvmJSONValueEnd(s string, i int) (int, bool) {
	depth, inStr := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return len(s), false
}
