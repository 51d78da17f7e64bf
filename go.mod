module github.com/stackdump/stackdump

go 1.24

require (
	github.com/google/pprof v0.0.0-20250630185457-6e76a2b096b5
	github.com/klauspost/compress v1.19.2
	github.com/klauspost/pgzip v1.2.6
	github.com/tidwall/gjson v1.20.2
	golang.org/x/exp v0.0.0-20250811191247-51f88131bc50
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
