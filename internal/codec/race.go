package codec

// RaceOp splits an access role ("Previous atomic write") into the
// operation ("read" or "write") and its atomic and previous flags.
func RaceOp(role []byte) (op string, atomic, previous bool) {
	s := string(role)
	if len(s) > len("previous ") && (s[0] == 'P' || s[0] == 'p') && s[1:len("previous ")] == "revious " {
		previous, s = true, s[len("previous "):]
	}
	if len(s) > len("atomic ") && (s[0] == 'A' || s[0] == 'a') && s[1:len("atomic ")] == "tomic " {
		atomic, s = true, s[len("atomic "):]
	}
	op = "read"
	if s == "Write" || s == "write" {
		op = "write"
	}
	return op, atomic, previous
}
