package formats_test

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// A real traceback (testdata/gen/deadlock, testdata/gen/README.md) read,
// written as stackdump JSON, and read back: the JSON holds what the text
// did.
func Example_roundTrip() {
	f, err := os.Open("../testdata/go/deadlock_go126.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	var doc bytes.Buffer
	enc, err := formats.NewEncoder(&doc, output.JSON)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := formats.Copy(enc, formats.NewReader(f, formats.ReadOptions{}), func(pe *stack.ParseError) {
		fmt.Println("warning:", pe)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dumps written:", n)

	rd := formats.NewReader(&doc, formats.ReadOptions{})
	for {
		d, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("read back as %s: %q\n", rd.Kind(), d.Preamble)
		for r, err := range rd.Routines() {
			if err != nil {
				fmt.Println("warning:", err)
				continue
			}
			top := r.Frames()[0]
			fmt.Printf("goroutine %d [%s] parent %d, %d frames, top %s line %d\n", r.ID, r.State, r.ParentID, len(r.Frames()), top.Func, top.Line)
		}
	}
	// Output:
	// dumps written: 1
	// read back as stackdump-json: ["fatal error: all goroutines are asleep - deadlock!"]
	// goroutine 1 [sync.Mutex.Lock] parent 0, 6 frames, top internal/sync.runtime_SemacquireMutex line 95
	// goroutine 5 [chan send] parent 1, 1 frames, top main.asleep.func1 line 38
}
