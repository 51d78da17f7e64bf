package dumper

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// An empty path is refused with ErrEmptyPath, before a temporary file is
// made in the working directory (it was: "./..tmp-DIGITS", then a capture,
// then a rename error naming the temporary file).
func TestWriteFileEmptyPath(t *testing.T) {
	t.Chdir(t.TempDir())
	err := WriteFile(context.Background(), "", FileOptions{})
	if !errors.Is(err, ErrEmptyPath) || strings.Contains(err.Error(), "tmp") {
		t.Errorf("WriteFile(\"\") = %v, want ErrEmptyPath, not naming a temporary file", err)
	}
	if af, err := CreateAtomic(""); !errors.Is(err, ErrEmptyPath) || af != nil {
		t.Errorf("CreateAtomic(\"\") = %v, %v; want nil, ErrEmptyPath", af, err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the working directory: %s", e.Name())
	}
}
