package dumper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/jsonenc"
	"github.com/stackdump/stackdump/internal/zseg"
	"github.com/stackdump/stackdump/stack"
)

// A full capture written as JSON is made in parallel. The traceback text
// is cut at goroutine headers into chunks of up to 4 MiB; each
// worker reads a chunk (in memory, reusing its routines), encodes its
// routines and compresses them as an independent segment of the output
// stream (internal/zseg); the calling goroutine writes the segments in
// order. One goroutine parsing and encoding while others compress was
// the bottleneck: at 100k goroutines reading and encoding took longer than
// gzip. The chunks in flight are bounded (jsonWindow per worker), so
// memory stays a few compressed chunks above the traceback itself.

const (
	// A chunk is an eighth of a worker's share of the traceback text, so
	// that the workers finish together, within these bounds: large enough
	// that a chunk's reader and segment cost nothing much, small enough
	// to bound the memory of the chunks in flight.
	minJSONChunk = 256 << 10
	maxJSONChunk = 4 << 20
	// jsonWindow is how many chunks per worker may be read ahead of the
	// one being written.
	jsonWindow = 2
	// jsonFlushBytes is how much encoded JSON a worker collects before it
	// hands it to its compressor.
	jsonFlushBytes = 64 << 10
)

// jsonChunk is one run of whole goroutines of the traceback text.
type jsonChunk struct {
	index  int
	text   []byte
	offset int64 // bytes of the text before it
	done   chan jsonChunkResult
}

// jsonChunkResult is a chunk encoded and compressed.
type jsonChunkResult struct {
	seg       zseg.Segment
	routines  int // routines encoded
	total     int64
	warnings  []*stack.ParseError
	truncated bool
	err       error
}

// jsonWriter writes one capture's JSON document.
type jsonWriter struct {
	d      *stack.Dump // the capture's metadata
	text   []byte      // its traceback text
	stream *zseg.Stream
}

// writeJSONParallel writes the capture d, whose traceback text is raw, as
// a stackdump JSON document to w, compressed with c.
func writeJSONParallel(ctx context.Context, w io.Writer, c output.Compression, d *stack.Dump, raw *stackText) error {
	workers := compressWorkers()
	chunk := min(max(raw.n/(8*workers), minJSONChunk), maxJSONChunk)
	return writeJSONChunks(ctx, w, c, d, raw.buf[:raw.n], chunk, workers)
}

// writeJSONChunks writes text in chunks of about chunkBytes on workers
// goroutines.
func writeJSONChunks(ctx context.Context, w io.Writer, c output.Compression, d *stack.Dump, text []byte, chunkBytes, workers int) error {
	stream, err := zseg.NewStream(w, compressOptions(c))
	if err != nil {
		return err
	}
	// The caller's ctx is checked between chunks and routines; stop ends
	// the producer when the writer returns early.
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	jw := &jsonWriter{d: d, text: text, stream: stream}

	jobs := make(chan jsonChunk)
	order := make(chan jsonChunk, workers*jsonWindow)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		splitJSONChunks(stop, text, chunkBytes, jobs, order)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := jw.newChunkState()
			defer st.release()
			for job := range jobs {
				job.done <- jw.encodeChunk(ctx, st, job, job.index == 0)
			}
		}()
	}
	err = jw.writeChunks(ctx, order)
	cancel() // on an error, stop the producer; the workers end with it
	wg.Wait()
	return err
}

// splitJSONChunks cuts text into chunks and hands each to the workers
// (jobs) and, in the same order, to the writer (order), which bounds how
// far ahead the workers get.
func splitJSONChunks(ctx context.Context, text []byte, size int, jobs, order chan<- jsonChunk) {
	defer close(jobs)
	defer close(order)
	offset := int64(0)
	for i := 0; i == 0 || len(text) > 0; i++ {
		cut := cutTraceback(text, size)
		job := jsonChunk{index: i, text: text[:cut], offset: offset, done: make(chan jsonChunkResult, 1)}
		select {
		case order <- job:
		case <-ctx.Done():
			return
		}
		select {
		case jobs <- job:
		case <-ctx.Done():
			job.done <- jsonChunkResult{err: ctx.Err()}
			return
		}
		offset += int64(cut)
		text = text[cut:]
	}
}

