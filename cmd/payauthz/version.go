package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	httpapi "github.com/payauthz/payauthz/http"
)

// commit is the VCS revision the binary was built from; scripts set it with
// -ldflags "-X main.commit=…" where the build has no VCS stamp (-buildvcs=false).
var commit string

// buildInfo describes this binary: the module version, the commit and the
// Go version, read from the build information Go embeds.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}

// readBuildInfo returns the binary's build information; unknown parts are
// "unknown" (a build without module or VCS stamps).
func readBuildInfo() buildInfo {
	bi := buildInfo{Version: "unknown", Commit: commit, GoVersion: "unknown"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if bi.Commit == "" {
			bi.Commit = "unknown"
		}
		return bi
	}
	bi.GoVersion = info.GoVersion
	if v := info.Main.Version; v != "" {
		bi.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if bi.Commit == "" {
				bi.Commit = s.Value
			}
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	if bi.Commit == "" {
		bi.Commit = "unknown"
	}
	return bi
}

func (b buildInfo) String() string {
	s := fmt.Sprintf("%s (commit %s", b.Version, b.Commit)
	if b.Modified {
		s += ", modified"
	}
	return s + ", " + b.GoVersion + ")"
}

func versionCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the module version, the commit and the Go version of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi := readBuildInfo()
			switch format {
			case "text":
				fmt.Fprintln(cmd.OutOrStdout(), "payauthz", bi)
				return nil
			case "json":
				return writeJSON(cmd.OutOrStdout(), bi)
			}
			return usageErrorf("--format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

// http is b as the HTTP server's payauthz_build_info labels.
func (b buildInfo) http() httpapi.BuildInfo {
	return httpapi.BuildInfo{Version: b.Version, Commit: b.Commit, GoVersion: b.GoVersion}
}
