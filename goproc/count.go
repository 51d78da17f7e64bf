package goproc

import "fmt"

// Count counts the goroutines of a process or core without stopping it:
// the runtime's goroutine list, then the status word of each entry,
// leaving out the dead ones as a traceback does (the runtime's own
// goroutines are counted). bias is the load bias (LoadBias). It reads
// 8 bytes a goroutine plus the list, a few milliseconds at 100,000.
func Count(bin *Binary, mem Memory, bias uint64) (int, error) {
	r := newReader(bin, mem, Options{LoadBias: bias})
	list, err := r.readList()
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 4*min(len(list), batchGoroutines))
	spans := make([]Span, 0, batchGoroutines)
	n := 0
	for start := 0; start < len(list); start += batchGoroutines {
		part := list[start:min(len(list), start+batchGoroutines)]
		spans = spans[:0]
		for i, g := range part {
			spans = append(spans, Span{Addr: g + uint64(r.l.G.Status), Buf: buf[4*i : 4*i+4]})
		}
		r.mem.readSpans(spans)
		for i := range spans {
			if spans[i].Err != nil {
				continue // a goroutine being freed, or a bad pointer: not counted
			}
			rec := gRecord{status: leUint32(spans[i].Buf)}
			if !r.isDead(&rec) {
				n++
			}
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("goproc: no live goroutine among the %d in the runtime's list", len(list))
	}
	return n, nil
}

func leUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
