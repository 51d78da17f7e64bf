package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// TestCLIWords: the library's errors name no flag of the command, and the
// command says them in its own words, as it did before the library's
// were changed, wherever they sit in a wrapped error.
func TestCLIWords(t *testing.T) {
	forError := func(path string, opts output.Options) error {
		_, _, err := output.For(path, opts)
		if err == nil {
			t.Fatalf("output.For(%s, %+v) took it", path, opts)
		}
		return err
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x.txt: %w", formats.ErrGroupedText),
			"x.txt: not a goroutine or thread dump: this is stackdump's grouped text (convert --dedupe), written for people and not read back; write groups with --format json to read them again"},
		{stack.ErrOneDumpPerProfile,
			"formats: a pprof profile or folded stacks hold one dump; write each dump to its own file, or convert to text or json"},
		{fmt.Errorf("%w: binary data", stack.ErrNotDump), "not a goroutine or thread dump: binary data"},
		{fmt.Errorf("%w (GET x: 404)", remote.ErrNoLeakProfile),
			"the target has no goroutine leak profile: --mode leak needs a target built with Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile) (GET x: 404)"},
		{fmt.Errorf("%w: its index lists none; raising the bound would not help (it has 3 goroutines)", remote.ErrNoLeakProfile),
			"raising --leak-max-goroutines would not help"},
		{fmt.Errorf("%w: 403", remote.ErrLeakUncounted), "is unknown; --leak-max-goroutines 0 takes it without the count: 403"},
		{&dumper.LeakBoundError{Goroutines: 30, Bound: 10}, "to take it anyway, raise the bound: --leak-max-goroutines N on the command line (0: no bound)"},
		{forError("x.gz", output.Options{Compression: "none"}), "x.gz: a .gz name, but --compress is none (name it x)"},
		{forError("x.json", output.Options{Format: "text"}), "x.json: a json name, but --format is text"},
		{forError("x.dat", output.Options{}), "or say --format)"},
	} {
		for _, flag := range []string{"--mode", "--leak-max-goroutines", "--format", "--dedupe", "--compress"} {
			if strings.Contains(c.err.Error(), flag) {
				t.Errorf("the library's error names %s: %v", flag, c.err)
			}
		}
		got := cliMessage(c.err)
		if !strings.Contains(got, c.want) {
			t.Errorf("cliMessage(%v) = %q, want it to hold %q", c.err, got, c.want)
		}
		if again := cliError(cliError(c.err)); again.Error() != got || !errors.Is(again, c.err) {
			t.Errorf("cliError twice: %q, want %q, and errors.Is to see the library's error", again, got)
		}
	}
}
