package gen

// HTTP server connections, the handlers behind them and the HTTP client.

// handler is a request blocked in leaf, called from one of the handlers.
func handler(name, state string, weight float64, leaf string, handlers ...string) *scenario {
	return &scenario{
		name: name, state: state, weight: weight, waits: minutes{0.1, 1, 5}, labelled: true,
		parts:   frames(fixed(leaf), oneOf(handlers...), fixed(middleware)),
		creator: creator(serverCreator), parent: "public-serve",
	}
}

var httpScenarios = []*scenario{
	{
		name: "http-idle", state: "IO wait", weight: 18, waits: minutes{0.3, 1, 20},
		parts: frames(fixed(readIOWait + `
net/http.(*connReader).Read($D, {$B, 0x1000, 0x1000})
	/usr/local/go/src/net/http/server.go:812 +0x154
bufio.(*Reader).fill($E)
	/usr/local/go/src/bufio/bufio.go:113 +0x103
bufio.(*Reader).Peek($E, 0x4)
	/usr/local/go/src/bufio/bufio.go:152 +0x53
net/http.(*conn).serve($F, {0x9c5a08, $P})
	/usr/local/go/src/net/http/server.go:2103 +0x7f3`)),
		creator: creator(serverCreator), parent: "public-serve",
	},
	{
		name: "http-read-request", state: "IO wait", weight: 3,
		parts: frames(fixed(readIOWait + `
net/http.(*connReader).Read($D, {$B, 0x1000, 0x1000})
	/usr/local/go/src/net/http/server.go:812 +0x154
bufio.(*Reader).fill($E)
	/usr/local/go/src/bufio/bufio.go:113 +0x103
bufio.(*Reader).ReadSlice($E, 0xa)
	/usr/local/go/src/bufio/bufio.go:377 +0x29
bufio.(*Reader).ReadLine($E)
	/usr/local/go/src/bufio/bufio.go:406 +0x25
net/textproto.(*Reader).readLineSlice($P, 0xffffffffffffffff)
	/usr/local/go/src/net/textproto/reader.go:64 +0xad
net/textproto.(*Reader).ReadLine(...)
	/usr/local/go/src/net/textproto/reader.go:44
net/http.readRequest($E)
	/usr/local/go/src/net/http/request.go:1087 +0xa5
net/http.(*conn).readRequest($F, {0x9c5a40, $P})
	/usr/local/go/src/net/http/server.go:998 +0x179
net/http.(*conn).serve($F, {0x9c5a08, $P})
	/usr/local/go/src/net/http/server.go:1989 +0x414`)),
		creator: creator(serverCreator), parent: "public-serve",
	},
	{
		name: "http-background-read", state: "IO wait", weight: 2,
		parts: frames(fixed(readIOWait + `
net/http.(*connReader).backgroundRead($D)
	/usr/local/go/src/net/http/server.go:702 +0x33`)),
		creator: creator(`
created by net/http.(*connReader).startBackgroundRead in goroutine $I
	/usr/local/go/src/net/http/server.go:698 +0xb6`),
	},
	handler("handler-db-pool", "select", 6, dbQuery, `
github.com/acme/shop/internal/store.(*OrderStore).ByID($P, {0x9c5a40, $H}, $S)
	/src/shop/internal/store/orders.go:57 +0xf4
github.com/acme/shop/internal/api.(*Orders).Get($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/orders.go:88 +0x1a5`, `
github.com/acme/shop/internal/store.(*OrderStore).ListByUser($P, {0x9c5a40, $H}, {$P, 0x24}, {0x0, 0x32})
	/src/shop/internal/store/orders.go:103 +0x1d6
github.com/acme/shop/internal/api.(*Orders).List($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/orders.go:131 +0x2c5`, `
github.com/acme/shop/internal/store.(*ProductStore).Get($P, {0x9c5a40, $H}, {$P, 0xc})
	/src/shop/internal/store/products.go:44 +0xd3
github.com/acme/shop/internal/api.(*Products).Get($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/products.go:52 +0x11e`, `
github.com/acme/shop/internal/store.(*CartStore).Items($P, {0x9c5a40, $H}, $S)
	/src/shop/internal/store/cart.go:71 +0x105
github.com/acme/shop/internal/api.(*Cart).View($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/cart.go:40 +0xbb`),
	handler("handler-http-client", "select", 4, httpClientDo, `
github.com/acme/shop/internal/clients/payments.(*Client).Authorize($P, {0x9c5a40, $H}, {{$P, 0x24}, 0x1f40, {0x8e1c2f, 0x3}})
	/src/shop/internal/clients/payments/client.go:118 +0x3ba
github.com/acme/shop/internal/api.(*Checkout).Submit($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/checkout.go:97 +0x4f2`, `
github.com/acme/shop/internal/clients/shipping.(*Client).Quote($P, {0x9c5a40, $H}, {$P, 0x2, 0x2}, ...)
	/src/shop/internal/clients/shipping/client.go:66 +0x2a7
github.com/acme/shop/internal/api.(*Cart).Shipping($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/cart.go:118 +0x19c`),
	handler("handler-cache-mutex", "sync.Mutex.Lock", 3, mutexLock, `
github.com/acme/shop/internal/pricing.(*Cache).Lookup($G, {$P, 0xc})
	/src/shop/internal/pricing/cache.go:38 +0x4c
github.com/acme/shop/internal/api.(*Products).Get($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/products.go:61 +0x1d8`, `
github.com/acme/shop/internal/pricing.(*Cache).Lookup($G, {$P, 0xc})
	/src/shop/internal/pricing/cache.go:38 +0x4c
github.com/acme/shop/internal/pricing.(*Cache).Total($G, {$P, 0x3, 0x4})
	/src/shop/internal/pricing/cache.go:77 +0x9a
github.com/acme/shop/internal/api.(*Cart).View($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/cart.go:47 +0x17e`),
	handler("handler-lru-rlock", "sync.RWMutex.RLock", 2, `
sync.runtime_SemacquireRWMutexR($P?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:100 +0x25
sync.(*RWMutex).RLock(...)
	/usr/local/go/src/sync/rwmutex.go:74
github.com/acme/shop/internal/cache.(*LRU[...]).Get($G, {$P, 0x10})
	/src/shop/internal/cache/lru.go:52 +0x5e`, `
github.com/acme/shop/internal/api.(*Products).Get($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/products.go:48 +0x9f`, `
github.com/acme/shop/internal/api.(*Users).Me($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/users.go:33 +0x87`),
	handler("handler-lru-lock", "sync.RWMutex.Lock", 0.5, mutexLock+`
sync.(*RWMutex).Lock($G?)
	/usr/local/go/src/sync/rwmutex.go:150 +0x32
github.com/acme/shop/internal/cache.(*LRU[...]).Add($G, {$P, 0x10}, {$P, 0x1e8})
	/src/shop/internal/cache/lru.go:71 +0x3e`, `
github.com/acme/shop/internal/api.(*Products).Get($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/products.go:57 +0x14a`),
	handler("handler-errgroup", "sync.WaitGroup.Wait", 2, `
sync.runtime_SemacquireWaitGroup($P?, 0x0?)
	/usr/local/go/src/runtime/sema.go:114 +0x2e
sync.(*WaitGroup).Wait($G)
	/usr/local/go/src/sync/waitgroup.go:206 +0x85
golang.org/x/sync/errgroup.(*Group).Wait($G)
	/go/pkg/mod/golang.org/x/sync@v0.11.0/errgroup/errgroup.go:56 +0x25`, `
github.com/acme/shop/internal/search.(*Federated).Query($P, {0x9c5a40, $H}, {{$P, 0x9}, 0x0, 0x14, {0x0, 0x0, 0x0}})
	/src/shop/internal/search/federated.go:84 +0x2c5
github.com/acme/shop/internal/api.(*Search).Query($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/search.go:29 +0x1b6`),
	handler("handler-retry-sleep", "sleep", 1, `
time.Sleep($N)
	/usr/local/go/src/runtime/time.go:363 +0x165
github.com/acme/shop/internal/retry.Do[...]({0x9c5a40, $H}, {0x5, 0x5f5e100, 0x2540be400, 0x4000000000000000}, $P)
	/src/shop/internal/retry/retry.go:41 +0x1a9`, `
github.com/acme/shop/internal/clients/inventory.(*Client).Reserve($P, {0x9c5a40, $H}, {$P, 0x3, 0x4})
	/src/shop/internal/clients/inventory/client.go:88 +0x14f
github.com/acme/shop/internal/api.(*Checkout).Submit($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/checkout.go:84 +0x3d4`),
	{
		name: "http-client-read-loop", state: "IO wait", weight: 6, waits: minutes{0.2, 1, 10},
		parts: frames(fixed(readIOWait + `
net/http.(*persistConn).Read($D, {$B?, $P?, 0x9b3d40?})
	/usr/local/go/src/net/http/transport.go:2174 +0x47
bufio.(*Reader).fill($E)
	/usr/local/go/src/bufio/bufio.go:113 +0x103
bufio.(*Reader).Peek($E, 0x1)
	/usr/local/go/src/bufio/bufio.go:152 +0x53
net/http.(*persistConn).readLoop($D)
	/usr/local/go/src/net/http/transport.go:2330 +0x172`)),
		creator: creator(`
created by net/http.(*Transport).dialConn in goroutine $I
	/usr/local/go/src/net/http/transport.go:1994 +0x16ac`),
	},
	{
		name: "http-client-write-loop", state: "select", weight: 6, waits: minutes{0.2, 1, 10},
		parts: frames(fixed(`
net/http.(*persistConn).writeLoop($D)
	/usr/local/go/src/net/http/transport.go:2652 +0xe6`)),
		creator: creator(`
created by net/http.(*Transport).dialConn in goroutine $I
	/usr/local/go/src/net/http/transport.go:1995 +0x16fe`),
	},
	{
		name: "json-encode", state: "runnable", weight: 0.5, labelled: true,
		parts: frames(fixed(`
encoding/json.appendString[...]({$P, 0x1a3, 0x400}, {$P, 0x2e}, 0x1)
	/usr/local/go/src/encoding/json/encode.go:1010 +0x1f8
encoding/json.stringEncoder($P, {0x8b2a20?, $P?, 0x2?}, {0x0?, 0x1?})
	/usr/local/go/src/encoding/json/encode.go:615 +0x1b6`), repeat(`
encoding/json.structEncoder.encode({{{$P, 0x6, 0x8}, $P, $P}}, $P, {0x8e4b60?, $P?, 0x99?}, {0x0, 0x1})
	/usr/local/go/src/encoding/json/encode.go:728 +0x1f4
encoding/json.arrayEncoder.encode({$P?}, $P, {0x8a8e80?, $P?, 0x97?}, {0x0, 0x1})
	/usr/local/go/src/encoding/json/encode.go:863 +0xcf
encoding/json.sliceEncoder.encode({$P?}, $P, {0x8a8e80?, $P?, 0x97?}, {0x0, 0x1})
	/usr/local/go/src/encoding/json/encode.go:836 +0x2cd`, 1, 8), fixed(`
encoding/json.(*encodeState).reflectValue($P, {0x8a8e80?, $P?, 0x97?}, {0x0?, 0x1?})
	/usr/local/go/src/encoding/json/encode.go:321 +0x73
encoding/json.(*encodeState).marshal($P, {0x8a8e80, $P}, {0x0?, 0x1?})
	/usr/local/go/src/encoding/json/encode.go:297 +0xb9
encoding/json.(*Encoder).Encode($P, {0x8a8e80, $P})
	/usr/local/go/src/encoding/json/stream.go:211 +0xce
github.com/acme/shop/internal/api.writeJSON({0x9c9f48, $D}, 0xc8, {0x8a8e80, $P})
	/src/shop/internal/api/json.go:19 +0x125
github.com/acme/shop/internal/api.(*Products).List($P, {0x9c9f48, $D}, $E)
	/src/shop/internal/api/products.go:96 +0x2f0
`+middleware)),
		creator: creator(serverCreator), parent: "public-serve",
	},
}
