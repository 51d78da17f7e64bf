package formats

import "strconv"

// Race reports. A routine with Race set is one section of a
// `WARNING: DATA RACE` report (docs: reference §6.9): the accesses and the
// creators of the goroutines involved. Consecutive routines with the same
// Report number form one report, written between two rules as the race
// detector prints it.

const (
	textRaceRule   = "==================\n"
	textRaceHeader = textRaceRule + "WARNING: DATA RACE\n"
)

// appendRace appends one section of a race report, opening the report
// (and closing the previous one) when r starts a new one.
func (e *textEncoder) appendRace(b []byte, r *Routine) []byte {
	rc := r.Race
	switch {
	case e.race && rc.Report == e.report:
		b = append(b, '\n')
	case e.race:
		b = append(b, textRaceRule...)
		b = append(b, textRaceHeader...)
	default:
		if e.n > 0 {
			b = append(b, '\n')
		}
		b = append(b, textRaceHeader...)
	}
	e.race, e.report = true, rc.Report
	if rc.Role == "created" {
		b = append(b, "Goroutine "...)
		b = strconv.AppendInt(b, r.ID, 10)
		if r.State != "" {
			b = append(b, " ("...)
			b = append(b, r.State...)
			b = append(b, ')')
		}
		b = append(b, " created at:\n"...)
	} else {
		b = append(b, rc.Role...)
		if rc.Addr != 0 {
			b = append(b, " at 0x"...)
			b = appendTextHex(b, rc.Addr, 12)
		}
		if rc.Main {
			b = append(b, " by main goroutine:\n"...)
		} else {
			b = append(b, " by goroutine "...)
			b = strconv.AppendInt(b, r.ID, 10)
			b = append(b, ":\n"...)
		}
	}
	frames := r.Frames()
	if len(frames) == 0 {
		return append(b, "  [failed to restore the stack]\n"...)
	}
	for i, f := range frames {
		b = append(b, "  "...)
		b = append(b, f.Func...)
		b = append(b, '(')
		if r.Values != nil && i < len(r.Values.Frames) {
			b = append(b, r.Values.Frames[i].Args...)
		}
		b = append(b, ")\n"...)
		var v *FrameValue
		if r.Values != nil && i < len(r.Values.Frames) {
			v = &r.Values.Frames[i]
		}
		b = appendTextLocation(b, f, v, "      ")
	}
	return b
}
