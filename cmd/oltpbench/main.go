// Command oltpbench runs OLTP benchmarks (a drop-in sysbench OLTP suite,
// TPC-C) against MySQL-protocol databases, and loads their datasets fast.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "0.1.0-dev"

func main() {
	root := &cobra.Command{
		Use:           "oltpbench",
		Short:         "OLTP benchmarks for MySQL-protocol databases (TiDB, MySQL, MariaDB)",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.AddCommand(sysbenchCommand())
	if err := root.Execute(); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand") {
			msg = strings.Replace(msg, "unknown flag", "unknown option", 1) + " (see oltpbench sysbench --help)"
		}
		fmt.Fprintln(os.Stderr, "oltpbench: "+msg)
		os.Exit(1)
	}
}
