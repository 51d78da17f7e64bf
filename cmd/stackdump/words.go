package main

import (
	"errors"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// The library's errors say what went wrong in the library's words, and
// name no flag of this command; the command says them in its own, with
// the flag or the command that helps: every command's error
// (speakCLIWords), the errors it prints as it goes (cliMessage), a
// target's (parseTarget) and a capture's fallback (cliFallback). The
// filter flags' errors and notes are filter.go's (filterFlags.filter,
// filterText); the timeline's hint is timeline.go's (TextOptions.ListHint).
// TestCLIWords and TestCLIWordsOfCaptures hold each one.

// cliWords are the library's words the command says its own way, each
// for the error it belongs to (errors.Is): lib is replaced by cli, or,
// where the words hold a number or a name, the pattern re by cli ($1 is
// its first group).
var cliWords = []struct {
	err      error
	lib, cli string
	re       *regexp.Regexp
}{
	{err: formats.ErrGroupedText, lib: formats.ErrGroupedText.Error(),
		cli: "not a goroutine or thread dump: this is stackdump's grouped text (convert --dedupe), written for people and not read back; write groups with --format json to read them again"},
	{err: formats.ErrCoreFile, lib: formats.ErrCoreFile.Error(),
		cli: "not a goroutine or thread dump: this is an ELF core file, a process's memory: read its goroutines with stackdump analyze, convert or report, giving --exe when its executable is not where the process ran it"},
	{err: stack.ErrNotDump, lib: stack.ErrNotDump.Error(), cli: "not a goroutine or thread dump"},
	{err: stack.ErrOneDumpPerProfile, lib: stack.ErrOneDumpPerProfile.Error(),
		cli: "formats: a pprof profile or folded stacks hold one dump; write each dump to its own file, or convert to text or json"},
	{err: stack.ErrTooLarge, lib: stack.ErrTooLarge.Error(), cli: "formats: decompressed input exceeds the size limit"},
	{err: stack.ErrNotGoroutineProfile, lib: stack.ErrNotGoroutineProfile.Error(), cli: "formats: not a goroutine profile"},
	{err: stack.ErrUnknownFormat, lib: stack.ErrUnknownFormat.Error(), cli: "formats: unrecognised dump format"},
	{err: output.ErrName, lib: "but the format asked for is", cli: "but --format is"},
	{err: output.ErrName, lib: "but the compression asked for is", cli: "but --compress is"},
	{err: output.ErrName, lib: "or give the format)", cli: "or say --format)"},
	{err: remote.ErrNoLeakProfile, lib: remote.ErrNoLeakProfile.Error(),
		cli: "the target has no goroutine leak profile: --mode leak needs a target built with Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile)"},
	{err: remote.ErrNoLeakProfile, lib: "raising the bound would not help", cli: "raising --leak-max-goroutines would not help"},
	{err: remote.ErrNoLeakProfile, lib: "mode leak: a ", cli: "--mode leak: a "}, // a gops agent, a JVM
	{err: remote.ErrLeakUncounted, lib: remote.ErrLeakUncounted.Error(),
		cli: remote.ErrLeakUncounted.Error() + "; --leak-max-goroutines 0 takes it without the count"},
	{err: remote.ErrTimeout, lib: "Options.Timeout sets the bound", cli: "--timeout sets the bound"},
	{err: remote.ErrNoTrace, lib: "capture in a mode other than ModeTrace", cli: "capture without --mode trace"},
	{err: remote.ErrPauseBudget, lib: "(Options.MaxPause 0: no bound)", cli: "(--max-pause 0: no bound)"},
	{err: remote.ErrTooLarge, lib: "(Options.MaxBytes)", cli: "(--max-bytes)"},
	{err: remote.ErrModeNotServed, re: regexp.MustCompile(`mode (\S+): a pid: target`), cli: "--mode $1: a pid: target"},
	{err: remote.ErrModeNotServed, lib: "(mode full); for counts per stack, group what is read (package dedupe) or write it as debug=1 text",
		cli: "(--mode full); for counts per stack write the dump with --dedupe or --format debug1"},
	// A pid: target refused before anything was attached.
	{err: goproc.ErrRefused, lib: "is this process itself: give the id of another process",
		cli: "is stackdump itself: give the id of another process (stackdump ps lists the Go processes)"},
	{err: goproc.ErrRefused, lib: "on this machine (a process in a container",
		cli: "on this machine (stackdump ps lists the Go processes; a process in a container"},
	{err: goproc.ErrRefused, re: regexp.MustCompile(`and this process as uid (\d+) without CAP_SYS_PTRACE: the kernel lets a process trace only its own user's processes; read it as uid (\d+) or as root`),
		cli: "and stackdump as uid $1 without CAP_SYS_PTRACE: the kernel lets a process trace only its own user's processes; run stackdump as that user (sudo -u '#$2' stackdump …) or as root"},
	{err: goproc.ErrRefused, lib: "may trace it; read it as root", cli: "may trace it; run stackdump as root"},
	{err: goproc.ErrRefused, re: regexp.MustCompile(`may trace another; read process (\d+) as root`),
		cli: "may trace another; run stackdump as root (sudo stackdump capture pid:$1)"},
	{err: goproc.ErrRefused, re: regexp.MustCompile(`and process (\d+) \((.*)\) is not one of this process's; read it with CAP_SYS_PTRACE, or`),
		cli: "and process $1 ($2) is not one of stackdump's; run stackdump with CAP_SYS_PTRACE (sudo stackdump capture pid:$1), or"},
}

// targetWords are the library's words in remote.ParseTarget's errors that
// the command says its own way (parseTarget).
var targetWords = []struct{ lib, cli string }{
	{"want pid:PID with a positive process id", "want pid:PID with a positive process id (stackdump ps lists the Go processes)"},
	{"(take it with ModeTrace)", "(take it with --mode trace)"},
	{"(take it with ModeLeak, ", "(take it with --mode leak, "},
}

// parseTarget is remote.ParseTarget, its error in the command's words.
func parseTarget(s, endpoint string) (remote.Target, error) {
	t, err := remote.ParseTarget(s, endpoint)
	if err != nil {
		msg := err.Error()
		for _, w := range targetWords {
			msg = strings.Replace(msg, w.lib, w.cli, 1)
		}
		if msg != err.Error() {
			err = &wordedError{msg: msg, err: err}
		}
	}
	return t, err
}

// fallbackWords are the library's words in remote.Document.Fallback that
// the command says its own way (cliFallback).
var fallbackWords = []struct{ lib, cli string }{
	{"Options.JVMJSON: ", "--jvm-json: "},
}

// cliFallback returns why, a capture's Fallback, in the command's words.
func cliFallback(why string) string {
	for _, w := range fallbackWords {
		why = strings.Replace(why, w.lib, w.cli, 1)
	}
	return why
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
		switch {
		case !errors.Is(err, w.err):
		case w.re != nil:
			msg = w.re.ReplaceAllString(msg, w.cli)
		default:
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
