// Command stackdump captures, converts, groups and analyses goroutine and
// thread dumps. Run `stackdump --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
)

func main() {
	ctx, intr := handleInterrupts(context.Background())
	err := newRootCommand().ExecuteContext(ctx)
	if code := intr.stop(); code != 0 {
		os.Exit(code) // interrupted: the command wound down, its temporary files are gone
	}
	if err == nil {
		return
	}
	var ex exitError
	if errors.As(err, &ex) {
		if ex.err != nil {
			fmt.Fprintln(os.Stderr, "stackdump:", ex.err)
		}
		os.Exit(ex.code)
	}
	fmt.Fprintln(os.Stderr, "stackdump:", err)
	os.Exit(1)
}

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error // printed when not nil
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
