#!/usr/bin/env bash
# The main job, live: start the embedded demo service (an HTTP server with a
# goroutine zoo: idle keep-alive connections, a worker pool, a leak that
# grows every second, mutex contention, a WaitGroup waiter, sleepers),
# capture it over HTTP through its stackdump endpoint, write
# demo/dump.json.gz and demo/report.html and print the analysis. Then query
# the capture.
# Run by `make demo` after `make build`; needs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/stackdump

"$bin" demo --out demo --duration "${DEMO_DURATION:-3s}"

# q shows and runs a query; its last argument is the (quoted) path.
q() {
	echo
	echo "\$ stackdump query ${*:1:$#-1} '${!#}'"
	"$bin" query "$@"
}
q --dedupe --raw demo/dump.json.gz 'groups.#(count>=50)#.stack.0.func'
q demo/dump.json.gz 'goroutines.#(state=="sync.Mutex.Lock")#|#'
