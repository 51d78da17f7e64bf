package main

import (
	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "stackdump",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("stackdump {{.Version}}\n")
	setHelp(root, rootHelp)
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
	speakCLIWords(root)
	return root
}
