package dumper_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
)

// parkedWorker stands for a goroutine of the service: it waits on stop.
func parkedWorker(started chan<- struct{}, stop <-chan struct{}, done chan<- struct{}) {
	close(started)
	<-stop
	close(done)
}

// startWorker starts parkedWorker and returns the function that stops it
// and waits for it to end.
func startWorker() (stop func()) {
	started, stopc, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go parkedWorker(started, stopc, done)
	<-started
	return func() { close(stopc); <-done }
}

// findWorker reads every routine of rd and reports whether one is in
// parkedWorker.
func findWorker(rd *formats.Reader) (bool, error) {
	found := false
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			return found, err
		}
		for r, err := range rd.Routines() {
			if err != nil {
				return found, err
			}
			for _, fr := range r.Frames() {
				if strings.HasSuffix(fr.Func, "dumper_test.parkedWorker") {
					found = true
				}
			}
		}
	}
}

// The endpoint mounted on a test server, asked for a JSON dump of the
// process; the answer is read back with the formats package.
func ExampleHandler() {
	stop := startWorker()
	defer stop()

	mux := http.NewServeMux()
	mux.Handle("/debug/stackdump", dumper.Handler(dumper.HandlerOptions{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + "/debug/stackdump?format=json&compress=none")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))

	rd := formats.NewReader(resp.Body, formats.ReadOptions{})
	found, err := findWorker(rd)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kind:", rd.Kind())
	fmt.Println("parkedWorker in the dump:", found)
	// Output:
	// 200 OK application/json
	// kind: stackdump-json
	// parkedWorker in the dump: true
}

// A capture written to a file atomically; the format and compression come
// from the path's extension, and nothing else is left in the directory.
func ExampleWriteFile() {
	stop := startWorker()
	defer stop()

	dir, err := os.MkdirTemp("", "stackdump-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	path := filepath.Join(dir, "goroutines.json.zst")
	if err := dumper.WriteFile(context.Background(), path, dumper.FileOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println("file:", e.Name())
	}

	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rd := formats.NewReader(f, formats.ReadOptions{}) // undoes the zstd
	found, err := findWorker(rd)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kind:", rd.Kind())
	fmt.Println("parkedWorker in the dump:", found)
	// Output:
	// file: goroutines.json.zst
	// kind: stackdump-json
	// parkedWorker in the dump: true
}
