package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/stack"
)

// addExeFlag adds --exe: the executable of a core file given as input.
func addExeFlag(cmd *cobra.Command) {
	cmd.Flags().String("exe", "", "the executable an ELF core file given as input was written from (default: the path the core names, as the process mapped it)")
}

// readCore reads the goroutines of an ELF core file (gcore's, or the
// kernel's after GOTRACEBACK=crash) from f, when f is one, and returns them
// as stackdump JSON to be read as any dump is: every command that reads
// dumps reads cores too. ok is false when f is no core. The executable is
// --exe, or the file the core names (NT_FILE).
func readCore(cmd *cobra.Command, f *os.File, name string) (r io.Reader, ok bool, err error) {
	head := make([]byte, 64)
	n, _ := f.ReadAt(head, 0)
	if !goproc.IsCore(head[:n]) {
		return nil, false, nil
	}
	c, err := goproc.OpenCore(f)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	exePath, _ := cmd.Flags().GetString("exe")
	given := exePath != ""
	if !given {
		exePath = c.Executable
	}
	if exePath == "" {
		return nil, true, fmt.Errorf("%s: the core does not name its executable (no NT_FILE note): give it with --exe", name)
	}
	exe, err := os.Open(exePath)
	if err != nil {
		if !given {
			return nil, true, fmt.Errorf("%s: the core's executable %s: %w; give the very binary the process ran with --exe", name, exePath, err)
		}
		return nil, true, fmt.Errorf("--exe: %w", err)
	}
	defer exe.Close()
	if err := c.UseExecutable(exe); err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	bin, err := goproc.OpenBinary(exe)
	if err != nil {
		return nil, true, fmt.Errorf("%s: executable %s: %w", name, exePath, err)
	}
	opts := c.Options(bin)
	opts.Target = fmt.Sprintf("core of pid %d (%s)", c.PID, name)
	d, _, err := goproc.Read(cmd.Context(), bin, c, opts)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	var b bytes.Buffer
	enc, err := formats.NewEncoder(&b, output.JSON)
	if err != nil {
		return nil, true, err
	}
	if err := stack.WriteDump(enc, d); err != nil {
		return nil, true, err
	}
	return &b, true, nil
}
