package zseg

import (
	"io"
	"sync"
)

// compressParallel writes data to w as one stream, cut into segments of
// segSize bytes that workers goroutines compress while this one writes
// them in order: the way stackdump's encoder uses a Stream. Written
// segments' buffers go back to the workers.
func compressParallel(w io.Writer, opts Options, data []byte, segSize, workers int) error {
	s, err := NewStream(w, opts)
	if err != nil {
		return err
	}
	type job struct {
		chunk []byte
		done  chan Segment
	}
	jobs := make(chan job)
	order := make(chan chan Segment, workers)
	free := make(chan []byte, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := s.NewEncoder()
			for j := range jobs {
				enc.Write(j.chunk) // errors come back with the segment
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				j.done <- enc.Take(buf)
			}
		}()
	}
	go func() {
		for off := 0; off < len(data); off += segSize {
			j := job{data[off:min(off+segSize, len(data))], make(chan Segment, 1)}
			order <- j.done
			jobs <- j
		}
		close(jobs)
		close(order)
	}()
	for done := range order {
		seg := <-done
		if err == nil {
			err = s.WriteSegment(seg)
		}
		select {
		case free <- seg.Data:
		default:
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return s.Close()
}
