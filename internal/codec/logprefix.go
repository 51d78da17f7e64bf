package codec

import "bytes"

// logLevels are the level words a log prefix may hold.
var logLevels = []string{"TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "ERR", "SEVERE", "FATAL", "CRITICAL", "CRIT", "PANIC"}

// IsLogPrefix reports whether p, the text before a dump line on the same
// line, is what a logger writes before a message: time stamps, dates,
// numbers and level words ("2024-05-01 10:22:01 INFO ", "2024/05/01
// 10:22:01 ", "[2024-05-01T10:22:01Z] [WARN] "), with at least one time
// or date in it. Such a prefix on one line is a dump logged as one
// message; it is set aside without a warning.
func IsLogPrefix(p []byte) bool {
	stamp := false
	for _, tok := range bytes.Fields(p) {
		tok = bytes.Trim(tok, "[]()")
		if len(tok) == 0 {
			continue
		}
		if isStampToken(tok) {
			stamp = stamp || Digits(tok) >= 2 && bytes.ContainsAny(tok, ":-/.")
			continue
		}
		level := false
		for _, l := range logLevels {
			if bytes.EqualFold(bytes.TrimSuffix(tok, []byte(":")), []byte(l)) {
				level = true
				break
			}
		}
		if !level {
			return false
		}
	}
	return stamp
}

// isStampToken reports whether tok is made of the characters of times and
// dates: digits, ':' '-' '/' '.' ',' '+' 'T' 'Z', with a digit.
func isStampToken(tok []byte) bool {
	digit := false
	for _, c := range tok {
		switch {
		case isDigit(c):
			digit = true
		case c == ':' || c == '-' || c == '/' || c == '.' || c == ',' || c == '+' || c == 'T' || c == 'Z':
		default:
			return false
		}
	}
	return digit
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
