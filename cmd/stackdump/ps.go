package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// psProcess is one Go process of `stackdump ps`.
type psProcess struct {
	PID     int    `json:"pid"`
	PPID    int    `json:"ppid"`
	Command string `json:"command"`
	Exe     string `json:"exe,omitempty"`
	// GoVersion and Module are the executable's build information.
	GoVersion     string `json:"go_version"`
	Module        string `json:"module,omitempty"`
	ModuleVersion string `json:"module_version,omitempty"`
	// Goroutines is counted from its memory without stopping it; -1
	// when it could not be (CountError says why).
	Goroutines int    `json:"goroutines"`
	CountError string `json:"count_error,omitempty"`
	// Listening are its listening TCP sockets; Serves what stackdump can
	// capture it through besides pid:.
	Listening []string   `json:"listening,omitempty"`
	Serves    []psServes `json:"serves,omitempty"`
	// OtherNetNS: its sockets are in another network namespace (a
	// container), where stackdump cannot reach them to look.
	OtherNetNS bool `json:"other_netns,omitempty"`
}

// psServes is one way to capture a process: "pprof" (net/http/pprof),
// "endpoint" (stackdump's), "gops" (a gops agent), with the target to give
// capture.
type psServes struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
}

type psOptions struct {
	json  bool
	probe bool
}

func newPsCommand() *cobra.Command {
	var o psOptions
	cmd := &cobra.Command{
		Use:   "ps",
		Short: "List the Go processes on this machine, to capture by pid:PID",
		Long: `ps lists the Go processes on this machine that stackdump can read, as gops
lists them: pid, parent, goroutines, the Go release and main module that built
it (its build information), its command, and what else serves its goroutines:
net/http/pprof, stackdump's endpoint or a gops agent, with the target to give
capture.

The goroutines are counted from each process's memory without stopping it
(a few bytes per goroutine, read with process_vm_readv). Processes of other
users are listed only with CAP_SYS_PTRACE (root). The endpoints are found
from the process's listening sockets (/proc/net/tcp matched to its file
descriptors) and confirmed with one HEAD request each (--probe=false: none;
only programs that link net/http/pprof or stackdump's endpoint are asked);
a gops agent from the port file it writes in its config directory.`,
		Example: `  stackdump ps
  stackdump ps --json | jq '.[] | select(.goroutines > 10000)'
  stackdump capture pid:$(pgrep -n myservice) -o goroutines.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			procs, err := listGoProcesses(cmd.Context(), o.probe)
			if err != nil {
				return err
			}
			if o.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if procs == nil {
					procs = []psProcess{}
				}
				return enc.Encode(procs)
			}
			writePs(cmd.OutOrStdout(), procs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON array")
	cmd.Flags().BoolVar(&o.probe, "probe", true, "confirm net/http/pprof and stackdump's endpoint on the listening ports with one HEAD request each")
	return cmd
}

// writePs writes the table of processes.
func writePs(w io.Writer, procs []psProcess) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tPPID\tGOROUTINES\tGO\tMODULE\tCOMMAND\tSERVES")
	for _, p := range procs {
		n := strconv.Itoa(p.Goroutines)
		if p.Goroutines < 0 {
			n = "?"
		}
		mod := p.Module
		if p.ModuleVersion != "" && p.ModuleVersion != "(devel)" {
			mod += "@" + p.ModuleVersion
		}
		var serves []string
		for _, s := range p.Serves {
			serves = append(serves, s.Kind+" "+s.Target)
		}
		if len(serves) == 0 && len(p.Listening) > 0 {
			serves = append(serves, "listens "+strings.Join(p.Listening, " "))
		}
		cmd := p.Command
		if len(cmd) > 60 {
			cmd = cmd[:57] + "..."
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.PID, p.PPID, n, p.GoVersion, mod, cmd, strings.Join(serves, ", "))
	}
	tw.Flush()
	if len(procs) == 0 {
		fmt.Fprintln(w, "no Go process found (processes of other users are listed only with CAP_SYS_PTRACE, as root)")
	}
}
