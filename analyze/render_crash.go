package analyze

import (
	"strings"

	"github.com/stackdump/stackdump/internal/words"
)

// Caps on what the text shows of a crash.
const (
	crashMessageLines = 12
	crashStackFrames  = 12
)

// crash opens the text with what crashed: its kind, its message, and the
// stack of the goroutine that crashed, runtime frames left out.
func (r *textRenderer) crash() {
	c := r.s.Crash
	if c == nil {
		return
	}
	label := strings.ToUpper(string(c.Kind))
	pad := strings.Repeat(" ", len(label)+2)
	lines := strings.Split(c.Message, "\n")
	for i, l := range lines[:min(len(lines), crashMessageLines)] {
		if i == 0 {
			r.styled(bold+red, label)
			r.b = append(r.b, "  "...)
			r.line(cell{text: l, style: bold})
			continue
		}
		// A list in the message (Go 1.25+'s running tests) is indented
		// with tabs: spaces keep it under the message.
		r.line(cell{text: pad + expandLeadingTabs(l)})
	}
	if len(lines) > crashMessageLines {
		r.line(cell{text: pad + "… " + words.Count(len(lines)-crashMessageLines, "more line"), style: dim})
	}
	if c.ThreadBlocks > 0 {
		r.line(cell{text: pad + "one dump of the process, printed in " + words.Count(c.ThreadBlocks, "thread block"), style: dim})
	}
	if c.found {
		r.culprit(c)
	}
	r.b = append(r.b, '\n')
}

// culprit shows the goroutine that crashed.
func (r *textRenderer) culprit(c *Crash) {
	head := "in goroutine " + itoa(c.Goroutine)
	if c.State != "" {
		head += " [" + c.State + "]"
	}
	if c.Goroutine == 0 {
		// A fault on an OS thread's own stack (g0): the runtime's code,
		// not one of the program's goroutines.
		head += ", the runtime's stack of an OS thread"
	}
	if len(c.Tests) > 0 {
		head += ", running " + strings.Join(c.Tests, ", ")
	}
	r.line(cell{text: head + ":", style: bold})
	for _, f := range c.Stack[:min(len(c.Stack), crashStackFrames)] {
		r.line(cell{text: "  " + shorten(shortFunc(f.Func), r.width) + " "}, cell{text: f.Location(), style: dim})
	}
	if len(c.Stack) > crashStackFrames {
		r.line(cell{text: "  … " + words.Count(len(c.Stack)-crashStackFrames, "more frame"), style: dim})
	}
	switch {
	case len(c.Stack) > 0:
	case c.frames == 0:
		// Its header and nothing else: a dump cut after it, or a
		// goroutine whose stack was not printed.
		r.line(cell{text: "  (no frames in the dump)", style: dim})
	default:
		r.line(cell{text: "  (only runtime frames)", style: dim})
	}
}

// expandLeadingTabs turns each tab that starts l into two spaces.
func expandLeadingTabs(l string) string {
	n := len(l) - len(strings.TrimLeft(l, "\t"))
	if n == 0 {
		return l
	}
	return strings.Repeat("  ", n) + l[n:]
}
