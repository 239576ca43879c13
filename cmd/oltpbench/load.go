package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
	"github.com/oltpbench/oltpbench/sysbench"
)

// csvCommand writes a workload's dataset as CSV files, no database needed.
func csvCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "csv", Short: "write a dataset as CSV files for TiDB Lightning / IMPORT INTO (no database needed)"}
	f := &sbFlags{}
	sb := &cobra.Command{
		Use:   "sysbench [test] --dir D [options]",
		Short: "sysbench tables as CSV files",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			name := "oltp_common"
			if len(args) == 1 {
				name = args[0]
			}
			if f.configFile != "" {
				if err := options.ApplyConfigFile(cmd.Flags(), f.configFile); err != nil {
					return err
				}
			}
			t, err := sysbench.Lookup(name, "prepare")
			if err != nil {
				return err
			}
			if err := f.firstThreads(); err != nil {
				return err
			}
			f.test.Threads = f.threads
			if err := t.Validate(&f.test, "prepare"); err != nil {
				return err
			}
			dist, err := workload.NewDist(f.randType, f.randSpecIter, f.randSpecPct, f.randSpecRes, f.randParetoH, f.randZipfExp)
			if err != nil {
				return err
			}
			lo, err := f.loaderOptions()
			if err != nil {
				return err
			}
			lo.Log = os.Stdout
			m, err := loader.WriteCSV(ctx, f.db, sbDataset(t, f, dist), lo)
			if err != nil {
				return err
			}
			return printManifest(os.Stdout, m, lo.Dir)
		},
	}
	f.register(sb.Flags())
	showOnly(sb.Flags(), csvDataFlags, "tables", "table-size", "auto-inc", "secondary", "create-secondary",
		"create-table-options", "mysql-storage-engine", "rand-type", "rand-spec-iter", "rand-spec-pct", "rand-spec-res",
		"rand-pareto-h", "rand-zipfian-exp")
	tf := &tpccFlags{}
	tp := &cobra.Command{
		Use:   "tpcc --dir D --warehouses N [options]",
		Short: "TPC-C tables as CSV files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			tf.loadMode = "csv"
			return runTPCC(ctx, cmd.Flags(), tf, "prepare", os.Stdout)
		},
	}
	registerTPCC(tp.Flags(), tf)
	showOnly(tp.Flags(), csvDataFlags, "warehouses", "partitions")
	cmd.AddCommand(sb, tp)
	return cmd
}

// importCommand loads a folder of CSV files made by csv or --load-mode=csv.
func importCommand() *cobra.Command {
	f := &sbFlags{}
	cmd := &cobra.Command{
		Use:   "import --dir D [connection options]",
		Short: "load a folder of CSV files: IMPORT INTO on TiDB, LOAD DATA LOCAL elsewhere; resumable",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if f.dir == "" {
				return fmt.Errorf("import needs --dir: the folder written by oltpbench csv")
			}
			if f.threads < 1 {
				return fmt.Errorf("invalid --threads=%d: must be at least 1", f.threads)
			}
			co, err := f.connOptions(cmd.Flags())
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("mysql-db") {
				co.DB = "" // the manifest names it
			}
			lo, err := f.loaderOptions()
			if err != nil {
				return err
			}
			lo.Log = os.Stdout
			lo.Quiet = true
			rep, err := loader.ImportDir(ctx, co, f.dir, lo)
			if err != nil {
				return err
			}
			rep.Summary(os.Stdout)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SetNormalizeFunc(options.Normalize(nil))
	f.registerConn(fs)
	f.registerLoad(fs)
	fs.IntVar(&f.threads, "threads", 4, "parallel loads")
	hide(fs, "load-mode", "seed", "csv-file-size")
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

// hide hides the named options from --help (the inverse of showOnly).
func hide(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if fl := fs.Lookup(n); fl != nil {
			fl.Hidden = true
		}
	}
}
