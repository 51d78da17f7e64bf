package dumpjson

import (
	"time"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// decodeRoutine decodes a goroutine object. Fields of the wrong type are
// reported (deferred) and left unset; the routine is kept.
func (d *jsonDecoder) decodeRoutine(v gjson.Result, off int64) *stack.Routine {
	r := &stack.Routine{Count: 1}
	var frameList, elided gjson.Result
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			r.ID = d.int(off, v, "id")
		case "count":
			r.Count = d.count(off, v, "count", codec.MaxCount)
		case "name":
			r.Name = d.t.String(d.str(off, v, "name"))
		case "state":
			r.State = d.t.String(d.str(off, v, "state"))
		case "wait_minutes":
			r.WaitMinutes = int(d.int(off, v, "wait_minutes"))
		case "locked":
			r.Locked = d.bool(off, v, "locked")
		case "leaked":
			r.Leaked = d.bool(off, v, "leaked")
		case "durable":
			r.Durable = d.bool(off, v, "durable")
		case "scan":
			r.Scan = d.bool(off, v, "scan")
		case "bubble":
			r.Bubble = d.int(off, v, "bubble")
		case "labels":
			r.Labels = d.decodeLabels(off, v, "labels")
		case "gp":
			r.GP, r.HasGP = d.hex(off, v, "gp"), true
		case "m":
			r.M = d.int(off, v, "m")
		case "mp":
			r.MP = d.hex(off, v, "mp")
		case "parent_id":
			r.ParentID = d.int(off, v, "parent_id")
		case "created_by":
			f, fv := d.decodeFrame(off, v, jsonCreatorFields)
			r.CreatedBy = d.t.Frame(f)
			if !jsonValueEmpty(&fv) {
				r.CreatedByValues = d.ownValue(fv)
			}
		case "stack":
			frameList = v
		case "elided":
			elided = v
		case "unavailable":
			r.Unavailable = d.bool(off, v, "unavailable")
		case "ancestors":
			r.Ancestors = d.decodeAncestors(off, v)
		case "inferred":
			r.Inferred = d.strings(off, v, "inferred")
		case "stale":
			r.Stale = d.bool(off, v, "stale")
		case "thread":
			r.Thread = d.decodeThread(off, v)
		case "line":
			r.Line = int(d.int(off, v, "line"))
		}
		return true
	})
	r.Stack, r.Values = d.cachedStack(off, frameList, elided)
	return r
}

// jsonValueEmpty reports whether a frame value holds nothing.
func jsonValueEmpty(v *stack.FrameValue) bool {
	return v.Args == "" && v.FP == 0 && v.SP == 0 && v.PC == 0 && len(v.Locks) == 0
}

// ownValue returns a heap copy of v with its strings interned.
func (d *jsonDecoder) ownValue(v stack.FrameValue) *stack.FrameValue {
	v.Args = d.t.String(v.Args)
	if v.Locks != nil {
		v.Locks = append([]stack.Lock(nil), v.Locks...)
	}
	return &v
}

// jsonStackCacheBytes bounds the raw stack text the decoder remembers;
// past it the cache starts over, so memory does not grow with goroutines
// whose arguments all differ.
const jsonStackCacheBytes = 4 << 20

// jsonCachedStack is a decoded "stack" with its values.
type jsonCachedStack struct {
	stack  *stack.Stack
	values *stack.FrameValues
}

// cachedStack returns the stack and values of a "stack" array and its
// "elided" object. Routines parked at one site carry byte-identical stack
// text, so the text is looked up before it is decoded: decoding and
// interning happen once per distinct stack, not once per routine.
func (d *jsonDecoder) cachedStack(off int64, frameList, elided gjson.Result) (*stack.Stack, *stack.FrameValues) {
	k := append(d.stackKey[:0], frameList.Raw...)
	k = append(k, 0)
	k = append(k, elided.Raw...)
	d.stackKey = k
	if c, ok := d.stackCache[string(k)]; ok {
		return c.stack, c.values
	}
	warned := len(d.deferred)
	s, vs := d.decodeStack(off, frameList, elided)
	if len(d.deferred) != warned {
		return s, vs // a malformed stack is decoded, and reported, each time
	}
	if d.stackCacheSize += len(k); d.stackCacheSize > jsonStackCacheBytes || d.stackCache == nil {
		d.stackCache, d.stackCacheSize = make(map[string]jsonCachedStack), len(k)
	}
	d.stackCache[string(k)] = jsonCachedStack{s, vs}
	return s, vs
}

// decodeStack interns a "stack" array and its "elided" object, and the
// frames' values.
func (d *jsonDecoder) decodeStack(off int64, frameList, elided gjson.Result) (*stack.Stack, *stack.FrameValues) {
	frames, values := d.frames[:0], d.values[:0]
	if frameList.Exists() && !frameList.IsArray() {
		d.bad(off, frameList, "stack", "an array of frames")
	}
	if frameList.IsArray() {
		frameList.ForEach(func(_, v gjson.Result) bool {
			f, fv := d.decodeFrame(off, v, jsonStackFields)
			frames = append(frames, d.t.Frame(f))
			values = append(values, fv)
			return true
		})
	}
	var isElided bool
	var count, at int
	if elided.Exists() {
		isElided = true
		if !elided.IsObject() {
			d.bad(off, elided, "elided", "an object")
		}
		d.forEach(elided, func(k, v gjson.Result) bool {
			switch k.Str {
			case "at":
				at = int(d.int(off, v, "elided.at"))
			case "count":
				count = int(d.int(off, v, "elided.count"))
			}
			return true
		})
		if at < 0 || at > len(frames) {
			d.bad(off, elided, "elided.at", "an index within the stack")
			at = len(frames)
		}
	}
	s := d.t.Stack(frames, stack.Elision{Elided: isElided, Count: count, At: at})
	vs := d.t.Values(values)
	d.frames, d.values = frames[:0], values[:0]
	return s, vs
}

