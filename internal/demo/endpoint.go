package demo

import (
	"net/http"
	"net/http/pprof"

	"github.com/stackdump/stackdump/dumper"
)

// mountDumps serves the service's goroutine dumps: stackdump's endpoint
// (dumper.Handler) at EndpointPath, and net/http/pprof under /debug/pprof/.
func mountDumps(mux *http.ServeMux) {
	mux.Handle(EndpointPath, dumper.Handler(dumper.HandlerOptions{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
}

// DumpURL is the URL of the service's dump endpoint.
func (s *Service) DumpURL() string { return s.URL + EndpointPath }
