package analyze

import (
	"cmp"
	"slices"
	"strings"
)

// FindingKind names what a finding claims.
type FindingKind string

// The kinds of finding, most alarming first in [FindingKinds].
const (
	// FindingDeadlock: routines in a cycle, each waiting for a lock the
	// next one holds (Go: probable holders, from the arguments; JVM: the
	// lock graph and the JVM's own report), or the runtime's "all
	// goroutines are asleep".
	FindingDeadlock FindingKind = "deadlock"
	// FindingProvenLeak: goroutines the runtime proved leaked (Go 1.26+
	// goroutine leak profile, `(leaked)`).
	FindingProvenLeak FindingKind = "proven-leak"
	// FindingBlocked: routines waiting on something nothing in the dump
	// can give them: many on one channel no other goroutine holds, or a
	// lock held by a deadlocked routine.
	FindingBlocked FindingKind = "blocked"
	// FindingLikelyLeak: a group parked on channels with evidence it is
	// not a pool: started per request by goroutines that have exited,
	// each on a channel no one else holds, or growing across snapshots.
	FindingLikelyLeak FindingKind = "likely-leak"
	// FindingStuck: routines with the same state and stack and no
	// progress across snapshots, on a wait that shows they cannot
	// progress (a lock, a deadlock, a channel no one can serve); idle
	// waits are not stuck.
	FindingStuck FindingKind = "stuck"
	// FindingContention: many routines waiting to acquire one lock.
	FindingContention FindingKind = "contention"
	// FindingGrowth: a group that grew across snapshots without falling.
	FindingGrowth FindingKind = "growth"
	// FindingLeakSuspect: a group with some evidence of a leak that one
	// snapshot cannot settle.
	FindingLeakSuspect FindingKind = "leak-suspect"
)

// FindingKinds lists the kinds, most alarming first: the order findings
// are shown in.
func FindingKinds() []FindingKind {
	return []FindingKind{FindingDeadlock, FindingProvenLeak, FindingBlocked, FindingLikelyLeak,
		FindingStuck, FindingContention, FindingGrowth, FindingLeakSuspect}
}

// Confidence says how sure a finding is.
type Confidence string

// Confidences, surest first.
const (
	// Certain: the runtime or the JVM proved it (a leak profile, a
	// deadlock report, a fatal "all goroutines are asleep"), or the dump
	// states it as a fact (threads waiting on one lock).
	Certain Confidence = "certain"
	// Likely: evidence across snapshots, or several pieces of evidence
	// that a healthy process does not show together.
	Likely Confidence = "likely"
	// Possible: what one snapshot shows; WouldProve says what would settle
	// it.
	Possible Confidence = "possible"
)

// Finding is a verdict with its evidence.
type Finding struct {
	Kind       FindingKind `json:"kind"`
	Confidence Confidence  `json:"confidence"`
	// Claim says what is found in one sentence: "300 goroutines leak at
	// main.fetchQuote".
	Claim   string  `json:"claim"`
	Subject Subject `json:"subject"`
	// Evidence is why, the strongest first; never empty.
	Evidence []Evidence `json:"evidence"`
	// WouldProve says what would settle a finding that is not certain
	// ("a second snapshot in a few minutes: a leak only grows"); empty for
	// certain ones.
	WouldProve string `json:"would_prove,omitempty"`
}

// Subject is what a finding is about.
type Subject struct {
	// Count is how many routines the finding concerns.
	Count int64 `json:"count"`
	// State is their state (the most common one); WaitMax their longest
	// wait in minutes, as the runtime says (Go).
	State   string `json:"state,omitempty"`
	WaitMax int    `json:"wait_max,omitempty"`
	// Frame is where they are, by the one naming rule (dedupe.PlaceOf);
	// Wait is the platform's primitive under it.
	Frame *FrameRef `json:"frame,omitempty"`
	Wait  *FrameRef `json:"wait,omitempty"`
	// Group is the dedupe key of their group, when they are one.
	Group string `json:"group,omitempty"`
	// IDs are the first routine ids; Names the first JVM thread names.
	IDs   []int64  `json:"ids,omitempty"`
	Names []string `json:"names,omitempty"`
	// Lock is the lock or channel they wait on: "0xc000123450" for Go
	// (from the arguments), "<0x…> (a java.lang.Object)" for the JVM.
	Lock string `json:"lock,omitempty"`
	// Holder is the routine holding Lock, when the dump shows it.
	Holder *RoutineRef `json:"holder,omitempty"`
	// Cycle is a deadlock's routines, each waiting for the lock the
	// next one holds.
	Cycle []CycleStep `json:"cycle,omitempty"`
}

