module github.com/stackdump/stackdump/leakcheck/compat

go 1.26.0

require (
	github.com/stackdump/stackdump v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)

replace github.com/stackdump/stackdump => ../..
