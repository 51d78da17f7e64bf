package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// The library's errors say what went wrong in the library's words, and
// name no flag of this command; the command says them in its own, with
// the flag or the command that helps: every command's error
// (speakCLIWords), and the errors it prints as it goes (cliMessage).

// cliWords are the library's words the command says its own way, each
// for the error it belongs to (errors.Is).
var cliWords = []struct {
	err      error
	lib, cli string
}{
	{formats.ErrGroupedText, formats.ErrGroupedText.Error(),
		"not a goroutine or thread dump: this is stackdump's grouped text (convert --dedupe), written for people and not read back; write groups with --format json to read them again"},
	{formats.ErrCoreFile, formats.ErrCoreFile.Error(),
		"not a goroutine or thread dump: this is an ELF core file, a process's memory: read its goroutines with stackdump analyze, convert or report, giving --exe when its executable is not where the process ran it"},
	{stack.ErrNotDump, stack.ErrNotDump.Error(), "not a goroutine or thread dump"},
	{stack.ErrOneDumpPerProfile, stack.ErrOneDumpPerProfile.Error(),
		"formats: a pprof profile or folded stacks hold one dump; write each dump to its own file, or convert to text or json"},
	{stack.ErrTooLarge, stack.ErrTooLarge.Error(), "formats: decompressed input exceeds the size limit"},
	{stack.ErrNotGoroutineProfile, stack.ErrNotGoroutineProfile.Error(), "formats: not a goroutine profile"},
	{stack.ErrUnknownFormat, stack.ErrUnknownFormat.Error(), "formats: unrecognised dump format"},
	{output.ErrName, "but the format asked for is", "but --format is"},
	{output.ErrName, "but the compression asked for is", "but --compress is"},
	{output.ErrName, "or give the format)", "or say --format)"},
	{remote.ErrNoLeakProfile, remote.ErrNoLeakProfile.Error(),
		"the target has no goroutine leak profile: --mode leak needs a target built with Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile)"},
	{remote.ErrNoLeakProfile, "raising the bound would not help", "raising --leak-max-goroutines would not help"},
	{remote.ErrLeakUncounted, remote.ErrLeakUncounted.Error(),
		remote.ErrLeakUncounted.Error() + "; --leak-max-goroutines 0 takes it without the count"},
}

// leakBoundWords is how the command says a leak capture's bound is
// raised (dumper.LeakBoundError.Override).
const leakBoundWords = "to take it anyway, raise the bound: --leak-max-goroutines N on the command line (0: no bound)"

// cliMessage returns err's message in the command's words (cliWords,
// leakBoundWords).
func cliMessage(err error) string {
	var said *wordedError
	if errors.As(err, &said) {
		return err.Error() // said in the command's words already
	}
	var lbe *dumper.LeakBoundError
	if errors.As(err, &lbe) && lbe.Override == "" {
		lbe.Override = leakBoundWords
	}
	msg := err.Error()
	for _, w := range cliWords {
		if errors.Is(err, w.err) {
			msg = strings.Replace(msg, w.lib, w.cli, 1)
		}
	}
	return msg
}

// speakCLIWords makes the errors of root's commands say the library's
// words in the command's (cliError).
func speakCLIWords(root *cobra.Command) {
	for _, c := range root.Commands() {
		speakCLIWords(c)
	}
	if run := root.RunE; run != nil {
		root.RunE = func(cmd *cobra.Command, args []string) error { return cliError(run(cmd, args)) }
	}
}

// cliError returns err in the command's words (cliMessage): errors.Is
// and errors.As see err through it, and an exitError keeps its status.
func cliError(err error) error {
	if ex, ok := err.(exitError); ok {
		ex.err = cliError(ex.err)
		return ex
	}
	if err == nil {
		return nil
	}
	if msg := cliMessage(err); msg != err.Error() {
		return &wordedError{msg: msg, err: err}
	}
	return err
}

// wordedError is an error said in the command's words.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }
