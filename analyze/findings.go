package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// What would settle a finding one dump cannot.
const (
	proveBySnapshot = "a second snapshot in a few minutes (stackdump analyze first second, or stackdump timeline): a leak only grows, a pool does not"
	proveByLeakProf = "the goroutine leak profile (Go 1.26+ with GOEXPERIMENT=goroutineleakprofile, default from Go 1.27: stackdump capture --mode leak) proves which goroutines nothing can wake"
	proveStillThere = "a second snapshot with the same goroutines still waiting (stackdump timeline)"
)

// findingsInput is what the findings of one dump are made from.
type findingsInput struct {
	d      *stack.Dump
	groups []*stack.Group
	objs   *objectIndex
	cycles []goDeadlock
	jvm    *LockReport
	// growth are the groups followed across the earlier dumps of the
	// process, process what those dumps said (nil: no history).
	growth  []growthCase
	process growthProcess
}

// findings makes the findings of a summarised dump: its proofs, cycles,
// blocked objects, leaks, contention and growth, most alarming first.
func (a *Analyzer) findings(s *Summary, in findingsInput) []Finding {
	opts := a.opts
	var out []Finding
	if c := s.Crash; c != nil && c.Kind == gotext.CrashDeadlock {
		out = append(out, Finding{Kind: FindingDeadlock, Confidence: Certain,
			Claim:    "the runtime stopped the program: " + firstLine(c.Message),
			Subject:  Subject{Count: s.Total, State: "asleep"},
			Evidence: []Evidence{{Kind: EvidenceRuntimeProof, Text: "the runtime found no goroutine that could run (" + firstLine(c.Message) + ")"}}})
	}
	for _, c := range in.cycles {
		out = append(out, goDeadlockFinding(c))
	}
	for _, l := range s.Leaked {
		out = append(out, Finding{Kind: FindingProvenLeak, Confidence: Certain,
			Claim:   fmt.Sprintf("%s leaked at %s", words.Count(l.Count, "goroutine"), placeText(l.Frame)),
			Subject: Subject{Count: l.Count, State: l.State, WaitMax: l.WaitMax, Frame: l.Frame, IDs: l.IDs},
			Evidence: []Evidence{{Kind: EvidenceRuntimeProof, Text: "the runtime marked them (leaked): blocked on " +
				"something no runnable goroutine can reach, they can never wake"}}})
	}
	if in.objs != nil {
		out = append(out, a.blockedFindings(s, in)...)
	}
	for _, l := range s.LikelyLeaks {
		f := Finding{Kind: l.Kind, Confidence: l.Confidence,
			Subject:  Subject{Count: l.Blocked, State: l.State, WaitMax: l.WaitMax, Frame: l.Frame, Wait: l.Wait, Group: l.Key, IDs: l.IDs},
			Evidence: slices.Clone(l.Evidence)}
		if l.Kind == FindingLikelyLeak {
			f.Claim = fmt.Sprintf("%s leak at %s", words.Count(l.Blocked, "goroutine"), placeText(l.Frame))
			f.WouldProve = proveByLeakProf
		} else {
			f.Claim = fmt.Sprintf("%s at %s may be leaking", words.Count(l.Blocked, "goroutine"), placeText(l.Frame))
			f.WouldProve = proveBySnapshot + "; or " + proveByLeakProf
		}
		out = append(out, f)
	}
	out = append(out, a.contentionFindings(s)...)
	if in.growth != nil {
		out = append(out, growthFindings(in.growth, in.process)...)
	}
	if in.jvm != nil {
		out = append(out, jvmFindings(in.jvm, opts)...)
	}
	sortFindings(out)
	if out == nil {
		out = []Finding{}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// placeText names a place for a claim: the function, shortened as code
// names it.
func placeText(f *FrameRef) string {
	if f == nil {
		return "(no frames)"
	}
	return shortFunc(f.Func)
}

// goDeadlockFinding describes a cycle of lock waiters.
func goDeadlockFinding(c goDeadlock) Finding {
	f := Finding{Kind: FindingDeadlock, Confidence: Likely, WouldProve: proveStillThere}
	f.Subject.Count = int64(len(c.steps))
	var ids []string
	for i, st := range c.steps {
		next := c.steps[(i+1)%len(c.steps)]
		step := CycleStep{
			Routine:  RoutineRef{ID: st.waiter.id, State: st.waiter.state, Frame: frameRef(st.waiter.place)},
			WaitsFor: st.waiter.kind + " " + addrText(st.waiter.addr),
			HeldBy:   fmt.Sprintf("goroutine %d carries its address in %s", next.waiter.id, shortFunc(funcOf(st.via))),
		}
		f.Subject.Cycle = append(f.Subject.Cycle, step)
		f.Subject.IDs = append(f.Subject.IDs, st.waiter.id)
		ids = append(ids, itoa(st.waiter.id))
		if i == 0 {
			f.Subject.Frame = frameRef(st.waiter.place)
			f.Subject.State = st.waiter.state
		}
	}
	f.Claim = fmt.Sprintf("%s deadlocked: goroutines %s each wait for a lock the next one probably holds", words.Count(len(c.steps), "goroutine"), strings.Join(ids, ", "))
	f.Evidence = []Evidence{{Kind: EvidenceLockCycle, Text: "a cycle: each goroutine waits for a lock whose address the next one carries in its arguments while it waits for another; the runtime does not see such a deadlock while other goroutines run"}}
	return f
}

// blockedFindings are the Go objects nothing in the dump can release:
// many goroutines on one channel no other goroutine carries, and locks
// held by deadlocked goroutines.
func (a *Analyzer) blockedFindings(s *Summary, in findingsInput) []Finding {
	opts := a.opts
	var out []Finding
	for _, addr := range in.objs.deadObjects(int64(opts.LeakMinCount)) {
		w := in.objs.waits[addr]
		conf := Possible
		switch {
		case w.n >= opts.LeakLargeCount:
			conf = Likely
		case w.waitMax >= opts.LeakMinWait:
		default:
			continue
		}
		ev := []Evidence{{Kind: EvidenceNoSender, Text: fmt.Sprintf("%s wait on %s %s, and no other goroutine in the dump carries its address", words.Count(w.n, "goroutine"), kindArticle(w.kind), addrText(addr))}}
		if w.n >= opts.LeakLargeCount {
			ev = append(ev, Evidence{Kind: EvidenceSize, Text: words.Count(w.n, "goroutine") + " on one object: no pool is that large"})
		}
		if w.waitMax >= opts.LeakMinWait {
			ev = append(ev, Evidence{Kind: EvidenceWaitAge, Text: "blocked for up to " + words.Count(w.waitMax, "minute")})
		}
		out = append(out, Finding{Kind: FindingBlocked, Confidence: conf,
			Claim:      fmt.Sprintf("%s at %s wait on one %s nothing in the dump can wake them from", words.Count(w.n, "goroutine"), placeText(frameRef(w.place)), objectNoun(w.kind)),
			Subject:    Subject{Count: w.n, State: w.state, WaitMax: w.waitMax, Frame: frameRef(w.place), Wait: frameRef(w.wait), IDs: w.ids, Lock: addrText(addr)},
			Evidence:   ev,
			WouldProve: proveByLeakProf + "; or " + proveStillThere})
	}
	deadlocked := map[int64]bool{}
	for _, c := range in.cycles {
		for _, st := range c.steps {
			deadlocked[st.waiter.id] = true
		}
	}
	for _, l := range s.GoLocks {
		if l.Deadlocked || l.Holder == nil || !deadlocked[l.Holder.ID] {
			continue
		}
		out = append(out, Finding{Kind: FindingBlocked, Confidence: Likely,
			Claim:   fmt.Sprintf("%s wait for %s %s held by deadlocked goroutine %d", words.Count(l.Waiters, "goroutine"), kindArticle(l.Kind), l.Addr, l.Holder.ID),
			Subject: Subject{Count: l.Waiters, Frame: l.Frame, IDs: l.IDs, Lock: l.Addr, Holder: l.Holder},
			Evidence: []Evidence{{Kind: EvidenceHolder, Text: l.HolderEvidence},
				{Kind: EvidenceLockCycle, Text: fmt.Sprintf("goroutine %d is in a deadlock: it never releases the lock", l.Holder.ID)}},
			WouldProve: proveStillThere})
	}
	return out
}

func kindArticle(kind string) string {
	switch kind {
	case "object":
		return "the object"
	case "channel":
		return "the channel"
	}
	return "the " + kind
}

func objectNoun(kind string) string {
	switch kind {
	case "object", "channel":
		return "channel"
	}
	return kind
}

// contentionFindings are the locks with at least ContentionMin waiters:
// Go locks by address (with their probable holder) and, where the
// arguments do not show the lock, by the code that waits; JVM locks come
// from jvmFindings.
func (a *Analyzer) contentionFindings(s *Summary) []Finding {
	least := int64(a.opts.ContentionMin)
	var out []Finding
	known := map[string]bool{}
	for _, l := range s.GoLocks {
		for fn := range l.places {
			known[fn] = true
		}
		if l.Deadlocked || l.Waiters < least {
			continue
		}
		ev := []Evidence{{Kind: EvidenceSize, Text: fmt.Sprintf("%s wait for %s %s", words.Count(l.Waiters, "goroutine"), kindArticle(l.Kind), l.Addr)},
			{Kind: EvidenceHolder, Text: l.HolderEvidence}}
		if l.WaitMax > 0 {
			ev = append(ev, Evidence{Kind: EvidenceWaitAge, Text: "waiting for up to " + words.Count(l.WaitMax, "minute")})
		}
		out = append(out, Finding{Kind: FindingContention, Confidence: Certain,
			Claim:      fmt.Sprintf("%s wait for one %s at %s", words.Count(l.Waiters, "goroutine"), l.Kind, placeText(l.Frame)),
			Subject:    Subject{Count: l.Waiters, WaitMax: l.WaitMax, Frame: l.Frame, IDs: l.IDs, Lock: l.Addr, Holder: l.Holder},
			Evidence:   ev,
			WouldProve: "whether they are stuck: " + proveStillThere})
	}
	for _, c := range s.Contention {
		if c.Count < least || known[c.Frame.Func] {
			continue
		}
		f := c.Frame
		out = append(out, Finding{Kind: FindingContention, Confidence: Likely,
			Claim:      fmt.Sprintf("%s wait for a %s at %s", words.Count(c.Count, "goroutine"), c.Lock, placeText(&f)),
			Subject:    Subject{Count: c.Count, WaitMax: c.WaitMax, Frame: &f, IDs: c.IDs},
			Evidence:   []Evidence{{Kind: EvidenceSize, Text: fmt.Sprintf("%s wait at one place for a %s; the traceback's arguments do not show whether it is one lock, nor its holder", words.Count(c.Count, "goroutine"), c.Lock)}},
			WouldProve: "whether they are stuck: " + proveStillThere})
	}
	return out
}

// jvmFindings are the deadlocks, the threads behind them and the lock
// pile-ups of a JVM dump's lock graph.
func jvmFindings(rep *LockReport, opts Options) []Finding {
	var out []Finding
	inCycle := map[*stack.Routine]bool{}
	reportedNames := map[string]bool{}
	for _, dl := range rep.Reported {
		for _, t := range dl.Threads {
			reportedNames[t.Name] = true
		}
	}
	for _, dl := range rep.Deadlocks {
		f := Finding{Kind: FindingDeadlock, Confidence: Likely}
		reported := len(rep.Reported) > 0
		var names []string
		for i, r := range dl.Routines {
			inCycle[r] = true
			reported = reported && reportedNames[r.Name]
			step := CycleStep{Routine: *threadRoutine(r)}
			if lk := dl.Locks[i]; lk != nil {
				step.WaitsFor = lk.String()
				step.HeldBy = "its lock lines"
				if lk.OwnerFrom == OwnerFromJVMReport {
					step.HeldBy = "the JVM's deadlock report"
				}
			}
			f.Subject.Cycle = append(f.Subject.Cycle, step)
			names = append(names, r.Name)
		}
		f.Subject.Count, f.Subject.Names = int64(len(dl.Routines)), names
		f.Subject.Frame = frameRef(dedupe.NameFrame(dl.Routines[0].Stack))
		f.Claim = fmt.Sprintf("%s deadlocked: %s each wait for a lock the next one holds", words.Count(len(names), "thread"), strings.Join(quoteNames(names), ", "))
		f.Evidence = []Evidence{{Kind: EvidenceLockCycle, Text: "a cycle of the lock graph: each thread waits for a lock the next one holds"}}
		if reported {
			f.Confidence = Certain
			f.Evidence = append([]Evidence{{Kind: EvidenceRuntimeProof, Text: "the JVM reported this deadlock"}}, f.Evidence...)
		} else {
			f.WouldProve = "the JVM's own deadlock report (jstack or jcmd Thread.print prints it)"
		}
		out = append(out, f)
	}
	if len(rep.Deadlocks) == 0 {
		// The JVM reported deadlocks the threads of the input do not show
		// (threads cut out of a paste): its report is the cycle.
		for _, dl := range rep.Reported {
			f := Finding{Kind: FindingDeadlock, Confidence: Certain, Subject: Subject{Count: int64(len(dl.Threads)), Names: dl.Names()}}
			for _, t := range dl.Threads {
				f.Subject.Cycle = append(f.Subject.Cycle, CycleStep{Routine: RoutineRef{Name: t.Name}, WaitsFor: reportedLock(t.Waiting), HeldBy: "the JVM's deadlock report"})
			}
			f.Claim = fmt.Sprintf("%s deadlocked: %s, as the JVM reported", words.Count(len(dl.Threads), "thread"), strings.Join(quoteNames(dl.Names()), ", "))
			f.Evidence = []Evidence{{Kind: EvidenceRuntimeProof, Text: "the JVM reported this deadlock (\"Found one Java-level deadlock\"); the threads' own lock lines are not in the input"}}
			out = append(out, f)
		}
	}
	least := opts.ContentionMin
	for _, lk := range rep.Blockers {
		var waiting []*stack.Routine
		for _, r := range lk.Blocked {
			if !inCycle[r] {
				waiting = append(waiting, r)
			}
		}
		if len(waiting) == 0 {
			continue
		}
		sub := Subject{Count: int64(len(waiting)), Lock: lk.String(), State: waiting[0].State, Frame: frameRef(dedupe.NameFrame(waiting[0].Stack))}
		for _, r := range waiting[:min(len(waiting), timelineIDs)] {
			sub.Names = append(sub.Names, r.Name)
		}
		if lk.Owner != nil {
			sub.Holder = threadRoutine(lk.Owner)
		}
		switch {
		case lk.Owner != nil && inCycle[lk.Owner]:
			out = append(out, Finding{Kind: FindingBlocked, Confidence: Certain,
				Claim:   fmt.Sprintf("%s wait for %s held by deadlocked thread %s", words.Count(len(waiting), "thread"), lk.String(), quoteName(lk.Owner.Name)),
				Subject: sub,
				Evidence: []Evidence{{Kind: EvidenceHolder, Text: quoteName(lk.Owner.Name) + " holds it (" + string(lk.OwnerFrom) + ")"},
					{Kind: EvidenceLockCycle, Text: quoteName(lk.Owner.Name) + " is in a deadlock: it never releases the lock"}}})
		case len(waiting) >= least:
			holder := "owner unknown: the dump lists no owner (jstack -l or jcmd Thread.print -l names the owners of java.util.concurrent locks)"
			if lk.Owner != nil {
				holder = RoutineRef{Name: lk.Owner.Name, State: lk.Owner.State, Frame: frameRef(dedupe.NameFrame(lk.Owner.Stack))}.String() + " holds it"
			}
			out = append(out, Finding{Kind: FindingContention, Confidence: Certain,
				Claim:   fmt.Sprintf("%s blocked on one lock %s", words.Count(len(waiting), "thread"), lk.String()),
				Subject: sub,
				Evidence: []Evidence{{Kind: EvidenceSize, Text: fmt.Sprintf("%s wait to acquire %s", words.Count(len(waiting), "thread"), lk.String())},
					{Kind: EvidenceHolder, Text: holder}},
				WouldProve: "whether they are stuck: a second dump with the same threads still blocked and no CPU time used (stackdump timeline)"})
		}
	}
	return out
}

// threadRoutine names a JVM thread.
func threadRoutine(r *stack.Routine) *RoutineRef {
	return &RoutineRef{Name: r.Name, ID: r.ID, State: r.State, Frame: frameRef(dedupe.NameFrame(r.Stack))}
}

// reportedLock is what a thread of the JVM's deadlock report waits for,
// without the report's wording: "monitor 0x… (object 0x…, a
// java.lang.Object)".
func reportedLock(waiting string) string {
	for _, p := range []string{"waiting to lock ", "waiting for "} {
		waiting = strings.TrimPrefix(waiting, p)
	}
	return strings.TrimSuffix(waiting, ",")
}
