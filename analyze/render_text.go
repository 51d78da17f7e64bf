package analyze

import (
	"fmt"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/jvm"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/internal/words"
)

// TextOptions configure [WriteText].
type TextOptions struct {
	// Color styles headings and findings with ANSI escapes. Callers set it
	// for terminals, and leave it off when NO_COLOR is set (no-color.org).
	Color bool
	// FuncWidth bounds the width of function names in tables (their end is
	// kept); 0 means 72.
	FuncWidth int
	// ListHousekeeping makes WriteTimelineText list the housekeeping rows
	// (the platform's idle threads and goroutines) one by one, as the
	// stuck ones; by default they are folded into one line.
	ListHousekeeping bool
	// ListHint, when set, ends each line WriteTimelineText folds rows
	// into, to say how to list them (stackdump's timeline command says
	// "--housekeeping lists them"); "" adds nothing.
	ListHint string
}

// WriteText renders s as one screen of text for an on-call engineer: a
// headline with totals, then each non-empty section, most alarming first.
func WriteText(w io.Writer, s *Summary, opts TextOptions) error {
	if opts.FuncWidth <= 0 {
		opts.FuncWidth = 72
	}
	r := &textRenderer{textWriter: textWriter{color: opts.Color}, s: s, width: opts.FuncWidth}
	r.crash()
	r.headline()
	r.races()
	r.findings()
	r.goLocks()
	r.jvm()
	r.contention()
	r.topGroups()
	r.longestWaits()
	r.creators()
	r.parents()
	r.allClear()
	_, err := w.Write(r.b)
	return err
}

type textRenderer struct {
	textWriter
	s     *Summary
	width int
}

func (r *textWriter) heading(title string, s style, detail string) {
	r.b = append(r.b, '\n')
	r.styled(bold+s, title)
	if detail != "" {
		r.b = append(r.b, "  "...)
		r.styled(dim, detail)
	}
	r.b = append(r.b, '\n')
}

func (r *textRenderer) headline() {
	s := r.s
	var where []string
	if s.Source.Name != "" {
		where = append(where, s.Source.Name)
	}
	where = append(where, string(s.Source.Kind))
	if s.Source.Runtime != "" {
		where = append(where, s.Source.Runtime)
	}
	if s.Source.Target != "" && s.Source.Target != s.Source.Name {
		where = append(where, s.Source.Target)
	}
	if at := s.Source.CapturedAt; at != nil {
		if at.Location() == jvm.WallClock {
			// jstack and jcmd print the host's local time, zone unknown.
			where = append(where, at.Format(time.DateTime+" (local time)"))
		} else {
			where = append(where, at.UTC().Format(time.DateTime+" UTC"))
		}
	}
	r.line(cell{text: strings.Join(where, " · "), style: dim})
	total := words.Count(s.Total, s.Noun) + " in " + words.Count(s.Groups, "group")
	r.styled(bold, total)
	if len(s.States) > 0 {
		r.b = append(r.b, ": "...)
		r.b = append(r.b, stateList(s.States, 6)...)
	}
	if s.Locked > 0 {
		r.b = append(r.b, "; "+lockedText(s.Locked)...)
	}
	r.b = append(r.b, '\n')
	if s.Truncated {
		r.line(cell{text: "TRUNCATED: the dump was cut short; every count is a lower bound", style: bold + red})
	}
	r.preamble()
	if s.WarningCount > 0 {
		r.line(cell{text: fmt.Sprintf("%s; first: %s", words.Count(s.WarningCount, "parse warning"), warningText(s.Warnings[0])), style: yellow})
	}
	if len(s.Missing) > 0 {
		r.line(cell{text: "this input carries no " + strings.ReplaceAll(strings.Join(s.Missing, ", "), "_", " "), style: dim})
	}
}

// textPreamble is how many preamble lines the text shows.
const textPreamble = 4

// preamble shows the start of the dump's preamble (a panic, a fatal
// error, a signal), except a JVM's deadlock report when the deadlocks
// section shows the deadlocks.
func (r *textRenderer) preamble() {
	s := r.s
	if s.JVM != nil && len(s.JVM.Deadlocks) > 0 || s.Crash != nil {
		return // shown by deadlocks or crash
	}
	lines := s.Preamble[:min(len(s.Preamble), textPreamble)]
	for i, p := range lines {
		st := red
		if i > 0 {
			st = plain
		}
		r.line(cell{text: p, style: st})
	}
	if s.PreambleLines > len(lines) {
		r.line(cell{text: "… " + words.Count(s.PreambleLines-len(lines), "more preamble line"), style: dim})
	}
}

