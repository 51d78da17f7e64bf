package analyze

import (
	"strings"
	"testing"
)

// Findings sort most alarming first, then surest, then largest, and read
// on one line.
func TestFindingsOrderAndLine(t *testing.T) {
	fs := []Finding{
		{Kind: FindingLeakSuspect, Confidence: Possible, Claim: "s", Subject: Subject{Count: 900}},
		{Kind: FindingContention, Confidence: Certain, Claim: "c", Subject: Subject{Count: 5}},
		{Kind: FindingDeadlock, Confidence: Likely, Claim: "d2", Subject: Subject{Count: 2}},
		{Kind: FindingDeadlock, Confidence: Certain, Claim: "d1", Subject: Subject{Count: 2}},
		{Kind: FindingContention, Confidence: Certain, Claim: "c40", Subject: Subject{Count: 40}},
	}
	sortFindings(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Claim)
	}
	if strings.Join(got, " ") != "d1 d2 c40 c s" {
		t.Errorf("order %v", got)
	}
	if s := fs[2].String(); s != "CONTENTION (certain) c40" {
		t.Errorf("String() = %q", s)
	}
	sub := Subject{Frame: &FrameRef{Func: "main.get"}, Names: []string{"pile-1"}, Holder: &RoutineRef{Name: "holder"},
		Cycle: []CycleStep{{Routine: RoutineRef{Name: "dl-1", Frame: &FrameRef{Func: "A.run"}}}}}
	if w := sub.Where(); w != "main.get pile-1 A.run dl-1 holder" {
		t.Errorf("Where() = %q", w)
	}
}
