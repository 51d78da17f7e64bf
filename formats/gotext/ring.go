package gotext

// lineRing keeps copies of the last few lines, with their line numbers and
// offsets, so that they can be read again (see goTextDecoder.replay). Its
// memory is fixed: ringLines lines of at most ringLineBytes.
type lineRing struct {
	buf  [ringLines][]byte
	num  [ringLines]int
	off  [ringLines]int64
	next int // index of the next slot to write
	n    int // lines held
}

func (r *lineRing) add(line []byte, num int, off int64) {
	i := r.next
	r.buf[i] = append(r.buf[i][:0], line[:min(len(line), ringLineBytes)]...)
	r.num[i], r.off[i] = num, off
	r.next = (i + 1) % ringLines
	r.n = min(r.n+1, ringLines)
}

// each calls f for the lines held, oldest first.
func (r *lineRing) each(f func(line []byte, num int, off int64)) {
	start := (r.next - r.n + ringLines) % ringLines
	for k := range r.n {
		i := (start + k) % ringLines
		f(r.buf[i], r.num[i], r.off[i])
	}
}

func (r *lineRing) reset() { r.next, r.n = 0, 0 }
