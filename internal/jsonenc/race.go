package jsonenc

import (
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// The dump-level members "races" and "system_stack" (docs/json.md). They
// are written before the goroutines array, so that a streaming reader has
// them when the dump begins.

// appendJSONDumpParts appends `,"races":[…]` and `,"system_stack":{…}`
// when d has any.
func appendJSONDumpParts(b []byte, d *stack.Dump) []byte {
	if len(d.Races) > 0 {
		b = append(b, `,"races":[`...)
		for i, rc := range d.Races {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONRace(b, rc)
		}
		b = append(b, ']')
	}
	if s := d.SystemStack; s != nil {
		b = append(b, `,"system_stack":{"line":`...)
		b = strconv.AppendInt(b, int64(s.Line), 10)
		b = appendJSONStack(b, s.Stack, s.Values, nil)
		b = append(b, '}')
	}
	return b
}

// appendJSONRace appends one race report object.
func appendJSONRace(b []byte, rc *stack.Race) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(rc.Line), 10)
	b = append(b, `,"accesses":[`...)
	for i := range rc.Accesses {
		a := &rc.Accesses[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":`...)
		b = appendJSONString(b, a.Op)
		if a.Atomic {
			b = append(b, `,"atomic":true`...)
		}
		if a.Previous {
			b = append(b, `,"previous":true`...)
		}
		if a.Size != 0 {
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, int64(a.Size), 10)
		}
		if a.Addr != 0 {
			b = append(b, `,"addr":`...)
			b = appendJSONHex(b, a.Addr)
		}
		b = append(b, `,"goroutine":`...)
		b = strconv.AppendInt(b, a.Goroutine, 10)
		if a.Main {
			b = append(b, `,"main":true`...)
		}
		if a.Line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(a.Line), 10)
		}
		b = appendJSONStack(b, a.Stack, nil, nil)
		b = append(b, '}')
	}
	b = append(b, `],"creators":[`...)
	for i := range rc.Creators {
		c := &rc.Creators[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"goroutine":`...)
		b = strconv.AppendInt(b, c.Goroutine, 10)
		if c.State != "" {
			b = append(b, `,"state":`...)
			b = appendJSONString(b, c.State)
		}
		if c.Line != 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(c.Line), 10)
		}
		b = appendJSONStack(b, c.Stack, nil, nil)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
