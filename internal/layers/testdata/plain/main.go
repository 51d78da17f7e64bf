// Command plain is a service that serves net/http/pprof and nothing
// else: the baseline of TestEndpointLinkSize (go build it beside
// ../endpoint and compare the sizes).
package main

import (
	"log"
	"net/http"
	_ "net/http/pprof"
)

func main() {
	log.Fatal(http.ListenAndServe("127.0.0.1:6060", nil))
}
