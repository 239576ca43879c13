// Command oltpbench runs OLTP benchmarks (a drop-in sysbench OLTP suite,
// TPC-C) against MySQL-protocol databases, and loads their datasets fast.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
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
	var cpuProfile, memProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpu-profile", "", "write a CPU profile (pprof) here")
	root.PersistentFlags().MarkHidden("cpu-profile")
	root.PersistentFlags().StringVar(&memProfile, "mem-profile", "", "write an allocation profile (pprof) here at exit")
	root.PersistentFlags().MarkHidden("mem-profile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		return pprof.StartCPUProfile(f)
	}
	defer pprof.StopCPUProfile()
	root.PersistentPostRunE = func(cmd *cobra.Command, args []string) error {
		if memProfile == "" {
			return nil
		}
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}
	root.AddCommand(sysbenchCommand(), tpccCommand(), csvCommand(), importCommand(), reportCommand())
	if err := root.Execute(); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand") {
			msg = strings.Replace(msg, "unknown flag", "unknown option", 1) + " (see --help)"
		}
		fmt.Fprintln(os.Stderr, "oltpbench: "+msg)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
