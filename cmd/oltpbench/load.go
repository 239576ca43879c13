package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// csvCommand writes a workload's dataset as CSV files, no database needed:
// one subcommand per registered workload.
func csvCommand(args []string, inv workload.Invocation) *cobra.Command {
	cmd := &cobra.Command{Use: "csv", Short: "write a dataset as CSV files for TiDB Lightning / IMPORT INTO (no database needed)"}
	for _, spec := range workload.All() {
		var p *pipeline.Pipeline
		sub := &cobra.Command{
			Use:   spec.Name + " [args] --dir D [options]",
			Short: spec.Name + " tables as CSV files",
			Long: spec.Name + " tables as CSV files, no database needed. The options below shape the files; the run and\n" +
				"connection options of `oltpbench " + spec.Name + "` are accepted too, so that a prepare command line works\n" +
				"with csv in front, and have no effect here.",
			RunE: func(cmd *cobra.Command, args []string) error {
				p.SetOutput(cmd.OutOrStdout(), cmd.ErrOrStderr())
				ctx, stop := interruptible()
				defer stop()
				return p.CSV(ctx, args)
			},
		}
		p = pipeline.New(spec, sub.Flags(), argsAfter(args, spec.Name), inv)
		showOnly(sub.Flags(), csvDataFlags, spec.CSVFlags...)
		cmd.AddCommand(sub)
	}
	return cmd
}

// importCommand loads a folder of CSV files made by csv or --load-mode=csv.
func importCommand() *cobra.Command {
	var f struct {
		threads int
		conn    conn.Flags
		load    loader.Flags
		metrics metrics.Flags
	}
	cmd := &cobra.Command{
		Use:   "import --dir D [connection options]",
		Short: "load a folder of CSV files: IMPORT INTO on TiDB, LOAD DATA LOCAL elsewhere; resumable",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptible()
			defer stop()
			out := cmd.OutOrStdout()
			if f.load.Dir == "" {
				return fmt.Errorf("import needs --dir: the folder written by oltpbench csv")
			}
			if err := workload.CheckThreads(f.threads); err != nil {
				return err
			}
			co, err := f.conn.Options(cmd.Flags())
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("mysql-db") {
				co.DB = "" // the manifest names it
			}
			lo, err := f.load.Options(f.threads)
			if err != nil {
				return err
			}
			exp, err := f.metrics.Open()
			if err != nil {
				return err
			}
			defer exp.Close()
			lo.Log, lo.Quiet, lo.Watch = out, true, exp.WatchLoad
			return pipeline.Watched(ctx, co, "import", true, func(ctx context.Context) error {
				rep, err := loader.ImportDir(ctx, co, f.load.Dir, lo)
				if err != nil {
					return err
				}
				rep.Summary(out)
				return nil
			})
		},
	}
	fs := cmd.Flags()
	fs.SetNormalizeFunc(options.Normalize(nil))
	f.conn.Register(fs, "sbtest", "")
	f.load.Register(fs, false)
	fs.IntVar(&f.threads, "threads", 4, "parallel loads")
	f.metrics.Register(fs)
	return cmd
}

// csvDataFlags are the options every csv command shows: where the files go
// and how they are made.
var csvDataFlags = []string{"help", "config-file", "mysql-db", "threads", "seed", "dir", "csv-file-size", "resume", "progress"}

// showOnly hides from --help every option but those named: csv makes files,
// so the run and connection options are noise there. They are still
// accepted, so a prepare command line works with csv in front.
func showOnly(fs *pflag.FlagSet, common []string, names ...string) {
	keep := map[string]bool{}
	for _, n := range append(common, names...) {
		keep[n] = true
	}
	fs.VisitAll(func(fl *pflag.Flag) { fl.Hidden = fl.Hidden || !keep[fl.Name] })
}
