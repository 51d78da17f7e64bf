package dumpjson

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// decodeGroup reads a group object of a grouped document back as
// routines, keeping what the model can hold (docs/json.md, "Reading
// grouped documents"): one routine per state, each standing for that
// state's members (Count), and one without a state for the members the
// states do not account for, sharing the group's stack and creator. The
// member ids survive only for a group of one; the wait time becomes the
// group's minimum; labels, locking and parent survive when all members
// share them. The first `leaked` members, in the order of the states, are
// marked Leaked: a state's record is split in two where the count ends.
func (d *jsonDecoder) decodeGroup(v gjson.Result, off int64) {
	base := &stack.Routine{Count: 1}
	var (
		count, locked, leaked    int64
		ids, parents             []int64
		states                   []codec.StateCount
		labels                   []stack.LabelCount
		frameList, elided, leakV gjson.Result
	)
	count = 1
	d.forEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "count":
			count = d.count(off, v, "count", codec.MaxCount)
		case "ids":
			ids = d.ints(off, v, "ids")
		case "states":
			if !v.IsObject() {
				d.bad(off, v, "states", "an object of counts")
				break
			}
			v.ForEach(func(k, v gjson.Result) bool {
				states = append(states, codec.StateCount{State: d.t.String(k.Str), N: d.count(off, v, "states", codec.MaxCount)})
				return true
			})
		case "wait_minutes":
			d.forEach(v, func(k, v gjson.Result) bool {
				if k.Str == "min" {
					base.WaitMinutes = int(d.int(off, v, "wait_minutes.min"))
				}
				return true
			})
		case "locked":
			locked = d.count(off, v, "locked", codec.MaxCount)
		case "leaked":
			leaked, leakV = d.count(off, v, "leaked", codec.MaxCount), v
		case "labels":
			// A repeated "labels" member adds to the label counts read so far.
			labels = append(labels, decodeJSONArray(d, off, v, "labels", "an array of label counts", func(v gjson.Result) stack.LabelCount {
				var lc stack.LabelCount
				d.forEach(v, func(k, v gjson.Result) bool {
					switch k.Str {
					case "labels":
						lc.Labels = d.decodeLabels(off, v, "labels.labels")
					case "count":
						lc.Count = d.count(off, v, "labels.count", codec.MaxCount)
					}
					return true
				})
				return lc
			})...)
		case "parent_ids":
			parents = d.ints(off, v, "parent_ids")
		case "created_by":
			f, _ := d.decodeFrame(off, v, jsonCreatorFields)
			base.CreatedBy = d.t.Frame(f)
		case "stack":
			frameList = v
		case "elided":
			elided = v
		case "unavailable":
			base.Unavailable = d.bool(off, v, "unavailable")
		case "name":
			base.Name = d.t.String(d.str(off, v, "name"))
		}
		return true
	})
	base.Stack, base.Values = d.cachedStack(off, frameList, elided)
	if count == 1 && len(ids) == 1 {
		base.ID = ids[0]
	}
	if len(parents) == 1 {
		base.ParentID = parents[0]
	}
	base.Locked = count > 0 && locked >= count
	if len(labels) == 1 && labels[0].Count >= count {
		base.Labels = labels[0].Labels
	}
	if len(states) == 0 {
		states = []codec.StateCount{{State: "", N: count}}
	}
	var sum int64
	for _, s := range states {
		sum += s.N
	}
	if sum < count {
		// Members the states do not account for had no state: the writer
		// counts only members with one.
		states = append(states, codec.StateCount{State: "", N: count - sum})
	}
	if leaked > count {
		d.bad(off, leakV, "leaked", "a count up to the group's count, "+strconv.FormatInt(count, 10))
		leaked = count
	}
	for _, s := range states {
		proven := min(leaked, s.N)
		leaked -= proven
		if proven > 0 {
			d.addGroupRecord(base, s.State, proven, true)
		}
		if rest := s.N - proven; rest > 0 || proven == 0 {
			d.addGroupRecord(base, s.State, rest, false)
		}
	}
}

// addGroupRecord adds a record of a group read back: base with a state, a
// count and whether those members were proven leaked.
func (d *jsonDecoder) addGroupRecord(base *stack.Routine, state string, n int64, leaked bool) {
	r := new(stack.Routine)
	*r = *base
	r.State, r.Count, r.Leaked = state, n, leaked
	d.addTotal(r.Count)
	d.pending = append(d.pending, r)
}

// ints returns an array of integers.
func (d *jsonDecoder) ints(base int64, v gjson.Result, field string) []int64 {
	return decodeJSONArray(d, base, v, field, "an array of integers", func(n gjson.Result) int64 {
		return d.int(base, n, field)
	})
}
