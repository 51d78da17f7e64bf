package zseg

import (
	"bytes"
	"testing"
)

// FuzzSegments cuts data into segments where cuts says (each byte is the
// length of the next segment, 0 an empty one) and checks that every
// compression gives the data back.
func FuzzSegments(f *testing.F) {
	f.Add([]byte("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:5 +0x1d\n"), []byte{10, 0, 3})
	f.Add([]byte{}, []byte{})
	f.Add(bytes.Repeat([]byte{0}, 5000), []byte{255, 255, 0, 1})
	f.Add(dumpJSON(4<<10, 11), []byte{200, 7, 0, 0, 90})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		var chunks [][]byte
		rest := data
		for _, c := range cuts {
			n := min(int(c)*16, len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		chunks = append(chunks, rest)
		for _, c := range compressions {
			stream := segmentsOf(t, Options{Compression: c}, chunks...)
			if got := decode(t, c, stream); !bytes.Equal(got, data) {
				t.Fatalf("%s: decoded %d bytes, want %d equal ones", c, len(got), len(data))
			}
		}
		if len(data) > 0 {
			return
		}
		gz := segmentsOf(t, Options{Compression: Gzip}, chunks...)
		if !bytes.Equal(gz, segmentsOf(t, Options{Compression: Gzip})) {
			t.Fatalf("no data but the stream is not the empty one: % x", gz)
		}
	})
}
