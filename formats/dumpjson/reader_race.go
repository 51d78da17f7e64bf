package dumpjson

import (
	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// The dump-level members "races" and "system_stack" (docs/json.md). They
// are written before the goroutines array, so that a streaming reader has
// them when the dump begins; a reader also takes them after the array.

// decodeRaces decodes the "races" member.
func (d *jsonDecoder) decodeRaces(m jsonRaw) []*stack.Race {
	v := d.parseMember(m, "races")
	return decodeJSONArray(d, m.off, v, "races", "an array of objects", func(v gjson.Result) *stack.Race {
		rc := &stack.Race{}
		d.forEach(v, func(k, v gjson.Result) bool {
			switch k.Str {
			case "line":
				rc.Line = int(d.int(m.off, v, "races.line"))
			case "accesses":
				rc.Accesses = decodeJSONArray(d, m.off, v, "races.accesses", "an array of objects", func(v gjson.Result) stack.RaceAccess {
					return d.decodeRaceAccess(m.off, v)
				})
			case "creators":
				rc.Creators = decodeJSONArray(d, m.off, v, "races.creators", "an array of objects", func(v gjson.Result) stack.RaceCreator {
					return d.decodeRaceCreator(m.off, v)
				})
			}
			return true
		})
		return rc
	})
}

func (d *jsonDecoder) decodeRaceAccess(off int64, v gjson.Result) stack.RaceAccess {
	var a stack.RaceAccess
	var frameList, elided gjson.Result
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "op":
			a.Op = d.t.String(d.str(off, v, "races.accesses.op"))
		case "atomic":
			a.Atomic = d.bool(off, v, "races.accesses.atomic")
		case "previous":
			a.Previous = d.bool(off, v, "races.accesses.previous")
		case "size":
			a.Size = int(d.int(off, v, "races.accesses.size"))
		case "addr":
			a.Addr = d.hex(off, v, "races.accesses.addr")
		case "goroutine":
			a.Goroutine = d.int(off, v, "races.accesses.goroutine")
		case "main":
			a.Main = d.bool(off, v, "races.accesses.main")
		case "line":
			a.Line = int(d.int(off, v, "races.accesses.line"))
		case "stack":
			frameList = v
		case "elided":
			elided = v
		}
		return true
	})
	a.Stack, _ = d.decodeStack(off, frameList, elided)
	return a
}

func (d *jsonDecoder) decodeRaceCreator(off int64, v gjson.Result) stack.RaceCreator {
	var c stack.RaceCreator
	var frameList, elided gjson.Result
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "goroutine":
			c.Goroutine = d.int(off, v, "races.creators.goroutine")
		case "state":
			c.State = d.t.String(d.str(off, v, "races.creators.state"))
		case "line":
			c.Line = int(d.int(off, v, "races.creators.line"))
		case "stack":
			frameList = v
		case "elided":
			elided = v
		}
		return true
	})
	c.Stack, _ = d.decodeStack(off, frameList, elided)
	return c
}

// decodeSystemStack decodes the "system_stack" member.
func (d *jsonDecoder) decodeSystemStack(m jsonRaw) *stack.SystemStack {
	v := d.parseMember(m, "system_stack")
	if !v.IsObject() {
		d.bad(m.off, v, "system_stack", "an object")
		return nil
	}
	s := &stack.SystemStack{}
	var frameList, elided gjson.Result
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "line":
			s.Line = int(d.int(m.off, v, "system_stack.line"))
		case "stack":
			frameList = v
		case "elided":
			elided = v
		}
		return true
	})
	s.Stack, s.Values = d.decodeStack(m.off, frameList, elided)
	return s
}

// applyDumpParts sets the dump's races and system stack from members read
// so far and forgets them, so that members after the array are applied
// once more by applyTail.
func (d *jsonDecoder) applyDumpParts(dump *stack.Dump) {
	if m := d.members[memberRaces]; m.set {
		dump.Races = append(dump.Races, d.decodeRaces(m)...)
		d.members[memberRaces] = jsonRaw{}
	}
	if m := d.members[memberSystemStack]; m.set {
		dump.SystemStack = d.decodeSystemStack(m)
		d.members[memberSystemStack] = jsonRaw{}
	}
}

// legacyRace takes a goroutine object with a "race" member, as documents
// written before races were dump records carry each block of a report:
// it becomes an access or creator of d's race numbered "report". It
// reports whether v was one.
func (d *jsonDecoder) legacyRace(v gjson.Result, off int64) bool {
	rv := v.Get("race")
	if !rv.Exists() || !rv.IsObject() {
		return false
	}
	r := d.decodeRoutine(v, off)
	report := int(d.int(off, rv.Get("report"), "race.report"))
	role := d.str(off, rv.Get("role"), "race.role")
	dump := d.dump
	if n := len(dump.Races); n == 0 || d.legacyReport != report {
		// `WARNING: DATA RACE` is the line right before a report's first block.
		dump.Races = append(dump.Races, &stack.Race{Line: max(0, r.Line-1)})
		d.legacyReport = report
	}
	rc := dump.Races[len(dump.Races)-1]
	if role == "created" {
		rc.Creators = append(rc.Creators, stack.RaceCreator{Goroutine: r.ID, State: r.State, Stack: r.Stack, Line: r.Line})
	} else {
		var acc stack.RaceAccess
		acc.Op, acc.Atomic, acc.Previous = codec.RaceOp([]byte(role))
		acc.Addr = d.hex(off, rv.Get("addr"), "race.addr")
		acc.Main = rv.Get("main").Bool()
		acc.Goroutine, acc.Stack, acc.Line = r.ID, r.Stack, r.Line
		if acc.Main {
			acc.Goroutine = 1
		}
		rc.Accesses = append(rc.Accesses, acc)
	}
	d.legacyRaces++
	return true
}
