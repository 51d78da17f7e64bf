package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// libraryPath is the library's module, a dependency of the command once
// the command is a module of its own.
const libraryPath = "github.com/stackdump/stackdump"

// commit and dirty are set by `make build` (-ldflags -X) to git's HEAD and
// whether the tree had uncommitted changes ("true"), for the builds go
// build does not stamp: in a git worktree (its .git is a file) or with
// GOFLAGS=-buildvcs=false. What go build stamped wins.
var commit, dirty string

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print stackdump's version (as --version does)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "stackdump %s\n", version())
			return err
		},
	}
}

// version is what `stackdump --version` prints after "stackdump ": the
// module version, the commit it was built from and whether the tree had
// uncommitted changes (go build's vcs.revision and vcs.modified, or make
// build's), the Go release and the platform:
//
//	v0.0.0-20261207203541-c23fad590e13, commit c23fad590e13 (2026-12-07T20:35:41Z), go1.26.8 linux/amd64
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return versionOf(bi, commit, dirty == "true", runtime.GOOS+"/"+runtime.GOARCH)
}

// versionOf is version for the build information bi of a binary built
// for platform; rev and modified are make build's commit, used when bi
// has none.
func versionOf(bi *debug.BuildInfo, rev string, modified bool, platform string) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	parts := []string{v}
	if rev == "" {
		parts = append(parts, "commit unknown (built without VCS stamping: go run, go test, -buildvcs=false or a git worktree; make build records it)")
	} else {
		c := "commit " + rev[:min(12, len(rev))]
		if modified {
			c += " with uncommitted changes"
		}
		if at != "" {
			c += " (" + at + ")"
		}
		parts = append(parts, c)
	}
	for _, d := range bi.Deps {
		if d.Path == libraryPath && d.Version != "" && d.Version != "(devel)" && d.Replace == nil {
			parts = append(parts, "library "+d.Version)
		}
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return strings.Join(parts, ", ") + ", " + goVersion + " " + platform
}
