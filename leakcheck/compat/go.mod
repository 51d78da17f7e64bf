module github.com/stackdump/stackdump/leakcheck/compat

go 1.26.0

require (
	github.com/stackdump/stackdump v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)

require (
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4 // indirect
)

replace github.com/stackdump/stackdump => ../..
