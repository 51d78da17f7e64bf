package dumper

import "net/http"

// Where [Register] mounts the handlers.
const (
	// EndpointPath is where stackdump's endpoint ([Handler]) is mounted,
	// and where `stackdump capture host:port` looks for it first.
	EndpointPath = "/debug/stackdump"
	// GoroutinePath is net/http/pprof's goroutine profile, which
	// [GoroutineHandler] replaces.
	GoroutinePath = "/debug/pprof/goroutine"
)

// Register mounts stackdump's endpoint ([Handler] with opts) at
// [EndpointPath] and [GoroutineHandler] at [GoroutinePath] on mux
// (http.DefaultServeMux when nil), beside net/http/pprof if the program
// imports it:
//
//	import _ "net/http/pprof"
//
//	dumper.Register(http.DefaultServeMux, dumper.HandlerOptions{})
//
// The patterns carry the method, "GET /debug/pprof/goroutine" (GET also
// serves HEAD): since Go 1.22, net/http/pprof registers "GET
// /debug/pprof/", and the mux panics at start-up on a plain
// "/debug/pprof/goroutine" beside it, as neither pattern is more specific
// than the other. A mux that reads patterns as Go 1.21's did
// (GODEBUG=httpmuxgo121=1) gets the paths without the method, which it
// takes beside pprof's prefix. Mounting by hand works the same way:
//
//	mux.Handle("GET /debug/pprof/goroutine", dumper.GoroutineHandler())
func Register(mux *http.ServeMux, opts HandlerOptions) {
	if mux == nil {
		mux = http.DefaultServeMux
	}
	handle(mux, EndpointPath, Handler(opts))
	handle(mux, GoroutinePath, GoroutineHandler())
}

// handle mounts h at "GET "+path on mux, or at path on a mux that does not
// read methods in patterns (GODEBUG=httpmuxgo121=1), which takes "GET
// /path" for a host name and never routes a request to it.
func handle(mux *http.ServeMux, path string, h http.Handler) {
	mux.Handle("GET "+path, h)
	probe, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		panic("dumper.Register: " + err.Error()) // a constant path: never
	}
	if _, pattern := mux.Handler(probe); pattern != "GET "+path {
		mux.Handle(path, h)
	}
}
