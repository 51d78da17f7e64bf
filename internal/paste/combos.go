package paste

// Combos returns compositions of transformations seen together in one real
// paste, each with the paste it imitates.
func Combos() []Transform {
	combo := func(example string, names ...string) Transform {
		steps := make([]Transform, len(names))
		for i, n := range names {
			t, ok := lookupSingle(n)
			if !ok {
				panic("paste: combo names unknown transformation " + n)
			}
			steps[i] = t
		}
		c := Compose(steps...)
		c.Example = example
		return c
	}
	return []Transform{
		combo("https://github.com/moby/moby/pull/44791", "sigquit-echo", "log-lead", "details"),
		combo("https://github.com/kubernetes/kubernetes/issues/128638", "journald", "tabs-to-spaces", "fence"),
		combo("https://github.com/docker/cli/issues/5217", "journald", "quote"),
		combo("https://github.com/NationalSecurityAgency/ghidra/issues/5200", "tabs-to-spaces", "quote"),
		combo("https://github.com/matrixorigin/matrixone/issues/19185", "cut-end", "cut-timestamp", "fence", "chat"),
		combo("https://github.com/matrixorigin/matrixone/issues/19185 (a dump cut inside its fence)", "cut-end", "fence"),
		combo("issue 22 (stackdump) item 2: a cut dump followed by chat text", "cut-end", "chat"),
		combo("https://github.com/milvus-io/milvus/issues/7977", "actions-timestamps", "line-numbers", "fence-lang"),
		combo("https://github.com/aquasecurity/starboard/issues/627", "flatten", "log-lead", "fence"),
		combo("https://github.com/krosenvold/bgit/issues/6", "wrapper", "soft-wrap"),
		combo("https://github.com/spotify/threaddump-analyzer/issues/12", "deadlock-only", "tabs-to-spaces", "fence"),
		combo("https://github.com/docker/for-win/issues/9798", "fence-glued-start", "tabs-to-spaces"),
		combo("https://github.com/AndreyVMarkelov/jira-prometheus-exporter/issues/43", "from-header", "reindent", "inline-code"),
		combo("issue 22 (stackdump) item 1: a log prefix before a thread's header", "from-header", "log-first-line"),
		combo("issue 22 (stackdump) item 1: a fence glued to a thread's header", "from-header", "fence-glued-start"),
		combo("https://github.com/docker/compose/issues/8599", "blank-dropped", "fence"),
		combo("https://github.com/restic/restic/issues/2079", "cut-start", "tabs-to-spaces", "fence"),
		combo("issue 22 (stackdump): fences with chat around", "fence", "chat"),
		combo("issue 38 (stackdump) item 5: a journald paste cut mid-goroutine (journald as in https://github.com/kubernetes/kubernetes/issues/128638)", "cut-end", "journald"),
		combo("issue 38 (stackdump) item 5: a journald paste cut mid-goroutine, the journal going on after it (journald as in https://github.com/kubernetes/kubernetes/issues/128638)", "cut-log", "journald"),
		combo("issue 38 (stackdump) item 5: a \"> \"-quoted copy of a cut dump (quotes as in https://github.com/docker/cli/issues/5217)", "cut-end", "quote"),
		combo("Markdown article in a public repository (see html-escape): flattened and HTML-escaped jstack text", "flatten", "html-escape"),
	}
}

func lookupSingle(name string) (Transform, bool) {
	for _, t := range All() {
		if t.Name == name {
			return t, true
		}
	}
	return Transform{}, false
}
