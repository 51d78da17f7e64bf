package paste

import "bytes"

// SkipDir reports whether a directory of the repository's testdata holds
// no program output to paste (JSON, traces, profiles, golden outputs,
// malformed inputs, generators). The corpus generator and the test that
// reads its forms walk testdata the same way through it.
func SkipDir(name string) bool {
	switch name {
	case "gen", "json", "trace", "pprof", "golden", "malformed":
		return true
	}
	return false
}

// GlueBases returns, for a dump, the base names of the testdata files that
// glue forms put after it, keyed by the glue's name (for [GlueWith]): a
// debug=1 profile after a traceback or debug=2 dump, a debug=2 dump after a
// debug=1 profile, a Go dump after a JVM dump and a JVM dump after a Go one.
func GlueBases(data []byte) map[string]string {
	switch {
	case DetectKind(data)&JVM != 0:
		return map[string]string{"go": "sigquit_go126.txt"}
	case bytes.HasPrefix(data, []byte("goroutine profile: total")):
		return map[string]string{"debug2": "debug2_go126.txt", "jvm": "local_jdk17.0.15-jstack-plain.txt"}
	default:
		return map[string]string{"debug1": "debug1_go126.txt", "jvm": "local_jdk17.0.15-jstack-plain.txt"}
	}
}

// FramesALoss reports whether t is a composition whose first step destroys
// part of the dump and whose later steps lose nothing more (a cut, then
// fenced): its result must read as the first step's result does
// ([Transform.ApplyFirst] with n = 1).
func (t Transform) FramesALoss() bool {
	steps := t.Steps()
	if len(steps) < 2 || steps[0].Loss != Destroyed {
		return false
	}
	for _, s := range steps[1:] {
		if s.Loss == Destroyed {
			return false
		}
	}
	return true
}
