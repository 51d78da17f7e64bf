// Command demo prints the debug=2 goroutine dump of the demo service
// (package internal/demo) once LEAKED goroutines (default 150) have
// leaked: a real capture for the analysis tests.
//
//	go run ./testdata/gen/demo > testdata/go/demo_go126.txt
package main

import (
	"log"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/stackdump/stackdump/internal/demo"
)

func main() {
	want := 150
	if s := os.Getenv("LEAKED"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("LEAKED=%q: %v", s, err)
		}
		want = n
	}
	svc, err := demo.Start(demo.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for svc.Leaked() < want {
		time.Sleep(10 * time.Millisecond)
	}
	if err := pprof.Lookup("goroutine").WriteTo(os.Stdout, 2); err != nil {
		log.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		log.Fatal(err)
	}
}
