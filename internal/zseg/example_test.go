package zseg_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/stackdump/stackdump/internal/zseg"
)

// Workers compress chunks at the same time, each with its own Encoder; one
// goroutine writes the segments in order.
func Example() {
	var out bytes.Buffer
	s, err := zseg.NewStream(&out, zseg.Options{Compression: zseg.Gzip})
	if err != nil {
		log.Fatal(err)
	}
	chunks := []string{"goroutine 1 [running]:\n", "main.main()\n", "\t/src/main.go:5 +0x1d\n"}
	results := make([]chan zseg.Segment, len(chunks))
	for i, chunk := range chunks {
		results[i] = make(chan zseg.Segment, 1)
		go func() {
			enc := s.NewEncoder()
			io.WriteString(enc, chunk)
			results[i] <- enc.Take(nil)
		}()
	}
	for _, r := range results {
		if err := s.WriteSegment(<-r); err != nil {
			log.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	zr, err := gzip.NewReader(&out)
	if err != nil {
		log.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(strings.ReplaceAll(string(text), "\t", "    "))
	// Output:
	// goroutine 1 [running]:
	// main.main()
	//     /src/main.go:5 +0x1d
}
