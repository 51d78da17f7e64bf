package gen

// Stack fragments shared by several scenarios, as Go 1.26.8 prints them
// (paths of the official linux/amd64 tarball under /usr/local/go). The
// application is a shop service at github.com/acme/shop built from /src/shop,
// its dependencies come from the module cache under /go/pkg/mod.

// readIOWait is a blocking read on a socket, innermost frames of every
// goroutine in IO wait on a connection.
const readIOWait = `
internal/poll.runtime_pollWait($R, 0x72)
	/usr/local/go/src/runtime/netpoll.go:351 +0x85
internal/poll.(*pollDesc).wait($A?, $B?, 0x0)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:84 +0x27
internal/poll.(*pollDesc).waitRead(...)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:89
internal/poll.(*FD).Read($A, {$B, 0x1000, 0x1000})
	/usr/local/go/src/internal/poll/fd_unix.go:165 +0x2ae
net.(*netFD).Read($A, {$B?, $S?, $P?})
	/usr/local/go/src/net/fd_posix.go:68 +0x25
net.(*conn).Read($C, {$B?, $S?, $P?})
	/usr/local/go/src/net/net.go:196 +0x45
`

// acceptIOWait is a listener's accept loop.
const acceptIOWait = `
internal/poll.runtime_pollWait($R, 0x72)
	/usr/local/go/src/runtime/netpoll.go:351 +0x85
internal/poll.(*pollDesc).wait($A?, 0x900000036?, 0x0)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:84 +0x27
internal/poll.(*pollDesc).waitRead(...)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:89
internal/poll.(*FD).Accept($A)
	/usr/local/go/src/internal/poll/fd_unix.go:613 +0x28c
net.(*netFD).accept($A)
	/usr/local/go/src/net/fd_unix.go:150 +0x29
net.(*TCPListener).accept($B)
	/usr/local/go/src/net/tcpsock_posix.go:159 +0x1b
net.(*TCPListener).Accept($B)
	/usr/local/go/src/net/tcpsock.go:387 +0x30
`

// serveConn is the bottom of every HTTP server connection goroutine that
// is inside a handler.
const serveConn = `
net/http.(*ServeMux).ServeHTTP($P, {0x9c9f48, $D}, $E)
	/usr/local/go/src/net/http/server.go:2828 +0x1bd
net/http.serverHandler.ServeHTTP({$P?}, {0x9c9f48?, $D?}, 0x6?)
	/usr/local/go/src/net/http/server.go:3311 +0x8e
net/http.(*conn).serve($F, {0x9c5a08, $P})
	/usr/local/go/src/net/http/server.go:2067 +0x690
`

// middleware wraps the shop's handlers.
const middleware = `
net/http.HandlerFunc.ServeHTTP(0x0?, {0x9c9f48?, $D?}, $E?)
	/usr/local/go/src/net/http/server.go:2286 +0x29
github.com/acme/shop/internal/middleware.Recover.func1({0x9c9f48?, $D?}, $E?)
	/src/shop/internal/middleware/recover.go:24 +0x8b
net/http.HandlerFunc.ServeHTTP(...)
	/usr/local/go/src/net/http/server.go:2286
github.com/acme/shop/internal/middleware.Logging.func1({0x9c9f48, $D}, $E)
	/src/shop/internal/middleware/logging.go:31 +0xd2
net/http.HandlerFunc.ServeHTTP(0x9d1e40?, {0x9c9f48?, $D?}, $E?)
	/usr/local/go/src/net/http/server.go:2286 +0x29
` + serveConn

// serverCreator is the creator line of HTTP server connections.
const serverCreator = `
created by net/http.(*Server).Serve in goroutine $I
	/usr/local/go/src/net/http/server.go:3464 +0x485
`

// dbQuery waits for a free connection of a database/sql pool.
const dbQuery = `
database/sql.(*DB).conn($G, {0x9c5a40, $H}, 0x1)
	/usr/local/go/src/database/sql/sql.go:1397 +0x6a5
database/sql.(*DB).query($G, {0x9c5a40, $H}, {0x8f1b2a, 0x5c}, {$P, 0x1, 0x1}, 0x0?)
	/usr/local/go/src/database/sql/sql.go:1763 +0x57
database/sql.(*DB).QueryContext.func1(0x0?)
	/usr/local/go/src/database/sql/sql.go:1741 +0x4f
database/sql.(*DB).retry($G?, $P)
	/usr/local/go/src/database/sql/sql.go:1576 +0x42
database/sql.(*DB).QueryContext($G?, {0x9c5a40?, $H?}, {0x8f1b2a?, 0x0?}, {$P, 0x1, 0x1})
	/usr/local/go/src/database/sql/sql.go:1740 +0xc5
`

// httpClientDo is an outgoing HTTP request waiting for its response.
const httpClientDo = `
net/http.(*persistConn).roundTrip($G, $P)
	/usr/local/go/src/net/http/transport.go:2884 +0x9a5
net/http.(*Transport).roundTrip($H, $P)
	/usr/local/go/src/net/http/transport.go:719 +0x9c5
net/http.(*Transport).RoundTrip($H?, $P?)
	/usr/local/go/src/net/http/roundtrip.go:33 +0x18
net/http.send($P, {0x9c3d80, $H}, {$S?, 0x5bc1a0?, 0x0?})
	/usr/local/go/src/net/http/client.go:259 +0x5e2
net/http.(*Client).send($P, $P, {$S?, 0x0?, 0x0?})
	/usr/local/go/src/net/http/client.go:180 +0x91
net/http.(*Client).do($P, $P)
	/usr/local/go/src/net/http/client.go:728 +0x8fc
net/http.(*Client).Do(...)
	/usr/local/go/src/net/http/client.go:592
`

// mutexLock is a goroutine queued on a contended sync.Mutex.
const mutexLock = `
internal/sync.runtime_SemacquireMutex($P?, 0x0?, 0x3?)
	/usr/local/go/src/runtime/sema.go:95 +0x25
internal/sync.(*Mutex).lockSlow($G)
	/usr/local/go/src/internal/sync/mutex.go:149 +0x15d
internal/sync.(*Mutex).Lock(...)
	/usr/local/go/src/internal/sync/mutex.go:70
sync.(*Mutex).Lock(...)
	/usr/local/go/src/sync/mutex.go:46
`

// workerCreator is the creator of the job pools' workers.
const workerCreator = `
created by github.com/acme/shop/internal/jobs.(*Pool).Start in goroutine $I
	/src/shop/internal/jobs/pool.go:48 +0x8e
`
