package gen

// Singletons: the long-lived goroutines every instance of the service has
// once, printed before the weighted ones with small goroutine ids. The
// first one is the goroutine that took the dump (the pprof handler).

// callerName is the singleton that took the dump; it is printed first.
const callerName = "pprof-handler"

var singletons = []*scenario{
	{
		name: callerName, state: "running", fixed: 1, parent: "admin-serve",
		parts: frames(fixed(`
runtime/pprof.writeGoroutineStacks({0x9c4a60, $A})
	/usr/local/go/src/runtime/pprof/pprof.go:804 +0x6a
runtime/pprof.writeGoroutine({0x9c4a60?, $A?}, 0x2?)
	/usr/local/go/src/runtime/pprof/pprof.go:793 +0x25
runtime/pprof.(*Profile).WriteTo(0xd4e7a0?, {0x9c4a60?, $A?}, 0x10?)
	/usr/local/go/src/runtime/pprof/pprof.go:398 +0x14b
net/http/pprof.handler.ServeHTTP({$B, 0x9}, {0x9c9f48, $D}, $E)
	/usr/local/go/src/net/http/pprof/pprof.go:272 +0x4b0
net/http/pprof.Index({0x9c9f48?, $D?}, $E?)
	/usr/local/go/src/net/http/pprof/pprof.go:389 +0xe9
net/http.HandlerFunc.ServeHTTP(0x0?, {0x9c9f48?, $D?}, $E?)
	/usr/local/go/src/net/http/server.go:2286 +0x29
` + serveConn)),
		creator: creator(serverCreator),
	},
	{
		name: "main", state: "chan receive", fixed: 1, waits: minutes{1, 4000, 4000},
		parts: frames(fixed(`
main.main()
	/src/shop/cmd/shop/main.go:118 +0x6c5`)),
	},
	{
		name: "public-serve", state: "IO wait", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(acceptIOWait + `
net/http.(*Server).Serve($C, {0x9c8b30, $B})
	/usr/local/go/src/net/http/server.go:3434 +0x30c
net/http.(*Server).ListenAndServe($C)
	/usr/local/go/src/net/http/server.go:3363 +0x7d
github.com/acme/shop/internal/server.(*HTTP).Run.func1()
	/src/shop/internal/server/http.go:61 +0x25`)),
		creator: creator(`
created by github.com/acme/shop/internal/server.(*HTTP).Run in goroutine $I
	/src/shop/internal/server/http.go:59 +0x1bd`),
	},
	{
		name: "admin-serve", state: "IO wait", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(acceptIOWait + `
net/http.(*Server).Serve($C, {0x9c8b30, $B})
	/usr/local/go/src/net/http/server.go:3434 +0x30c
net/http.(*Server).ListenAndServe($C)
	/usr/local/go/src/net/http/server.go:3363 +0x7d
github.com/acme/shop/internal/admin.Start.func2()
	/src/shop/internal/admin/admin.go:77 +0x1f`)),
		creator: creator(`
created by github.com/acme/shop/internal/admin.Start in goroutine $I
	/src/shop/internal/admin/admin.go:75 +0x2ea`),
	},
	{
		name: "grpc-serve", state: "IO wait", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(acceptIOWait + `
google.golang.org/grpc.(*Server).Serve($C, {0x9c8b30, $B})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:890 +0x462
main.run.func3()
	/src/shop/cmd/shop/main.go:171 +0x27`)),
		creator: creator(`
created by main.run in goroutine $I
	/src/shop/cmd/shop/main.go:169 +0x8d4`),
	},
	{
		name: "signal", state: "syscall", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(`
os/signal.signal_recv()
	/usr/local/go/src/runtime/sigqueue.go:152 +0x98
os/signal.loop()
	/usr/local/go/src/os/signal/signal_unix.go:23 +0x13`)),
		creator: creator(`
created by os/signal.Notify.func1.1 in goroutine $I
	/usr/local/go/src/os/signal/signal.go:152 +0x1f`),
	},
	{
		name: "db-opener", state: "select", fixed: 2, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(`
database/sql.(*DB).connectionOpener($A, {0x9c5a40, $B})
	/usr/local/go/src/database/sql/sql.go:1261 +0x87`)),
		creator: creator(`
created by database/sql.OpenDB in goroutine $I
	/usr/local/go/src/database/sql/sql.go:862 +0x14c`),
	},
	{
		name: "db-cleaner", state: "select", fixed: 2, waits: minutes{0.5, 1, 30}, parent: "main",
		parts: frames(fixed(`
database/sql.(*DB).connectionCleaner($A, $S)
	/usr/local/go/src/database/sql/sql.go:1106 +0xf3`)),
		creator: creator(`
created by database/sql.(*DB).startCleanerLocked in goroutine $I
	/usr/local/go/src/database/sql/sql.go:1093 +0x105`),
	},
	{
		name: "otel-batch", state: "select", fixed: 1, parent: "main",
		parts: frames(fixed(`
go.opentelemetry.io/otel/sdk/trace.(*batchSpanProcessor).processQueue($A)
	/go/pkg/mod/go.opentelemetry.io/otel/sdk@v1.34.0/trace/batch_span_processor.go:310 +0x3e5
go.opentelemetry.io/otel/sdk/trace.NewBatchSpanProcessor.func1()
	/go/pkg/mod/go.opentelemetry.io/otel/sdk@v1.34.0/trace/batch_span_processor.go:128 +0x54`)),
		creator: creator(`
created by go.opentelemetry.io/otel/sdk/trace.NewBatchSpanProcessor in goroutine $I
	/go/pkg/mod/go.opentelemetry.io/otel/sdk@v1.34.0/trace/batch_span_processor.go:126 +0x2e5`),
	},
	{
		name: "metrics", state: "select", fixed: 1, parent: "main",
		parts: frames(fixed(`
github.com/acme/shop/internal/metrics.(*Reporter).loop($A, {0x9c5a40, $B})
	/src/shop/internal/metrics/reporter.go:92 +0x145`)),
		creator: creator(`
created by github.com/acme/shop/internal/metrics.Start in goroutine $I
	/src/shop/internal/metrics/reporter.go:57 +0x1c5`),
	},
	{
		name: "cache-janitor", state: "select", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(`
github.com/patrickmn/go-cache.(*janitor).Run($A, $B)
	/go/pkg/mod/github.com/patrickmn/go-cache@v2.1.0+incompatible/cache.go:1079 +0xa5`)),
		creator: creator(`
created by github.com/patrickmn/go-cache.runJanitor in goroutine $I
	/go/pkg/mod/github.com/patrickmn/go-cache@v2.1.0+incompatible/cache.go:1099 +0xd5`),
	},
	{
		name: "plugin-keepalive", state: "select (no cases)", fixed: 1, waits: minutes{1, 4000, 4000}, parent: "main",
		parts: frames(fixed(`
github.com/acme/shop/internal/plugin.keepAlive(...)
	/src/shop/internal/plugin/host.go:140
github.com/acme/shop/internal/plugin.Serve.func2()
	/src/shop/internal/plugin/host.go:99 +0x13`)),
		creator: creator(`
created by github.com/acme/shop/internal/plugin.Serve in goroutine $I
	/src/shop/internal/plugin/host.go:98 +0x1a6`),
	},
}
