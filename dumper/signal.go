package dumper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/atomicfile"
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
	// OnError is told about each dump or cleanup that failed; the handler
	// carries on with the next signal. When nil, failures are logged
	// through the standard logger (log.Printf: standard error unless the
	// program sent it elsewhere); func(error) {} silences them.
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
// The directory must exist: OnSignal does not create it (a mistyped path
// would otherwise make directories, as root on some machines). It checks
// at once that a dump can be written there and returns the error when
// not (a missing directory, a file, a read-only one), so that the mistake
// shows at start-up rather than when someone sends the signal during an
// incident. The handler is installed all the same, and stop must still be
// called: a signal the process does not handle would kill it (SIGUSR1's
// default action), and the directory may appear later. A dump that fails
// then is told to OnError (logged when nil).
//
//	stop, err := dumper.OnSignal(ctx, syscall.SIGUSR1, "/var/tmp/dumps", dumper.SignalOptions{Keep: 5})
//	if err != nil {
//		log.Printf("goroutine dumps on SIGUSR1: %v", err)
//	}
//	defer stop()
func OnSignal(ctx context.Context, sig os.Signal, dir string, opts SignalOptions) (stop func(), err error) {
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
	// names nothing is returned, and WriteFile reports it on each signal.
	var errs []error
	if f, err := output.ParseFormat(string(opts.File.Format)); err == nil {
		opts.File.Format = f
	} else {
		errs = append(errs, fmt.Errorf("dumper.OnSignal: %w", err))
	}
	if c, err := output.ParseCompression(string(opts.File.Compression)); err == nil {
		opts.File.Compression = c
	} else {
		errs = append(errs, fmt.Errorf("dumper.OnSignal: %w", err))
	}
	if opts.OnError == nil {
		opts.OnError = logSignalError
	}
	err = errors.Join(append(errs, checkDumpDir(dir, opts))...)
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
				dumpOnSignal(ctx, sig, dir, &opts)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}, err
}

// checkDumpDir reports why a dump could not be written into dir: a
// missing directory, a file in its place, or one where a file cannot be
// created (checked by creating and removing a temporary file).
func checkDumpDir(dir string, opts SignalOptions) error {
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	if err == nil {
		err = atomicfile.Check(filepath.Join(dir, dumpName(opts)))
	}
	if err != nil {
		return fmt.Errorf("dumper.OnSignal: dumps cannot be written into %s: %w", dir, err)
	}
	return nil
}

// logSignalError is SignalOptions.OnError when none is given.
func logSignalError(err error) {
	log.Printf("stackdump: %v", err)
}

// dumpName is the file name of a dump written now.
func dumpName(opts SignalOptions) string {
	return fmt.Sprintf("%s-%s-%d%s", opts.Prefix, time.Now().UTC().Format("20060102-150405.000000"),
		os.Getpid(), output.Extension(opts.File.Format, opts.File.Compression))
}

// dumpOnSignal writes one dump and prunes old ones, reporting failures.
func dumpOnSignal(ctx context.Context, sig os.Signal, dir string, opts *SignalOptions) {
	report := func(err error) {
		if err != nil {
			opts.OnError(err)
		}
	}
	path := filepath.Join(dir, dumpName(*opts))
	if err := WriteFile(ctx, path, opts.File); err != nil {
		report(fmt.Errorf("goroutine dump on %v failed: %w", sig, err))
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
