package codec

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReaderUnread pushes lines back, short and longer than the
// buffer, and checks that each comes back whole with its number and offset.
func TestLineReaderUnread(t *testing.T) {
	data := "a\r\n" + strings.Repeat("b", 100) + "\nc"
	for _, mem := range []bool{false, true} {
		lr := newLines(bufio.NewReaderSize(strings.NewReader(data), 16), nil, 1000)
		if mem {
			lr = newLines(nil, []byte(data), 1000)
		}
		for _, want := range []struct {
			text string
			num  int
			off  int64
		}{{"a", 1, 0}, {strings.Repeat("b", 100), 2, 3}, {"c", 3, 104}} {
			for range 2 {
				l, err := lr.Read()
				if err != nil || string(l.Text) != want.text || l.Num != want.num || l.Off != want.off {
					t.Fatalf("mem=%v: got %q %v at %d/%d; want %+v", mem, l.Text, err, l.Num, l.Off, want)
				}
				lr.Unread()
			}
			lr.Read() // the pushed-back line, taken for good
		}
		if _, err := lr.Read(); err != io.EOF {
			t.Fatalf("mem=%v: %v at the end, want EOF", mem, err)
		}
	}
}

// TestLineReaderStickyError checks that a read error is returned again by
// every later call, even when the source would go on after it: the bytes
// after a failed read are not taken for lines.
func TestLineReaderStickyError(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("one\ntw"), &errOnce{err: boom}, strings.NewReader("o\n"))
	lr := newLineReader(bufio.NewReaderSize(src, 16), 100)
	if l, err := lr.ReadLine(); err != nil || string(l.Text) != "one" {
		t.Fatalf("got %q %v", l.Text, err)
	}
	for range 3 {
		if l, err := lr.ReadLine(); err != boom {
			t.Fatalf("got %q %v; want the read error", l.Text, err)
		}
	}
}

// errOnce fails its first Read with err and is at EOF after it.
type errOnce struct {
	err  error
	done bool
}

func (e *errOnce) Read([]byte) (int, error) {
	if e.done {
		return 0, io.EOF
	}
	e.done = true
	return 0, e.err
}
