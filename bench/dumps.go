package bench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/stackdump/stackdump/bench/gen"
)

// Variant names a dump flavour.
type Variant string

// The variants: Compatible has no line form that gostackparse drops,
// Modern has a small share of gp= headers, labels and elided stacks.
const (
	Compatible Variant = "compatible"
	Modern     Variant = "modern"
)

// Seed is the generator seed of every benchmark dump.
const Seed = 1

// DirEnv names the environment variable that holds the dump cache
// directory; when unset, dumps are cached under the system temp dir.
const DirEnv = "STACKDUMP_BENCH_DIR"

// Options returns the generator options of a variant and size.
func Options(v Variant, n int) gen.Options {
	if v == Modern {
		return gen.Modern(n, Seed)
	}
	return gen.Compatible(n, Seed)
}

// Dir returns the dump cache directory.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "stackdump-bench")
}

// fingerprint identifies the generator's output, so a cached dump made by
// an older generator is never reused: a small dump of every form is hashed.
var fingerprint = sync.OnceValue(func() string {
	b, _ := gen.Generate(gen.Options{Goroutines: 2000, Seed: 99, SystemShare: 0.05, LabelShare: 0.2, Elide: true})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
})

// Path returns the file holding the dump of variant v with n goroutines,
// generating it first if the cache lacks it, and the generator's Stats.
func Path(v Variant, n int) (string, gen.Stats, error) {
	dir := Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", gen.Stats{}, fmt.Errorf("dump cache: %w", err)
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-seed%d-%s", v, SizeName(n), Seed, fingerprint()))
	path, statsPath := base+".txt", base+".json"
	if st, err := readStats(statsPath); err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Size() == st.Bytes {
			return path, st, nil
		}
	}
	st, err := writeDump(path, Options(v, n))
	if err != nil {
		return "", gen.Stats{}, err
	}
	js, _ := json.Marshal(st)
	if err := os.WriteFile(statsPath, js, 0o644); err != nil {
		return "", gen.Stats{}, fmt.Errorf("dump cache: %w", err)
	}
	return path, st, nil
}

func readStats(path string) (gen.Stats, error) {
	var st gen.Stats
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	return st, err
}

// writeDump generates a dump into a temporary file renamed into place, so
// an interrupted run never leaves a partial dump behind.
func writeDump(path string, opts gen.Options) (gen.Stats, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".gen-*")
	if err != nil {
		return gen.Stats{}, fmt.Errorf("dump cache: %w", err)
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	st, err := gen.Write(bw, opts)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return gen.Stats{}, fmt.Errorf("generating %s: %w", path, err)
	}
	return st, nil
}

// SizeName writes a goroutine count as the benchmarks name it: 1k, 10k, 1M.
func SizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// ParseSize reads a size written by SizeName (case-insensitive suffix).
func ParseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1000, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1_000_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q: want a count like 1000, 10k or 1M", s)
	}
	return n * mult, nil
}
