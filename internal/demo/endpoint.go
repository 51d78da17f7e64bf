package demo

import (
	"net/http"
	"net/http/pprof"
)

// mountDumps serves the service's goroutine dumps: net/http/pprof under
// /debug/pprof/.
func mountDumps(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
}

// DumpURL is the URL to capture the service's goroutines from.
func (s *Service) DumpURL() string { return s.URL + "/debug/pprof/goroutine" }