// RoutineRef names one routine: a goroutine by id, a thread by name.
type RoutineRef struct {
	ID    int64     `json:"id,omitempty"`
	Name  string    `json:"name,omitempty"`
	State string    `json:"state,omitempty"`
	Frame *FrameRef `json:"frame,omitempty"`
}

// String is "goroutine 7 (sleep, in main.(*store).compact)" or
// "\"pile-holder\" (TIMED_WAITING (sleeping), in …)".
func (r RoutineRef) String() string {
	who := "goroutine " + itoa(r.ID)
	if r.Name != "" {
		who = quoteName(r.Name)
	}
	var at []string
	if r.State != "" {
		at = append(at, r.State)
	}
	if r.Frame != nil {
		at = append(at, "in "+shortFunc(r.Frame.Func))
	}
	if len(at) > 0 {
		who += " (" + strings.Join(at, ", ") + ")"
	}
	return who
}

// CycleStep is one routine of a deadlock and the lock it waits for.
type CycleStep struct {
	Routine RoutineRef `json:"routine"`
	// WaitsFor is the lock it waits for; HeldBy says how its holder, the
	// next step, is known ("the JVM's report", "its lock lines", "it
	// carries the lock's address in main.transfer").
	WaitsFor string `json:"waits_for"`
	HeldBy   string `json:"held_by,omitempty"`
}

// Evidence is one reason for a finding.
type Evidence struct {
	// Kind says what sort of evidence it is (the Evidence* constants).
	Kind string `json:"kind"`
	// Text says it for people.
	Text string `json:"text"`
	// Series is a count per snapshot, oldest first, for growth.
	Series []int64 `json:"series,omitempty"`
}

// Kinds of evidence.
const (
	EvidenceRuntimeProof = "runtime-proof" // the runtime or the JVM said so
	EvidenceLockCycle    = "lock-cycle"    // each waits for a lock the next holds
	EvidenceGrowth       = "growth"        // grew across snapshots, never fell
	EvidenceChurn        = "churn"         // fell between snapshots: what leaked stays
	EvidencePeers        = "peers"         // its size against groups like it
	EvidenceParents      = "parents"       // started by many goroutines, most gone
	EvidenceNoSender     = "no-sender"     // nothing else in the dump holds what it waits on
	EvidenceHolder       = "holder"        // who holds the lock
	EvidenceWaitAge      = "wait-age"      // how long against the process's age
	EvidenceSize         = "size"          // how many
	EvidenceNoProgress   = "no-progress"   // no change of state, stack or CPU time
)

// findingOrder ranks kinds for sorting.
func findingOrder(k FindingKind) int {
	i := slices.Index(FindingKinds(), k)
	if i < 0 {
		return len(FindingKinds())
	}
	return i
}

func confidenceOrder(c Confidence) int {
	switch c {
	case Certain:
		return 0
	case Likely:
		return 1
	}
	return 2
}

// sortFindings orders findings by kind (most alarming first), then
// confidence, then size.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(findingOrder(a.Kind), findingOrder(b.Kind)),
			cmp.Compare(confidenceOrder(a.Confidence), confidenceOrder(b.Confidence)),
			cmp.Compare(b.Subject.Count, a.Subject.Count))
	})
}

// Where is the text of the subject's place and names, for matching and
// for metrics labels: the function of its frame, its thread names, its
// lock and the functions of a cycle.
func (s Subject) Where() string {
	var parts []string
	if s.Frame != nil {
		parts = append(parts, s.Frame.Func)
	}
	parts = append(parts, s.Names...)
	for _, c := range s.Cycle {
		if c.Routine.Frame != nil {
			parts = append(parts, c.Routine.Frame.Func)
		}
		if c.Routine.Name != "" {
			parts = append(parts, c.Routine.Name)
		}
	}
	if s.Holder != nil {
		if s.Holder.Name != "" {
			parts = append(parts, s.Holder.Name)
		}
	}
	return strings.Join(parts, " ")
}

// String is the finding on one line: "LIKELY LEAK (likely) 300 goroutines
// leak at main.fetchQuote", for tables and logs.
func (f Finding) String() string {
	return findingLabel(f.Kind) + " (" + string(f.Confidence) + ") " + f.Claim
}
