package main

import (
	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "stackdump",
		Short: "Capture, convert, group and analyse goroutine and thread dumps",
		Long: `stackdump reads goroutine dumps (runtime.Stack, /debug/pprof/goroutine
debug=0/1/2, panics, fatal errors, race reports) and JVM thread dumps, and
writes them as text or JSON, grouped or not, compressed or not.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newConvertCommand(),
		newCaptureCommand(),
		newWatchCommand(),
		newAnalyzeCommand(),
		newQueryCommand(),
		newDemoCommand(),
		newDiffCommand(),
		newTimelineCommand(),
		newReportCommand(),
		newPsCommand(),
		newVersionCommand(),
	)
	return root
}
