package gen

// Third-party libraries: gRPC transports, a Postgres driver, Redis, Kafka.

const grpcServerCreator = `
created by google.golang.org/grpc/internal/transport.NewServerTransport in goroutine $I
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/http2_server.go:339 +0x1a3e`

var depScenarios = []*scenario{
	{
		name: "grpc-loopy", state: "select", weight: 3, waits: minutes{0.4, 1, 120},
		parts: frames(fixed(`
google.golang.org/grpc/internal/transport.(*controlBuffer).get($A, 0x1)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/controlbuf.go:418 +0x11b
google.golang.org/grpc/internal/transport.(*loopyWriter).run($B)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/controlbuf.go:552 +0x7e
google.golang.org/grpc/internal/transport.NewServerTransport.func2()
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/http2_server.go:341 +0xde`)),
		creator: creator(grpcServerCreator),
	},
	{
		name: "grpc-keepalive", state: "select", weight: 3, waits: minutes{0.4, 1, 120},
		parts: frames(fixed(`
google.golang.org/grpc/internal/transport.(*http2Server).keepalive($A)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/http2_server.go:1192 +0x225`)),
		creator: creator(`
created by google.golang.org/grpc/internal/transport.NewServerTransport in goroutine $I
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/http2_server.go:350 +0x1a85`),
	},
	{
		name: "grpc-reader", state: "IO wait", weight: 3, waits: minutes{0.4, 1, 120},
		parts: frames(fixed(readIOWait + `
bufio.(*Reader).Read($D, {$E, 0x9, 0x9})
	/usr/local/go/src/bufio/bufio.go:245 +0x197
io.ReadAtLeast({0x9c3b00, $D}, {$E, 0x9, 0x9}, 0x9)
	/usr/local/go/src/io/io.go:335 +0x90
io.ReadFull(...)
	/usr/local/go/src/io/io.go:354
golang.org/x/net/http2.readFrameHeader({$E, 0x9, $P?}, {0x9c3b00?, $D?})
	/go/pkg/mod/golang.org/x/net@v0.35.0/http2/frame.go:237 +0x65
golang.org/x/net/http2.(*Framer).ReadFrame($F)
	/go/pkg/mod/golang.org/x/net@v0.35.0/http2/frame.go:501 +0x85
google.golang.org/grpc/internal/transport.(*http2Server).HandleStreams($G, {0x9c5a40, $P}, $P)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/http2_server.go:654 +0x10c
google.golang.org/grpc.(*Server).serveStreams($H, {0x9c5938?, 0xd5a3c0?}, {0x9cd1a0, $G})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:1029 +0x396
google.golang.org/grpc.(*Server).handleRawConn.func1()
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:964 +0x56`)),
		creator: creator(`
created by google.golang.org/grpc.(*Server).handleRawConn in goroutine $I
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:963 +0x1cb`),
	},
	{
		name: "grpc-stream-recv", state: "select", weight: 3, labelled: true,
		parts: frames(fixed(`
google.golang.org/grpc/internal/transport.(*recvBufferReader).read($A, {$B, 0x5, 0x5})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/transport.go:179 +0x9a
google.golang.org/grpc/internal/transport.(*recvBufferReader).Read($A, {$B, 0x5, 0x5})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/transport.go:173 +0x1a5
google.golang.org/grpc/internal/transport.(*transportReader).Read($C, {$B, 0x5, 0x5})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/transport.go:525 +0x2c
io.ReadAtLeast({0x9c4ba0, $C}, {$B, 0x5, 0x5}, 0x5)
	/usr/local/go/src/io/io.go:335 +0x90
io.ReadFull(...)
	/usr/local/go/src/io/io.go:354
google.golang.org/grpc/internal/transport.(*Stream).Read($D, {$B, 0x5, 0x5})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/internal/transport/transport.go:509 +0x9c
google.golang.org/grpc.(*parser).recvMsg($E, 0x400000)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/rpc_util.go:614 +0x46
google.golang.org/grpc.recvAndDecompress($E, $D, {0x0, 0x0}, 0x400000, 0x0, {0x0, 0x0})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/rpc_util.go:753 +0x85
google.golang.org/grpc.recv($E, {0x7f3a1c0d9e28, 0xd5a3c0}, $D, {0x0?, 0x0?}, {0x8c7f20, $P}, 0x400000, 0x0, ...)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/rpc_util.go:833 +0x7d
google.golang.org/grpc.(*serverStream).RecvMsg($F, {0x8c7f20, $P})
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/stream.go:1717 +0x179
google.golang.org/grpc.(*GenericServerStream[...]).Recv($G)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/stream_interfaces.go:201 +0x5e`), oneOf(`
github.com/acme/shop/internal/rpc.(*InventoryServer).Watch($H, {0x9cbf38, $G})
	/src/shop/internal/rpc/inventory.go:74 +0x1d8
github.com/acme/shop/gen/inventory/v1._Inventory_Watch_Handler({0x8f2f00, $H}, {0x9c9a80, $F})
	/src/shop/gen/inventory/v1/inventory_grpc.pb.go:160 +0x110`, `
github.com/acme/shop/internal/rpc.(*OrdersServer).Stream($H, {0x9cbf70, $G})
	/src/shop/internal/rpc/orders.go:112 +0x2a6
github.com/acme/shop/gen/orders/v1._Orders_Stream_Handler({0x8f3120, $H}, {0x9c9a80, $F})
	/src/shop/gen/orders/v1/orders_grpc.pb.go:201 +0x110`), fixed(`
google.golang.org/grpc.(*Server).processStreamingRPC($P, {0x9c5a40, $P}, $F, $P, $P, 0x0)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:1697 +0x1252
google.golang.org/grpc.(*Server).handleStream($P, {0x9cd1a0, $P}, $F)
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:1819 +0xb47
google.golang.org/grpc.(*Server).serveStreams.func2.1()
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:1035 +0x7f`)),
		creator: creator(`
created by google.golang.org/grpc.(*Server).serveStreams.func2 in goroutine $I
	/go/pkg/mod/google.golang.org/grpc@v1.70.0/server.go:1046 +0x11d`),
	},
	{
		name: "pgx-bgreader", state: "IO wait", weight: 2, waits: minutes{0.3, 1, 60},
		parts: frames(fixed(readIOWait + `
github.com/jackc/pgx/v5/internal/bgreader.(*BGReader).bgRead($D)
	/go/pkg/mod/github.com/jackc/pgx/v5@v5.7.2/internal/bgreader/bgreader.go:100 +0x102`)),
		creator: creator(`
created by github.com/jackc/pgx/v5/internal/bgreader.(*BGReader).Start in goroutine $I
	/go/pkg/mod/github.com/jackc/pgx/v5@v5.7.2/internal/bgreader/bgreader.go:44 +0xa5`),
	},
	{
		name: "redis-read", state: "IO wait", weight: 3, labelled: true,
		parts: frames(fixed(readIOWait + `
github.com/redis/go-redis/v9/internal/pool.(*Conn).Read($D, {$E, 0x8000, 0x8000})
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/internal/pool/conn.go:40 +0x2e
bufio.(*Reader).fill($F)
	/usr/local/go/src/bufio/bufio.go:113 +0x103
bufio.(*Reader).ReadSlice($F, 0xa)
	/usr/local/go/src/bufio/bufio.go:377 +0x29
github.com/redis/go-redis/v9/internal/proto.(*Reader).readLine($P)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/internal/proto/reader.go:141 +0x1c
github.com/redis/go-redis/v9/internal/proto.(*Reader).ReadReply($P)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/internal/proto/reader.go:121 +0x25
github.com/redis/go-redis/v9.(*StringCmd).readReply($G, $P?)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/command.go:849 +0x25
github.com/redis/go-redis/v9.(*baseClient)._process.func1.2($P?)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:406 +0x2b
github.com/redis/go-redis/v9/internal/pool.(*Conn).WithReader($D, {0x9c5a40?, $P?}, 0x12a05f200, $P)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/internal/pool/conn.go:78 +0x163
github.com/redis/go-redis/v9.(*baseClient)._process.func1({0x9c5a40, $H}, $D)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:405 +0x16e
github.com/redis/go-redis/v9.(*baseClient).withConn($P, {0x9c5a40, $H}, $P)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:311 +0x10c
github.com/redis/go-redis/v9.(*baseClient)._process($P, {0x9c5a40, $H}, {0x9cc2c8, $G}, 0x0)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:391 +0xdc
github.com/redis/go-redis/v9.(*baseClient).process($P, {0x9c5a40, $H}, {0x9cc2c8, $G})
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:364 +0x6f
github.com/redis/go-redis/v9.(*Client).Process(...)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/redis.go:672
github.com/redis/go-redis/v9.cmdable.Get($P, {0x9c5a40, $H}, {$P, 0x2c})
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.7.0/string_commands.go:58 +0x148
github.com/acme/shop/internal/session.(*Store).Load($P, {0x9c5a40, $H}, {$P, 0x20})
	/src/shop/internal/session/store.go:41 +0x9f
github.com/acme/shop/internal/middleware.Session.func1({0x9c9f48, $D}, $E)
	/src/shop/internal/middleware/session.go:28 +0x118
` + middleware)),
		creator: creator(serverCreator), parent: "public-serve",
	},
	{
		name: "kafka-dispatcher", state: "chan receive", weight: 2, waits: minutes{0.7, 1, 3000}, parent: "main",
		parts: frames(oneOf(`
github.com/IBM/sarama.(*partitionConsumer).dispatcher($A)
	/go/pkg/mod/github.com/!i!b!m/sarama@v1.45.0/consumer.go:480 +0x65`, `
github.com/IBM/sarama.(*brokerConsumer).subscriptionManager($A)
	/go/pkg/mod/github.com/!i!b!m/sarama@v1.45.0/consumer.go:1105 +0x73`, `
github.com/IBM/sarama.(*partitionConsumer).responseFeeder($A)
	/go/pkg/mod/github.com/!i!b!m/sarama@v1.45.0/consumer.go:852 +0x18c`), fixed(`
github.com/IBM/sarama.withRecover($P)
	/go/pkg/mod/github.com/!i!b!m/sarama@v1.45.0/utils.go:43 +0x3e`)),
		creator: creator(`
created by github.com/IBM/sarama.(*consumer).ConsumePartition in goroutine $I
	/go/pkg/mod/github.com/!i!b!m/sarama@v1.45.0/consumer.go:191 +0x4a5`),
	},
}
