package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print stackdump's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, goVersion := "(devel)", ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				goVersion = bi.GoVersion
				if bi.Main.Version != "" {
					v = bi.Main.Version
				}
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						v += " " + s.Value[:min(12, len(s.Value))]
					}
				}
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "stackdump %s %s\n", v, goVersion)
			return err
		},
	}
}
