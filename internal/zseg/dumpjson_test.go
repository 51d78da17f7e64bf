package zseg

import (
	"math/rand/v2"
	"strconv"
)

// dumpJSON returns about size bytes of goroutine-dump-like JSON, one
// goroutine per line: increasing ids, a few states and wait times, stacks
// drawn from a few dozen distinct ones, and argument words, most fixed
// per frame and one in four a fresh pointer, as in real dumps. It is the
// text stackdump writes, and compresses like it.
func dumpJSON(size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	states := []string{"chan receive", "select", "IO wait", "semacquire", "running", "sync.Mutex.Lock", "sleep"}
	pkgs := []string{"main", "net/http", "database/sql", "github.com/acme/app/worker", "google.golang.org/grpc/internal/transport", "runtime"}
	funcs := []string{"worker", "(*conn).serve", "(*DB).connectionOpener", "(*Pool).run", "(*http2Client).reader", "gopark", "handle"}
	files := []string{"/src/app/worker.go", "/usr/local/go/src/net/http/server.go", "/usr/local/go/src/database/sql/sql.go", "/src/app/pool.go", "/go/pkg/mod/google.golang.org/grpc@v1.64.0/internal/transport/http2_client.go", "/usr/local/go/src/runtime/proc.go"}
	type frame struct {
		fn, file   string
		line, offs int
		arg        uint64
	}
	stacks := make([][]frame, 40)
	for i := range stacks {
		depth := 3 + rng.IntN(12)
		for range depth {
			p := rng.IntN(len(pkgs))
			stacks[i] = append(stacks[i], frame{pkgs[p] + "." + funcs[rng.IntN(len(funcs))], files[p], 10 + rng.IntN(2000), rng.IntN(0x400), 0x000020000 + uint64(rng.IntN(1<<20))*8})
		}
	}
	b := make([]byte, 0, size+4096)
	for id := 1; len(b) < size; id += 1 + rng.IntN(3) {
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, `,"state":"`...)
		b = append(b, states[rng.IntN(len(states))]...)
		b = append(b, '"')
		if rng.IntN(3) == 0 {
			b = append(b, `,"wait_minutes":`...)
			b = strconv.AppendInt(b, int64(rng.IntN(90)), 10)
		}
		b = append(b, `,"stack":[`...)
		for i, f := range stacks[rng.IntN(len(stacks))] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"func":"`...)
			b = append(b, f.fn...)
			b = append(b, `","file":"`...)
			b = append(b, f.file...)
			b = append(b, `","line":`...)
			b = strconv.AppendInt(b, int64(f.line), 10)
			b = append(b, `,"offset":`...)
			b = strconv.AppendInt(b, int64(f.offs), 10)
			b = append(b, `,"args":"0xc`...)
			arg := f.arg
			if rng.IntN(4) == 0 {
				arg = 0x000020000 + uint64(rng.IntN(1<<20))*8
			}
			b = strconv.AppendUint(b, arg, 16)
			b = append(b, `, 0x`...)
			b = strconv.AppendUint(b, f.arg&0xff, 16)
			b = append(b, `"}`...)
		}
		b = append(b, "]}\n"...)
	}
	return b
}
