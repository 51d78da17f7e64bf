package formats

import "flag"

// update rewrites the golden files of this package's tests instead of
// comparing with them: go test ./formats -run X -update
var update = flag.Bool("update", false, "rewrite golden files")
