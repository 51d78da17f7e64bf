package gotext_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/stackdump/stackdump/formats/gotext"
)

// A panic's traceback, wrapped in a journald prefix, read one goroutine at
// a time.
func Example_goTraceback() {
	const log = `Nov 30 10:00:00 host app[123]: panic: boom
Nov 30 10:00:00 host app[123]: 
Nov 30 10:00:00 host app[123]: goroutine 1 [running]:
Nov 30 10:00:00 host app[123]: main.main()
Nov 30 10:00:00 host app[123]: 	/src/app/main.go:10 +0x1d
Nov 30 10:00:00 host app[123]: 
Nov 30 10:00:00 host app[123]: goroutine 7 [chan receive, 3 minutes]:
Nov 30 10:00:00 host app[123]: main.worker(0xc000010000)
Nov 30 10:00:00 host app[123]: 	/src/app/main.go:20 +0x2a
Nov 30 10:00:00 host app[123]: created by main.main in goroutine 1
Nov 30 10:00:00 host app[123]: 	/src/app/main.go:9 +0x3b
Nov 30 10:00:01 host systemd[1]: app.service: Main process exited, code=exited, status=2/INVALIDARGUMENT
`
	rd := gotext.NewReader(strings.NewReader(log), gotext.ReadOptions{})
	for {
		d, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s dump: %q\n", d.Source.Kind, d.Preamble)
		for r, err := range rd.Routines() {
			if err != nil {
				fmt.Println("warning:", err)
				continue
			}
			top := r.Frames()[0]
			fmt.Printf("goroutine %d [%s] %d min, parent %d: %s(%s) at %s:%d\n", r.ID, r.State, r.WaitMinutes, r.ParentID, top.Func, r.Arg(0), top.File, top.Line)
		}
		fmt.Println("total", d.Total, "truncated", d.Truncated)
	}
	// Output:
	// go-traceback dump: ["panic: boom"]
	// goroutine 1 [running] 0 min, parent 0: main.main() at /src/app/main.go:10
	// goroutine 7 [chan receive] 3 min, parent 1: main.worker(0xc000010000) at /src/app/main.go:20
	// total 2 truncated false
}
