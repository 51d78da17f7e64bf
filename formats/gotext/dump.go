package gotext

import (
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// dumpState is the dump receiving lines, and what the reader met of the
// dumps so far.
type dumpState struct {
	d   *stack.Dump
	out *stack.Dump // the dump NextDump returned last
	// published is set once the start of d was queued; pending holds the
	// problems met before (published with it). anyPublished is set once
	// any dump of the input was.
	published, anyPublished bool
	pending                 []*stack.ParseError
	nRoutines               int
	seen                    idSet // header ids, to split at a repeated id
	// gapped is the last line of this dump where lines were left out.
	gapped int
	// reversed is set once the lines were found to come newest first
	// (assemble.go, feed).
	reversed bool
	// interrupted is the line of a function line whose file line did not
	// follow, in the dump's last goroutine so far (0 when none): when no
	// goroutine follows it, the dump was cut there (a log that stopped
	// inside the dump and went on with other lines).
	interrupted int
}

// threadBlocks is what a GOTRACEBACK=crash signal dump adds: each OS
// thread's block (its signal line, registers, g0's stack) ends with
// `-----`. ended is set by that line; joined once the next block's
// signal line continued the dump. Repeated ids are then each thread's
// g0, not a second dump.
type threadBlocks struct {
	ended, joined bool
}

// ensureDump makes sure a dump is receiving lines.
func (g *goTextDecoder) ensureDump() {
	if g.dump.d == nil {
		g.dump.d = &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	}
}

// publishDump queues the start of the dump, with the problems held so
// far, unless it was queued already.
func (g *goTextDecoder) publishDump() {
	if !g.dump.published {
		g.publish()
	}
}

func (g *goTextDecoder) publish() {
	g.ensureDump()
	ds := &g.dump
	ds.published, ds.anyPublished = true, true
	g.queue.push(goEvent{kind: evStart, d: ds.d})
	for _, pe := range ds.pending {
		g.queue.push(goEvent{kind: evError, err: pe})
	}
	ds.pending = ds.pending[:0]
}

// endDump closes the open routine and the dump receiving lines. A dump
// with neither routines nor preamble is not one; its problems carry over
// to the next dump.
func (g *goTextDecoder) endDump() {
	g.flushOrphans()
	g.endRoutine()
	ds := &g.dump
	if d := ds.d; d != nil && !ds.published && (len(d.Preamble) > 0 || len(d.Races) > 0 || d.SystemStack != nil) {
		g.publishDump()
	}
	if ds.published {
		g.queue.push(goEvent{kind: evEnd})
		ds.d = nil
	}
	ds.published = false
	ds.nRoutines, ds.interrupted = 0, 0
	ds.seen.clear()
	g.race = raceReport{}
	g.pre = preamble{}
	g.threads = threadBlocks{}
	g.prefix.ring.reset()
	g.rt.want = betweenRoutines
}

// finish closes everything at the end of the input and judges whether
// the last dump was cut short.
func (g *goTextDecoder) finish() {
	g.end.eof = true
	g.closeAll(true)
}

// regionEnd closes everything at the end of a paste region (a closing
// fence, chat text after the dump) and judges, as at the end of the
// input, whether the dump was cut short inside it; reading goes on.
func (g *goTextDecoder) regionEnd() {
	g.closeAll(false)
	g.cut.set, g.cut.text = false, g.cut.text[:0]
}

// closeAll closes the open routine and dump at the end of the input (atEOF)
// or of a paste region, and judges whether the dump was cut short.
func (g *goTextDecoder) closeAll(atEOF bool) {
	rt := &g.rt
	var why string
	switch rt.want {
	case wantFile:
		c := &rt.awaiting
		switch {
		case rt.unconfirmed:
			g.dropRoutine()
		case c.form == callGo || c.form == callInlined:
			rt.frames.commitFrame(nil, c.callFlags())
			why = "input ends after a function line, before its file line"
		default:
			g.fileMissing()
		}
	case wantCreatorFile:
		g.keepCreatorWithoutFile()
		why = "input ends after a created by line, before its file line"
	}
	rt.want = wantFrame
	if why == "" && rt.r == nil && g.dump.interrupted > 0 {
		why = fmt.Sprintf("input ends inside a goroutine: the file line of its function line at line %d, and what came after, are not in the input", g.dump.interrupted)
	}
	if r, sec := rt.r, rt.frames; r != nil && why == "" && rt.part == partNone && rt.ancestor < 0 {
		switch {
		case sec.depth == 0 && !r.Unavailable:
			why = "input ends after a goroutine header"
		case g.dump.gapped > 0 && !sec.hasCreator && !endsAtRoot(sec.lastFunc()):
			why = fmt.Sprintf("input ends inside a goroutine, after lines were left out at line %d: its stack may go on", g.dump.gapped)
		case atEOF && g.lines.Line().NoEOL && rt.frameLine == g.lines.Num() && !sec.hasCreator && !endsAtRoot(sec.lastFunc()):
			why = "input ends mid-line inside a goroutine"
		}
	}
	var cause error
	if g.cut.set {
		why = "input ends mid-line inside a goroutine; the partial line is dropped"
	}
	if why == "" && g.race.open {
		why = "input ends inside a race report, before its closing line"
	}
	if why == "" && g.end.readErr != nil && atEOF {
		why, cause = "reading stopped: "+g.end.readErr.Error(), g.end.readErr
	}
	if why == "" && atEOF && g.in != nil && g.in.BytesRead() == TruncationSize {
		why = fmt.Sprintf("input is exactly %d bytes, where runtime/pprof cuts debug=2 dumps", TruncationSize)
	}
	if why != "" && !atEOF {
		why = strings.Replace(why, "input ends", "the paste ends", 1)
	}
	g.flushOrphans()
	if why != "" {
		g.ensureDump()
		if d := g.dump.d; g.dump.published || rt.r != nil || len(d.Preamble) > 0 || len(d.Races) > 0 {
			d.Truncated = true
			if rt.r != nil || len(d.Races) > 0 || d.SystemStack != nil {
				g.publishDump()
			}
			var text []byte
			if g.cut.set {
				text = g.cut.text
			}
			g.problem("dump truncated: "+why, text).Err = cause
		}
	}
	g.endDump()
}

// endsAtRoot reports whether fn, the outermost frame's function, is where
// goroutine stacks end.
func endsAtRoot(fn string) bool {
	switch fn {
	case "main.main", "runtime.main", "runtime.goexit", "runtime.mstart", "runtime.mstart0", "runtime.rt0_go":
		return true
	}
	return false
}