// jsonFrameFields names a frame's fields in error messages, by where the
// frame stands; built once so that decoding does not concatenate names.
type jsonFrameFields struct {
	frame, fn, file, line, offset, inlined, module, native, args, fp, sp, pc, locks string
}

func newJSONFrameFields(prefix string) *jsonFrameFields {
	return &jsonFrameFields{
		prefix, prefix + ".func", prefix + ".file", prefix + ".line", prefix + ".offset", prefix + ".inlined",
		prefix + ".module", prefix + ".native", prefix + ".args", prefix + ".fp", prefix + ".sp", prefix + ".pc", prefix + ".locks",
	}
}

var (
	jsonStackFields    = newJSONFrameFields("stack")
	jsonCreatorFields  = newJSONFrameFields("created_by")
	jsonAncestorFields = newJSONFrameFields("ancestors.created_by")
)

// decodeFrame decodes a frame object. The frame's strings alias the read
// buffer until Table.Frame interns them; the value's Args are interned by
// Table.Values, its lock strings here.
func (d *jsonDecoder) decodeFrame(off int64, v gjson.Result, names *jsonFrameFields) (stack.Frame, stack.FrameValue) {
	var f stack.Frame
	var fv stack.FrameValue
	if !v.IsObject() {
		d.bad(off, v, names.frame, "a frame object")
		return f, fv
	}
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "func":
			f.Func = d.str(off, v, names.fn)
		case "file":
			f.File = d.str(off, v, names.file)
		case "line":
			f.Line = int(d.int(off, v, names.line))
		case "offset":
			f.Offset, f.HasOffset = d.uint(off, v, names.offset), true
		case "inlined":
			f.Inlined = d.bool(off, v, names.inlined)
		case "module":
			f.Module = d.str(off, v, names.module)
		case "native":
			f.Native = d.bool(off, v, names.native)
		case "args":
			fv.Args = d.str(off, v, names.args)
		case "fp":
			fv.FP = d.hex(off, v, names.fp)
		case "sp":
			fv.SP = d.hex(off, v, names.sp)
		case "pc":
			fv.PC = d.hex(off, v, names.pc)
		case "locks":
			fv.Locks = d.decodeLocks(off, v, names.locks)
		}
		return true
	})
	return f, fv
}

func (d *jsonDecoder) decodeLocks(off int64, v gjson.Result, field string) []stack.Lock {
	return decodeJSONArray(d, off, v, field, "an array of locks", func(v gjson.Result) stack.Lock {
		var l stack.Lock
		d.forEach(v, func(k, v gjson.Result) bool {
			switch k.Str {
			case "kind":
				l.Kind = stack.LockKind(d.t.String(d.str(off, v, field)))
			case "addr":
				l.Addr = d.t.String(d.str(off, v, field))
			case "class":
				l.Class = d.t.String(d.str(off, v, field))
			}
			return true
		})
		return l
	})
}

func (d *jsonDecoder) decodeLabels(off int64, v gjson.Result, field string) stack.Labels {
	if !v.IsObject() {
		d.bad(off, v, field, "an object of strings")
		return nil
	}
	ls := d.labels[:0]
	v.ForEach(func(k, v gjson.Result) bool {
		ls = append(ls, stack.Label{Key: k.Str, Value: d.str(off, v, field)})
		return true
	})
	d.labels = ls[:0]
	return d.t.Labels(ls)
}

func (d *jsonDecoder) decodeAncestors(off int64, v gjson.Result) []stack.Ancestor {
	return decodeJSONArray(d, off, v, "ancestors", "an array", func(v gjson.Result) stack.Ancestor {
		var a stack.Ancestor
		var frameList, elided gjson.Result
		d.forEach(v, func(k, v gjson.Result) bool {
			switch k.Str {
			case "id":
				a.ID = d.int(off, v, "ancestors.id")
			case "created_by":
				f, _ := d.decodeFrame(off, v, jsonAncestorFields)
				a.CreatedBy = d.t.Frame(f)
			case "stack":
				frameList = v
			case "elided":
				elided = v
			}
			return true
		})
		a.Stack, a.Values = d.cachedStack(off, frameList, elided)
		return a
	})
}

func (d *jsonDecoder) decodeThread(off int64, v gjson.Result) *stack.Thread {
	if !v.IsObject() {
		d.bad(off, v, "thread", "an object")
		return nil
	}
	t := &stack.Thread{}
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "os_id":
			t.OSID = d.int(off, v, "thread.os_id")
		case "daemon":
			t.Daemon = d.bool(off, v, "thread.daemon")
		case "priority":
			t.Priority = int(d.int(off, v, "thread.priority"))
		case "os_priority":
			t.OSPrio = int(d.int(off, v, "thread.os_priority"))
		case "cpu_ns":
			t.CPU = time.Duration(d.int(off, v, "thread.cpu_ns"))
		case "elapsed_ns":
			t.Elapsed = time.Duration(d.int(off, v, "thread.elapsed_ns"))
		case "virtual":
			t.Virtual = d.bool(off, v, "thread.virtual")
		case "carrier":
			t.Carrier = d.int(off, v, "thread.carrier")
		case "container":
			t.Container = d.t.String(d.str(off, v, "thread.container"))
		case "native":
			t.Native = d.bool(off, v, "thread.native")
		case "detail":
			t.Detail = d.t.String(d.str(off, v, "thread.detail"))
		case "synchronizers":
			t.Synchronizers = d.decodeLocks(off, v, "thread.synchronizers")
		}
		return true
	})
	return t
}
