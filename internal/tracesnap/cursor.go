package tracesnap

import "errors"

// cursor reads one thread's batches of a generation in order
// (x/exp/trace's batchCursor).
type cursor struct {
	m       int64
	ms      *mState // the thread's ordering state, once looked up
	batches []batch
	idx     int
	off     int
	lastTs  int64
	ev      rawEvent
}

// next decodes the thread's next event into c.ev, reporting false when
// the thread has none left.
func (c *cursor) next(t *tables) (bool, error) {
	for c.idx < len(c.batches) && len(c.batches[c.idx].data) == c.off {
		c.idx++
		c.off = 0
		c.lastTs = 0
	}
	if c.idx == len(c.batches) {
		return false, nil
	}
	b := &c.batches[c.idx]
	if c.lastTs == 0 {
		c.lastTs = t.nsOf(b.time)
	}
	d := b.data
	i := c.off
	typ := d[i]
	if int(typ) >= numSpecs {
		return false, errors.New("invalid event type")
	}
	s := &specs[typ]
	if !s.timed {
		return false, errors.New("event without a timestamp")
	}
	dt, i, ok := uvarintAt(d, i+1)
	if !ok {
		return false, errors.New("invalid varint for an event's timestamp")
	}
	c.ev.typ = typ
	for a := 0; a < int(s.nargs)-1; a++ {
		if c.ev.args[a], i, ok = uvarintAt(d, i); !ok {
			return false, errors.New("invalid varint for an event's argument")
		}
	}
	c.ev.t = t
	c.ev.time = t.nsOf(dt) + c.lastTs
	c.lastTs = c.ev.time
	c.off = i
	return true, nil
}

// The frontier: a min-heap of cursors by the time of their next event,
// exactly as x/exp/trace's, so that equal times order the same way.

func heapInsert(h []*cursor, c *cursor) []*cursor {
	h = append(h, c)
	heapSiftUp(h, len(h)-1)
	return h
}

func heapUpdate(h []*cursor, i int) {
	if heapSiftUp(h, i) != i {
		return
	}
	heapSiftDown(h, i)
}

func heapRemove(h []*cursor, i int) []*cursor {
	for i > 0 {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	h[0], h[len(h)-1] = h[len(h)-1], h[0]
	h = h[:len(h)-1]
	heapSiftDown(h, 0)
	return h
}

func heapSiftUp(h []*cursor, i int) int {
	for i > 0 && h[(i-1)/2].ev.time > h[i].ev.time {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	return i
}

func heapSiftDown(h []*cursor, i int) int {
	for {
		m := min3(h, i, 2*i+1, 2*i+2)
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return i
}

func min3(h []*cursor, i0, i1, i2 int) int {
	m := i0
	t := int64(1<<63 - 1)
	if i0 < len(h) {
		t = h[i0].ev.time
	}
	if i1 < len(h) && h[i1].ev.time < t {
		t, m = h[i1].ev.time, i1
	}
	if i2 < len(h) && h[i2].ev.time < t {
		m = i2
	}
	return m
}
