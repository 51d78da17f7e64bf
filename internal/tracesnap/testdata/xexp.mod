// The module's go.mod with a newer golang.org/x/exp, for the tests that
// need one (make test: go test -modfile=internal/tracesnap/testdata/xexp.mod
// ./internal/tracesnap ./formats/exectrace). The go.mod requires an x/exp
// whose go line is 1.23, so that a program at go 1.24 importing the
// library keeps its go line; that x/exp/trace predates the go 1.26 trace
// format, which internal/tracesnap decodes and compares with x/exp/trace
// event for event, and reports a status event's stack differently
// (formats/exectrace reads older traces with either). Otherwise the same
// requirements as the go.mod (internal/layers checks).
module github.com/stackdump/stackdump

go 1.26.0

require (
	github.com/google/pprof v0.0.0-20250630185457-6e76a2b096b5
	github.com/klauspost/compress v1.19.2
	github.com/klauspost/pgzip v1.2.6
	github.com/tidwall/gjson v1.20.2
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
