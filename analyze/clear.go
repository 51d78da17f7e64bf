package analyze

// Clear lists the checks of s that found nothing — "no deadlock", "no
// leaks", "nothing blocked", "no lock contention", "no threads blocked on
// a held lock" — so that silence is not mistaken for "not looked": what
// the text's ✓ line and the HTML report say. Checks the input cannot
// make (leaks and blocking without states) are left out, and nothing is
// clear in a dump of a crash.
func (s *Summary) Clear() []string {
	if s.Crash != nil {
		return nil // the process crashed: nothing is all clear
	}
	has := map[FindingKind]bool{}
	for _, f := range s.Findings {
		has[f.Kind] = true
	}
	var ok []string
	// Go lock cycles are read from the arguments, which debug=1, pprof
	// and trace snapshots do not carry.
	looked := s.JVM != nil || s.Has("states") && s.Has("args")
	if !has[FindingDeadlock] && looked && (s.JVM == nil || s.JVM.ReportedDeadlocks == 0) {
		ok = append(ok, "no deadlock")
	}
	switch {
	case s.JVM != nil:
		if len(s.JVM.Blockers) == 0 {
			ok = append(ok, "no threads blocked on a held lock")
		} else if !has[FindingContention] && !has[FindingBlocked] {
			ok = append(ok, "no lock contention")
		}
	default:
		if !has[FindingProvenLeak] && !has[FindingLikelyLeak] && !has[FindingLeakSuspect] && s.LeakedTotal == 0 && s.Has("states") {
			ok = append(ok, "no leaks")
		}
		// Goroutines queued on a held lock are blocked too: "nothing
		// blocked" beside a contention finding would contradict it.
		if !has[FindingBlocked] && !has[FindingContention] && s.Has("states") {
			ok = append(ok, "nothing blocked")
		}
		if !has[FindingContention] {
			ok = append(ok, "no lock contention")
		}
	}
	return ok
}
