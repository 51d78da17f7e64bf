package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// lineSignal is a writer that sends each write's text on a channel.
type lineSignal struct {
	mu  sync.Mutex
	out bytes.Buffer
	got chan string
}

func (l *lineSignal) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out.Write(p)
	l.got <- string(p)
	return len(p), nil
}

// TestQueryStreams feeds query two real dumps (of the demo service, 211
// KiB of JSON each: more than the 64 KiB input sniffing peeks at) on
// standard input, the second only after the first's result was printed:
// query answers each dump as it is read instead of reading the whole
// input first.
func TestQueryStreams(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "demo_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	enc, err := formats.NewEncoder(&doc, output.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteDump(enc, dumps[0]); err != nil {
		t.Fatal(err)
	}
	want := dumps[0].Total

	pr, pw := io.Pipe()
	out := &lineSignal{got: make(chan string, 4)}
	root := newRootCommand()
	root.SetArgs([]string{"query", "-", "total"})
	root.SetIn(pr)
	root.SetOut(out)
	root.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- root.Execute() }()

	go pw.Write(doc.Bytes())
	select {
	case got := <-out.got:
		if strings.TrimSpace(got) != strconv.FormatInt(want, 10) {
			t.Fatalf("first result %q, want %d", got, want)
		}
	case err := <-done:
		t.Fatalf("query ended before the second dump came: %v", err)
	case <-time.After(10 * time.Second):
		pw.Close()
		<-done
		t.Fatal("no result before the input ended: query does not stream")
	}
	if _, err := pw.Write(doc.Bytes()); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := <-out.got; strings.TrimSpace(got) != strconv.FormatInt(want, 10) {
		t.Fatalf("second result %q, want %d", got, want)
	}
}
