package analyze

import (
	"strings"
)

// findingLabel is a kind as the text heads it.
func findingLabel(k FindingKind) string {
	return strings.ToUpper(strings.ReplaceAll(string(k), "-", " "))
}

func findingStyle(f Finding) style {
	switch f.Kind {
	case FindingContention, FindingGrowth, FindingLeakSuspect:
		return yellow
	}
	return red
}

// findingsStyle is red when a finding is, else yellow.
func findingsStyle(fs []Finding) style {
	for _, f := range fs {
		if findingStyle(f) == red {
			return red
		}
	}
	return yellow
}

// writeFindings renders findings: each as its kind, confidence and claim,
// then what it is about (a cycle's steps, a lock's holder, where), each
// piece of evidence, and what would settle it.
func (t *textWriter) writeFindings(fs []Finding, width int) {
	for _, f := range fs {
		t.b = append(t.b, "  "...)
		t.styled(bold+findingStyle(f), findingLabel(f.Kind))
		t.b = append(t.b, ' ')
		t.styled(dim, "("+string(f.Confidence)+")")
		t.b = append(t.b, ' ')
		t.styled(bold, f.Claim)
		t.b = append(t.b, '\n')
		sub := f.Subject
		for _, c := range sub.Cycle {
			who := c.Routine.String()
			line := "    " + who + " waits for " + c.WaitsFor
			if c.HeldBy != "" {
				line += "; held by the next: " + c.HeldBy
			}
			t.line(cell{text: line})
		}
		if len(sub.Cycle) == 0 {
			var at []string
			if sub.State != "" {
				at = append(at, sub.State)
			}
			if sub.WaitMax > 0 {
				at = append(at, "up to "+minutes(sub.WaitMax))
			}
			if sub.Frame != nil {
				where := shorten(shortFunc(sub.Frame.Func), width) + " " + sub.Frame.Location()
				if sub.Wait != nil {
					where += " in " + shortFunc(sub.Wait.Func)
				}
				at = append(at, where)
			}
			if sub.Lock != "" {
				at = append(at, "on "+sub.Lock)
			}
			if len(sub.Names) > 0 {
				names := quoteNames(sub.Names[:min(len(sub.Names), textNames)])
				more := ""
				if int64(len(sub.Names)) < sub.Count || len(sub.Names) > textNames {
					more = " …"
				}
				at = append(at, strings.Join(names, " ")+more)
			} else if len(sub.IDs) > 0 {
				at = append(at, idList(sub.IDs, sub.Count))
			}
			if len(at) > 0 {
				t.line(cell{text: "    " + strings.Join(at, "  "), style: dim})
			}
		}
		for _, e := range f.Evidence {
			t.line(cell{text: "    · " + e.Text})
		}
		if f.WouldProve != "" {
			t.line(cell{text: "    would prove: " + f.WouldProve, style: dim})
		}
	}
}

// findings renders the summary's findings under their heading.
func (r *textRenderer) findings() {
	fs := r.s.Findings
	if len(fs) == 0 {
		return
	}
	r.heading("Findings", findingsStyle(fs), "verdicts with their evidence, most alarming first")
	r.writeFindings(fs, r.width)
}
