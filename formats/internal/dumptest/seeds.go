package dumptest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Fuzz targets and corpus tests seed from files under testdata. A glob
// that matches nothing (a renamed directory, a typo) or a file that does
// not load would silently leave a target with fewer seeds than it claims,
// so both fail the test here. They are exported so that the external test
// package (formats_test) shares them; they are not part of the package.

// SeedFiles returns the files that patterns match, pattern by pattern,
// and fails tb when a pattern is malformed or matches no file.
func SeedFiles(tb testing.TB, patterns ...string) []string {
	tb.Helper()
	var files []string
	for _, pat := range patterns {
		m, err := filepath.Glob(pat)
		if err != nil {
			tb.Fatalf("seed pattern %q: %v", pat, err)
			return nil
		}
		if len(m) == 0 {
			tb.Fatalf("seed pattern %q matches no file", pat)
			return nil
		}
		files = append(files, m...)
	}
	return files
}

// ReadSeeds returns the contents of the files SeedFiles returns, as
// LoadSeedFiles loads them.
func ReadSeeds(tb testing.TB, patterns ...string) [][]byte {
	tb.Helper()
	files := SeedFiles(tb, patterns...)
	if files == nil {
		return nil
	}
	return LoadSeedFiles(tb, files)
}

// LoadSeedFiles returns the contents of files, and fails tb when one
// cannot be read, is empty, or is a Git LFS pointer instead of the data.
func LoadSeedFiles(tb testing.TB, files []string) [][]byte {
	tb.Helper()
	seeds := make([][]byte, 0, len(files))
	for _, path := range files {
		data, err := os.ReadFile(path)
		switch {
		case err != nil:
			tb.Fatalf("seed %s: %v", path, err)
			return nil
		case len(data) == 0:
			tb.Fatalf("seed %s is empty", path)
			return nil
		case bytes.HasPrefix(data, []byte("version https://git-lfs.github.com/spec/")):
			tb.Fatalf("seed %s is a Git LFS pointer, not the file (git lfs pull)", path)
			return nil
		}
		seeds = append(seeds, data)
	}
	return seeds
}
