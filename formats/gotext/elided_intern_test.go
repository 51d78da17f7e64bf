package gotext

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// Goroutines on the same frames elided alike share one interned stack,
// and a different elision makes a different stack, in both reading
// modes. The input is the real elided goroutine of
// testdata/go/elided_go126.txt three times: as printed, again under
// another id, and with its "...52 frames elided..." counted 53.
func TestElidedStacksInterned(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/go/elided_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(raw, []byte("goroutine 8 [running]:\n"))
	end := bytes.Index(raw, []byte("exit status"))
	if start < 0 || end < start {
		t.Fatal("elided_go126.txt: no goroutine 8 block")
	}
	block := raw[start:end]
	var in bytes.Buffer
	in.Write(block)
	in.WriteString("\n")
	in.Write(bytes.Replace(block, []byte("goroutine 8 "), []byte("goroutine 9 "), 1))
	in.WriteString("\n")
	other := bytes.Replace(block, []byte("goroutine 8 "), []byte("goroutine 10 "), 1)
	in.Write(bytes.Replace(other, []byte("...52 frames elided..."), []byte("...53 frames elided..."), 1))

	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) {
			rd := NewReader(bytes.NewReader(in.Bytes()), ReadOptions{ReuseRoutines: reuse})
			var stacks []*stack.Stack
			for {
				_, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for r, err := range rd.Routines() {
					if err != nil {
						t.Fatal(err)
					}
					stacks = append(stacks, r.Stack)
				}
			}
			if len(stacks) != 3 {
				t.Fatalf("read %d goroutines, want 3", len(stacks))
			}
			for i, s := range stacks {
				if !s.Elided || s.ElidedAt == 0 {
					t.Fatalf("goroutine %d: stack not elided: %+v", i, s)
				}
			}
			if stacks[0] != stacks[1] {
				t.Errorf("the same elided stack interned twice: %p and %p", stacks[0], stacks[1])
			}
			if stacks[2] == stacks[0] || stacks[2].ElidedCount != 53 || stacks[0].ElidedCount != 52 {
				t.Errorf("elided counts %d, %d, %d (same stack: %v), want 52, 52, 53 on two stacks",
					stacks[0].ElidedCount, stacks[1].ElidedCount, stacks[2].ElidedCount, stacks[2] == stacks[0])
			}
		})
	}
}
