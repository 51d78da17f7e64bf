// Command endpoint is ../plain with stackdump's endpoint mounted beside
// net/http/pprof: what a service owner adds (TestEndpointLinkSize).
package main

import (
	"log"
	"net/http"
	_ "net/http/pprof"

	"github.com/stackdump/stackdump/dumper"
)

func main() {
	http.Handle("/debug/stackdump", dumper.Handler(dumper.HandlerOptions{}))
	log.Fatal(http.ListenAndServe("127.0.0.1:6060", nil))
}