func stateList(states []StateCount, n int) string {
	var parts []string
	for i, sc := range states {
		if i == n {
			parts = append(parts, fmt.Sprintf("%d more", len(states)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", sc.Count, sc.State))
	}
	return strings.Join(parts, ", ")
}

func warningText(w Warning) string {
	msg := w.Message
	if w.Line > 0 {
		msg = fmt.Sprintf("line %d: %s", w.Line, msg)
	} else {
		msg = fmt.Sprintf("offset %d: %s", w.Offset, msg)
	}
	if w.Text != "" {
		msg += fmt.Sprintf(": %q", shorten(w.Text, 60))
	}
	return msg
}

func (r *textRenderer) where(f *FrameRef) cell {
	if f == nil {
		return cell{text: "(no frames)", style: dim}
	}
	return cell{text: shorten(shortFunc(f.Func), r.width) + " " + f.Location()}
}

func (r *textRenderer) creator(f *FrameRef) cell {
	if f == nil {
		return cell{}
	}
	return cell{text: "← " + shorten(shortFunc(f.Func), r.width/2), style: dim}
}

func count(n int64, s style) cell { return cell{text: itoa(n), style: s, right: true} }

// goLocks lists the locks goroutines wait for whose address the
// arguments show, with their probable holders.
func (r *textRenderer) goLocks() {
	if len(r.s.GoLocks) == 0 {
		return
	}
	r.heading("Locks", yellow, "goroutines waiting for one lock, by its address, and who probably holds it")
	var rows [][]cell
	for _, l := range r.s.GoLocks {
		wait := ""
		if l.WaitMax > 0 {
			wait = "up to " + minutes(l.WaitMax)
		}
		holder := cell{text: "holder not in the dump", style: dim}
		switch {
		case l.Holder != nil:
			holder.text = "held by " + l.Holder.String()
			holder.style = plain
		case l.Carriers > 1:
			holder.text = "held by one of " + words.Count(l.Carriers, "goroutine") + " carrying its address"
		}
		if l.Deadlocked {
			holder.text += " (deadlocked)"
			holder.style = red
		}
		rows = append(rows, []cell{count(l.Waiters, bold+yellow), {text: l.Kind}, {text: l.Addr, style: dim}, {text: wait}, r.where(l.Frame), holder})
	}
	r.table(rows)
}

func (r *textRenderer) contention() {
	if r.s.ContentionTotal == 0 || len(r.s.GoLocks) > 0 {
		return // the locks table says it by lock
	}
	r.heading("Lock contention: "+words.Count(r.s.ContentionTotal, r.s.Noun)+" waiting", yellow, "by the code that waits")
	var rows [][]cell
	for _, c := range r.s.Contention {
		wait := ""
		if c.WaitMax > 0 {
			wait = "up to " + minutes(c.WaitMax)
		}
		rows = append(rows, []cell{count(c.Count, bold+yellow), {text: c.Lock}, {text: wait}, r.where(&c.Frame)})
	}
	r.table(rows)
}

func (r *textRenderer) topGroups() {
	if len(r.s.TopGroups) == 0 {
		return
	}
	r.heading("Largest groups", plain, "")
	var rows [][]cell
	for _, g := range r.s.TopGroups {
		state := cell{text: stateText(g.State), style: stateStyle(g.State)}
		if len(g.States) > 0 {
			// Members in several states: name them all, not the commonest.
			state.text = dedupe.StateLabel(g.States, g.Count)
		}
		if g.State == "" && len(g.States) == 0 && len(g.Labels) > 0 {
			state = cell{text: labelText(g.Labels), style: dim}
		}
		rows = append(rows, []cell{count(g.Count, bold), state, {text: waitRange(g.WaitMin, g.WaitMax)}, r.where(g.Frame), r.creator(g.CreatedBy)})
	}
	r.table(rows)
}

func (r *textRenderer) longestWaits() {
	if len(r.s.LongestWaits) == 0 {
		return
	}
	r.heading("Longest waits", plain, "")
	var rows [][]cell
	for _, g := range r.s.LongestWaits {
		rows = append(rows, []cell{{text: minutes(g.WaitMax), style: bold, right: true}, count(g.Count, plain), {text: stateText(g.State)}, r.where(g.Frame), {text: idList(g.IDs, g.Count), style: dim}})
	}
	r.table(rows)
}

func (r *textRenderer) creators() {
	if len(r.s.Creators) == 0 {
		return
	}
	r.heading("Top creators", plain, "go statements that started the live "+r.s.Noun)
	var rows [][]cell
	for _, c := range r.s.Creators {
		by := ""
		if c.Parents > 1 {
			by = "in " + words.Count(c.Parents, "goroutine")
		}
		rows = append(rows, []cell{count(c.Count, bold), r.where(&c.Frame), {text: by, style: dim}, {text: childList(c.Children, r.width/2), style: dim}})
	}
	r.table(rows)
}

func (r *textRenderer) parents() {
	if len(r.s.Parents) == 0 {
		return
	}
	r.heading("Top parents", plain, "goroutines that started the most live ones")
	var rows [][]cell
	for _, p := range r.s.Parents {
		now := cell{text: p.Status, style: dim}
		switch p.Status {
		case "alive":
			now.text = stateText(p.State)
			if p.Frame != nil {
				now.text += " in " + shorten(shortFunc(p.Frame.Func), r.width/2)
			}
		case "exited":
			now.style = yellow
		}
		rows = append(rows, []cell{count(p.Children, bold), {text: "goroutine " + itoa(p.ID)}, now})
	}
	r.table(rows)
	if r.s.ParentsUncounted > 0 {
		r.line(cell{text: "  (" + childrenText(r.s.ParentsUncounted) + " of parents past the counting limit)", style: dim})
	}
}

// allClear says which checks found nothing, so that silence is not
// mistaken for "not looked", and what one dump cannot say.
func (r *textRenderer) allClear() {
	ok := r.s.Clear()
	if len(ok) == 0 {
		return
	}
	r.b = append(r.b, '\n')
	r.line(cell{text: "✓ " + strings.Join(ok, ", "), style: green})
}

func stateText(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func stateStyle(s string) style {
	switch {
	case isChanWait(s):
		return cyan
	case lockOfState(s) != "":
		return yellow
	}
	return plain
}

func idList(ids []int64, n int64) string {
	if len(ids) == 0 {
		return ""
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "#" + itoa(id)
	}
	s := strings.Join(parts, " ")
	if int64(len(ids)) < n {
		s += " …"
	}
	return s
}

func childList(children []FrameCount, width int) string {
	parts := make([]string, len(children))
	for i, c := range children {
		parts[i] = fmt.Sprintf("%d %s", c.Count, shorten(shortFunc(c.Frame.Func), width))
	}
	return "→ " + strings.Join(parts, ", ")
}

func (r *textRenderer) jvm() {
	j := r.s.JVM
	if j == nil || len(j.Blockers) == 0 {
		return
	}
	r.heading("Top blockers", yellow, "locks with threads blocked acquiring them")
	var rows [][]cell
	for _, b := range j.Blockers {
		owner := cell{text: "owner unknown", style: dim}
		if b.Owner != nil {
			owner.text = "held by " + quoteName(b.Owner.Name)
			if b.Owner.Frame != nil {
				owner.text += " in " + shorten(shortFunc(b.Owner.Frame.Func), r.width/2)
			}
		}
		rows = append(rows, []cell{count(int64(b.Blocked), bold+yellow), {text: b.Lock}, owner})
	}
	r.table(rows)
}

func quoteName(s string) string { return `"` + s + `"` }

// lockedText is "1 locked to a thread" or "n locked to threads".
func lockedText(n int64) string {
	if n == 1 {
		return "1 locked to a thread"
	}
	return itoa(n) + " locked to threads"
}

// childrenText is "1 more child" or "n more children".
func childrenText(n int64) string {
	if n == 1 {
		return "1 more child"
	}
	return itoa(n) + " more children"
}

// labelText renders a label set as "k=v k2=v2", sorted by key.
func labelText(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, " ")
}
