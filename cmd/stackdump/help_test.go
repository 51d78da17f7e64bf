package main

import (
	"strings"
	"testing"
)

// TestHelpLeadsWithExamples: every --help page starts with its one-line
// summary and its examples, before the usage line and the description,
// and the description is in plain words: none of the internal words the
// pages used to be full of ("proven JVM", "debug1", "predicted pause").
func TestHelpLeadsWithExamples(t *testing.T) {
	jargon := []string{"proven JVM", "debug1", "debug=1", "debug=2", "predicted", "stop-the-world", "execution-trace", "goroutineleak"}
	root := newRootCommand()
	for _, c := range append(root.Commands(), root) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || c.Name() == "version" {
			continue
		}
		out, _, err := runCLI(t, strings.Fields(c.CommandPath() + " --help")[1:]...)
		if err != nil {
			t.Fatalf("%s --help: %v", c.CommandPath(), err)
		}
		first, _, _ := strings.Cut(out, "\n")
		examples, usage := strings.Index(out, "\nExamples:\n"), strings.Index(out, "\nUsage:\n")
		if first != c.Short || examples < 0 || usage < examples {
			t.Errorf("%s --help does not open with its summary and examples:\n%.400s", c.CommandPath(), out)
		}
		for _, word := range jargon {
			if strings.Contains(c.Short, word) || strings.Contains(c.Long, word) {
				t.Errorf("%s --help says %q in its description", c.CommandPath(), word)
			}
		}
		if n := strings.Count(c.Long, "\n"); n > 25 {
			t.Errorf("%s --help: a description of %d lines; the detail belongs in docs/", c.CommandPath(), n)
		}
	}
}