// writeChunks writes the document: the chunks' segments in order, then
// the members known at the end. It returns at the first error; results
// still to come go to their buffered channels unread.
func (jw *jsonWriter) writeChunks(ctx context.Context, order <-chan jsonChunk) error {
	var (
		routines  int
		total     int64
		warnings  []*stack.ParseError
		truncated = jw.d.Truncated
		own       *chunkState // for a chunk that must be encoded again
		lines     = lineCounter{text: jw.text}
	)
	for job := range order {
		res := <-job.done
		if res.err == nil && routines == 0 && res.routines > 0 && job.index > 0 {
			// The chunks before held no routine: this one's leading
			// comma would open the array. Encode it again as its first
			// element. (runtime.Stack text never comes here: every chunk
			// starts with a goroutine header.)
			if own == nil {
				own = jw.newChunkState()
				defer own.release()
			}
			res = jw.encodeChunk(ctx, own, job, true)
		}
		if res.err != nil {
			return res.err
		}
		if err := jw.stream.WriteSegment(res.seg); err != nil {
			return err
		}
		putSegmentBuf(res.seg.Data)
		routines += res.routines
		total += res.total
		if len(res.warnings) > 0 {
			line := lines.before(job.offset)
			for _, w := range res.warnings {
				if w.Line > 0 {
					w.Line += line
				}
				w.Offset += job.offset
			}
			warnings = append(warnings, res.warnings...)
		}
		truncated = truncated || res.truncated
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	end := &stack.Dump{Truncated: truncated, Warnings: append(warnings, jw.d.Warnings...), Total: total}
	enc := jw.stream.NewEncoder()
	defer enc.Release()
	if _, err := enc.Write(new(jsonenc.Chunks).AppendEnd(nil, end, total)); err != nil {
		return err
	}
	if err := jw.stream.WriteSegment(enc.Take(nil)); err != nil {
		return err
	}
	return jw.stream.Close()
}

// chunkState is what a worker keeps from chunk to chunk: the Table its
// readers intern into and the encoding of the frames it has met.
type chunkState struct {
	table  *stack.Table
	reader *gotext.Reader // reset onto each chunk: it keeps the stacks met
	frames jsonenc.Chunks
	enc    *zseg.Encoder
	buf    []byte
}

func (jw *jsonWriter) newChunkState() *chunkState {
	st := &chunkState{table: stack.NewTable(), enc: jw.stream.NewEncoder()}
	st.enc.Take(getSegmentBuf()) // an empty segment: the next goes into a kept buffer
	if b, ok := jsonBufPool.Get().(*[]byte); ok {
		st.buf = (*b)[:0]
	} else {
		st.buf = make([]byte, 0, 2*jsonFlushBytes)
	}
	return st
}

// readerOf returns the worker's reader, reset onto text.
func (st *chunkState) readerOf(text []byte) *gotext.Reader {
	if st.reader == nil {
		st.reader = gotext.NewRuntimeReaderBytes(text, gotext.ReadOptions{Table: st.table, ReuseRoutines: true})
	} else {
		st.reader.ResetBytes(text)
	}
	return st.reader
}

// release gives back the compressor and buffer for later captures.
func (st *chunkState) release() {
	putSegmentBuf(st.enc.Take(nil).Data) // the empty segment's buffer
	st.enc.Release()
	b := st.buf[:0]
	jsonBufPool.Put(&b)
}

// Buffers kept between captures (until a GC): a worker's encoded JSON, and
// written segments, which hold a compressed chunk (or, uncompressed, the
// chunk's JSON).
var jsonBufPool, segmentBufPool sync.Pool

func getSegmentBuf() []byte {
	if b, ok := segmentBufPool.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

func putSegmentBuf(b []byte) {
	if cap(b) >= 64<<10 { // not the small ones: a chunk would outgrow them
		b = b[:0]
		segmentBufPool.Put(&b)
	}
}

// encodeChunk reads job's text and encodes its routines into a segment;
// first is set when its first routine opens the goroutines array. The
// first chunk also carries the document's opening.
func (jw *jsonWriter) encodeChunk(ctx context.Context, st *chunkState, job jsonChunk, first bool) jsonChunkResult {
	enc := &chunkEncoder{jw: jw, st: st, job: job, first: first}
	p := stack.Pipeline{
		Source:    st.readerOf(job.text),
		Encoder:   enc,
		ReadError: func(err error) error { return fmt.Errorf("read stacks: %w", err) },
	}
	// Parse errors are kept in read.Warnings; a chunk of nothing but blank
	// lines is no dump, and encodes as an empty one.
	read, err := p.Next(ctx)
	if err == io.EOF {
		read = &stack.Dump{}
		err = stack.WriteDump(enc, read)
	}
	if err != nil {
		return jsonChunkResult{err: err}
	}
	return jsonChunkResult{
		seg:       enc.seg,
		routines:  enc.routines,
		total:     read.Total,
		truncated: read.Truncated,
		warnings:  read.Warnings, // their lines and offsets are the chunk's: see writeChunks
	}
}

// chunkEncoder is the last stage of a chunk's stack.Pipeline: it
// appends the routines' JSON into the worker's buffer and hands it to the
// worker's compressor every jsonFlushBytes; EndDump takes the segment.
type chunkEncoder struct {
	jw       *jsonWriter
	st       *chunkState
	job      jsonChunk
	first    bool
	b        []byte
	routines int
	seg      zseg.Segment
}

func (e *chunkEncoder) BeginDump(read *stack.Dump) error {
	e.b = e.st.buf[:0]
	if e.job.index == 0 {
		head := *read
		head.Source = e.jw.d.Source
		e.b = e.st.frames.AppendStart(e.b, &head)
	}
	return nil
}

func (e *chunkEncoder) WriteRoutine(r *stack.Routine) error {
	e.routines++
	r.Line = 0 // a line of text no one has
	e.b = e.st.frames.AppendRoutine(e.b, r, e.first && e.routines == 1)
	if len(e.b) >= jsonFlushBytes {
		if _, err := e.st.enc.Write(e.b); err != nil {
			return err
		}
		e.b = e.b[:0]
	}
	return nil
}

func (e *chunkEncoder) EndDump(*stack.Dump) error {
	if _, err := e.st.enc.Write(e.b); err != nil {
		return err
	}
	e.st.buf = e.b[:0]
	e.seg = e.st.enc.Take(getSegmentBuf())
	return nil
}

// lineCounter numbers the lines of a text read front to back, counting
// only as far as asked: routines of a capture carry no line (the text is
// not kept), so lines are counted only to place a warning.
type lineCounter struct {
	text    []byte
	counted int // bytes counted
	lines   int // newlines in text[:counted]
}

// before returns the number of lines of text before offset, which must not
// decrease from call to call.
func (c *lineCounter) before(offset int64) int {
	c.lines += bytes.Count(c.text[c.counted:offset], []byte("\n"))
	c.counted = int(offset)
	return c.lines
}
