package dumper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stackdump/stackdump/formats/output"
)

// DefaultKeep is how many dump files OnSignal keeps when SignalOptions.Keep is zero.
const DefaultKeep = 10

// SignalOptions configure [OnSignal].
type SignalOptions struct {
	// File sets format, compression, capture mode and dedupe of each dump;
	// an empty Format means text and an empty Compression gzip.
	File FileOptions
	// Prefix starts each file name; empty means "stackdump". Files are
	// named PREFIX-YYYYMMDD-HHMMSS.ffffff-PID.EXT (UTC), so that names sort
	// by time. A Prefix with a directory ("app/dump") writes into that
	// directory of dir, where Keep then counts.
	Prefix string
	// Keep is how many of the PREFIX-* dump files in the directory are
	// kept: after each dump the oldest beyond Keep are removed, whichever
	// process wrote them. Zero means DefaultKeep; negative keeps all.
	Keep int
	// OnError, when not nil, is told about each dump or cleanup that
	// failed; the handler carries on with the next signal.
	OnError func(error)
	// OnDump, when not nil, is told the path of each dump written, once
	// older dumps were pruned.
	OnDump func(path string)
}

// OnSignal writes a goroutine dump into dir each time the process receives
// sig (syscall.SIGUSR1 is the usual choice), until ctx is done or stop is
// called. Signals that arrive while a dump is being written are merged into
// one more dump. stop waits for a dump in progress to end.
//
//	stop := dumper.OnSignal(ctx, syscall.SIGUSR1, "/var/tmp/dumps", dumper.SignalOptions{Keep: 5})
//	defer stop()
func OnSignal(ctx context.Context, sig os.Signal, dir string, opts SignalOptions) (stop func()) {
	if opts.Prefix == "" {
		opts.Prefix = "stackdump"
	}
	if opts.Keep == 0 {
		opts.Keep = DefaultKeep
	}
	// A Prefix with a directory ("app/dump") puts the files in that
	// directory under dir, and Keep counts the dumps there.
	sub, base := filepath.Split(opts.Prefix)
	dir, opts.Prefix = filepath.Join(dir, sub), base
	if opts.File.Format == "" {
		opts.File.Format = output.Text
	}
	if opts.File.Compression == "" {
		opts.File.Compression = output.Gzip
	}
	// The file name's extension is made from Format and Compression, so
	// they are spelled as the extension needs ("JSON" is json); one that
	// names nothing is left for WriteFile to report through OnError.
	if f, err := output.ParseFormat(string(opts.File.Format)); err == nil {
		opts.File.Format = f
	}
	if c, err := output.ParseCompression(string(opts.File.Compression)); err == nil {
		opts.File.Compression = c
	}
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				dumpOnSignal(ctx, dir, &opts)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// dumpOnSignal writes one dump and prunes old ones, reporting failures.
func dumpOnSignal(ctx context.Context, dir string, opts *SignalOptions) {
	report := func(err error) {
		if opts.OnError != nil && err != nil {
			opts.OnError(err)
		}
	}
	name := fmt.Sprintf("%s-%s-%d%s", opts.Prefix, time.Now().UTC().Format("20060102-150405.000000"),
		os.Getpid(), output.Extension(opts.File.Format, opts.File.Compression))
	path := filepath.Join(dir, name)
	if err := WriteFile(ctx, path, opts.File); err != nil {
		report(fmt.Errorf("dump on signal: %w", err))
		return
	}
	if opts.Keep > 0 {
		report(pruneDumps(dir, opts.Prefix+"-", opts.Keep))
	}
	if opts.OnDump != nil {
		opts.OnDump(path)
	}
}

// pruneDumps removes the oldest files named prefix* in dir beyond keep.
// Names sort by time, so the oldest sort first.
func pruneDumps(dir, prefix string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("prune dumps: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && isDumpName(e.Name(), prefix) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var errs []error
	for _, n := range names[:max(0, len(names)-keep)] {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("prune dumps: %w", err)
	}
	return nil
}

// isDumpName reports whether name is PREFIX followed by a YYYYMMDD date,
// so that pruning leaves other files alone.
func isDumpName(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || len(rest) < 9 || rest[8] != '-' {
		return false
	}
	for _, c := range rest[:8] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
