package formats

import "flag"

// update reports whether -update was given (go test ./formats -run X
// -update): golden files are then rewritten instead of compared. The flag is
// shared by the golden tests of the package; whichever file initialises
// first defines it.
func update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
	return true
}()
