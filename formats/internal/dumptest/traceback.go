package dumptest

import (
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// benchShapes are goroutine templates modeled on real servers' debug=2
// dumps (net/http, gRPC, worker pools, locks, timers, syscalls, deep
// recursion). In them %I is the goroutine id, %W an optional ", N minutes",
// %P a per-goroutine heap pointer and %N a small number.
var benchShapes = []struct {
	weight int
	text   string
}{
	{35, `goroutine %I [IO wait%W]:
internal/poll.runtime_pollWait(0x7f%P, 0x72)
	/usr/local/go/src/runtime/netpoll.go:351 +0x85
internal/poll.(*pollDesc).wait(0x%P?, 0x%P?, 0x0)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:84 +0x27
internal/poll.(*pollDesc).waitRead(...)
	/usr/local/go/src/internal/poll/fd_poll_runtime.go:89
internal/poll.(*FD).Read(0x%P, {0x%P, 0x1000, 0x1000})
	/usr/local/go/src/internal/poll/fd_unix.go:165 +0x279
net.(*netFD).Read(0x%P, {0x%P?, 0x0?, 0x0?})
	/usr/local/go/src/net/fd_posix.go:68 +0x25
net.(*conn).Read(0x%P, {0x%P?, 0x0?, 0x0?})
	/usr/local/go/src/net/net.go:196 +0x45
net/http.(*connReader).Read(0x%P, {0x%P, 0x1000, 0x1000})
	/usr/local/go/src/net/http/server.go:810 +0x159
bufio.(*Reader).fill(0x%P)
	/usr/local/go/src/bufio/bufio.go:113 +0x103
bufio.(*Reader).Peek(0x%P, 0x4)
	/usr/local/go/src/bufio/bufio.go:152 +0x53
net/http.(*conn).serve(0x%P, {0x9b1f28, 0x%P})
	/usr/local/go/src/net/http/server.go:2102 +0x625
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3454 +0x485
`},
	{20, `goroutine %I [chan receive%W]:
main.(*Pool).worker(0x%P, 0x%N)
	/src/app/pool.go:88 +0x9c
created by main.NewPool in goroutine 1
	/src/app/pool.go:52 +0x1a5
`},
	{15, `goroutine %I [select%W]:
google.golang.org/grpc/internal/transport.(*controlBuffer).get(0x%P, 0x1)
	/go/pkg/mod/google.golang.org/grpc@v1.71.0/internal/transport/controlbuf.go:412 +0x108
google.golang.org/grpc/internal/transport.(*loopyWriter).run(0x%P)
	/go/pkg/mod/google.golang.org/grpc@v1.71.0/internal/transport/controlbuf.go:575 +0x78
google.golang.org/grpc/internal/transport.NewHTTP2Client.func6()
	/go/pkg/mod/google.golang.org/grpc@v1.71.0/internal/transport/http2_client.go:467 +0xbb
created by google.golang.org/grpc/internal/transport.NewHTTP2Client in goroutine %N
	/go/pkg/mod/google.golang.org/grpc@v1.71.0/internal/transport/http2_client.go:465 +0x2456
`},
	{10, `goroutine %I [sync.Mutex.Lock%W]:
internal/sync.runtime_SemacquireMutex(0x%P?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:95 +0x25
internal/sync.(*Mutex).lockSlow(0x%P)
	/usr/local/go/src/internal/sync/mutex.go:149 +0x15d
internal/sync.(*Mutex).Lock(...)
	/usr/local/go/src/internal/sync/mutex.go:70
sync.(*Mutex).Lock(...)
	/usr/local/go/src/sync/mutex.go:46
main.(*Cache).Get(0x%P, {0x%P, 0x24})
	/src/app/cache.go:41 +0x4d
main.handler({0x9b0c40, 0x%P}, 0x%P)
	/src/app/main.go:120 +0x8a
net/http.HandlerFunc.ServeHTTP(0x%P?, {0x9b0c40?, 0x%P?}, 0x0?)
	/usr/local/go/src/net/http/server.go:2294 +0x29
net/http.serverHandler.ServeHTTP({0x%P?}, {0x9b0c40?, 0x%P?}, 0x6?)
	/usr/local/go/src/net/http/server.go:3301 +0x8e
net/http.(*conn).serve(0x%P, {0x9b1f28, 0x%P})
	/usr/local/go/src/net/http/server.go:2102 +0x625
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3454 +0x485
`},
	{5, `goroutine %I [sleep%W]:
time.Sleep(0x3b9aca00)
	/usr/local/go/src/runtime/time.go:363 +0x165
main.poller(0x%P)
	/src/app/poll.go:30 +0x3e
created by main.main in goroutine 1
	/src/app/main.go:77 +0x2d0
`},
	{8, `goroutine %I [sync.WaitGroup.Wait%W]:
sync.runtime_SemacquireWaitGroup(0x%P?, 0x0?)
	/usr/local/go/src/runtime/sema.go:114 +0x2e
sync.(*WaitGroup).Wait(0x%P)
	/usr/local/go/src/sync/waitgroup.go:206 +0x85
main.fanOut[...]({0x%P, 0x10, 0x10}, 0x%P)
	/src/app/fan.go:19 +0x1c5
main.(*Batcher).flush.func1()
	/src/app/batch.go:66 +0x4f
created by main.(*Batcher).flush in goroutine %N
	/src/app/batch.go:60 +0x14b
`},
	{2, `goroutine %I [syscall, locked to thread]:
syscall.Syscall6(0xe8, 0x4, 0x%P, 0x80, 0xffffffffffffffff, 0x0, 0x0)
	/usr/local/go/src/syscall/syscall_linux.go:95 +0x39
golang.org/x/sys/unix.EpollWait(0x4, {0x%P, 0x80, 0x80}, -0x1)
	/go/pkg/mod/golang.org/x/sys@v0.30.0/unix/zsyscall_linux_amd64.go:56 +0x6f
main.eventLoop(0x%P)
	/src/app/events.go:33 +0x85
created by main.main in goroutine 1
	/src/app/main.go:80 +0x31e
`},
	{5, `goroutine %I [running]:
encoding/json.(*encodeState).reflectValue(0x%P, {0x8a1b20?, 0x%P?, 0x%N?}, {0x0?, 0x0?})
	/usr/local/go/src/encoding/json/encode.go:321 +0x73
encoding/json.mapEncoder.encode({0x%P?}, 0x%P, {0x8a1b20?, 0x%P?, 0x%N?}, {0x0?, 0x0?})
	/usr/local/go/src/encoding/json/encode.go:767 +0x5b4
encoding/json.structEncoder.encode({{{0x%P, 0x4, 0x4}, 0x%P}}, 0x%P, {0x8f0c40?, 0x%P?, 0x%N?}, {0x0, 0x1})
	/usr/local/go/src/encoding/json/encode.go:706 +0x21e
encoding/json.ptrEncoder.encode({0x%P?}, 0x%P, {0x8a97e0?, 0x%P?, 0x%N?}, {0x0?, 0x0?})
	/usr/local/go/src/encoding/json/encode.go:878 +0x1f3
encoding/json.sliceEncoder.encode({0x%P?}, 0x%P, {0x8a4f20?, 0x%P?, 0x%N?}, {0x0?, 0x0?})
	/usr/local/go/src/encoding/json/encode.go:851 +0x2ce
encoding/json.(*encodeState).marshal(0x%P, {0x8a4f20, 0x%P}, {0x0?, 0x0?})
	/usr/local/go/src/encoding/json/encode.go:297 +0xe5
encoding/json.Marshal({0x8a4f20, 0x%P})
	/usr/local/go/src/encoding/json/encode.go:163 +0x65
main.(*API).list(0x%P, {0x9b0c40, 0x%P}, 0x%P)
	/src/app/api.go:212 +0x1a9
net/http.HandlerFunc.ServeHTTP(0x%P?, {0x9b0c40?, 0x%P?}, 0x0?)
	/usr/local/go/src/net/http/server.go:2294 +0x29
net/http.(*conn).serve(0x%P, {0x9b1f28, 0x%P})
	/usr/local/go/src/net/http/server.go:2102 +0x625
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3454 +0x485
`},
}

// Traceback streams a debug=2 dump of n goroutines drawn from benchShapes
// with a fixed seed; it holds one goroutine's text at a time.
type Traceback struct {
	n, i  int
	rng   *rand.Rand
	buf   []byte
	pick  []int // shape index per weight unit
	parts [][]string
}

// NewTraceback returns a generated debug=2 dump of n goroutines.
func NewTraceback(n int) *Traceback {
	d := &Traceback{n: n, rng: rand.New(rand.NewPCG(1, 2))}
	for i, s := range benchShapes {
		for range s.weight {
			d.pick = append(d.pick, i)
		}
		d.parts = append(d.parts, strings.Split(s.text, "%"))
	}
	return d
}

// Read yields the dump's text, one goroutine at a time.
func (d *Traceback) Read(p []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.i >= d.n {
			return 0, io.EOF
		}
		d.i++
		d.buf = d.appendRoutine(d.buf[:0], d.i)
	}
	c := copy(p, d.buf)
	d.buf = d.buf[c:]
	return c, nil
}

func (d *Traceback) appendRoutine(b []byte, id int) []byte {
	parts := d.parts[d.pick[d.rng.IntN(len(d.pick))]]
	b = append(b, parts[0]...)
	for _, part := range parts[1:] {
		switch part[0] {
		case 'I':
			b = strconv.AppendInt(b, int64(id), 10)
		case 'W':
			if d.rng.IntN(3) == 0 {
				b = append(b, ", "...)
				b = strconv.AppendInt(b, int64(1+d.rng.IntN(90)), 10)
				b = append(b, " minutes"...)
			}
		case 'P':
			b = strconv.AppendUint(b, 0x3ec8e9000000+d.rng.Uint64N(1<<24), 16)
		case 'N':
			b = strconv.AppendInt(b, int64(1+d.rng.IntN(64)), 10)
		}
		b = append(b, part[1:]...)
	}
	return append(b, '\n')
}

// TracebackBytes returns a generated debug=2 dump of n goroutines, whole.
func TracebackBytes(n int) []byte {
	data, _ := io.ReadAll(NewTraceback(n))
	return data
}
