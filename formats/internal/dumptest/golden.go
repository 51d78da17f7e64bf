package dumptest

import "flag"

// Update is -update (go test ./formats -run X -update): golden files
// are then rewritten instead of compared. Every golden test of the package
// shares it.
var Update = flag.Bool("update", false, "rewrite golden files")
