package report

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkWrite writes the page of one dump of n distinct stacks.
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{100, 10000} {
		d := manyGroups(n)
		groups := groupsOf(d)
		inputs := []Input{{Dump: d, Groups: groups}}
		b.Run(fmt.Sprintf("groups=%d", n), func(b *testing.B) {
			var size countingWriter
			if err := Write(&size, inputs, Options{}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(io.Discard, inputs, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
