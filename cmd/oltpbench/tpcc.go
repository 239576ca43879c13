package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/runner"
	"github.com/oltpbench/oltpbench/loader"
	"github.com/oltpbench/oltpbench/tpcc"
)

type tpccFlags struct {
	sbFlags
	warehouses int64
	dur        time.Duration
	ramp       time.Duration
	interval   time.Duration
	partitions int
	wait       bool
	weights    string
	checks     string
	runSeed    int64
}

func tpccCommand() *cobra.Command {
	f := &tpccFlags{}
	cmd := &cobra.Command{
		Use:   "tpcc <prepare|run|check|cleanup> [options]",
		Short: "TPC-C: spec-faithful load, run, consistency checks",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return errors.New("expected one command: prepare, run, check or cleanup")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTPCC(ctx, cmd.Flags(), f, args[0], os.Stdout)
		},
	}
	registerTPCC(cmd.Flags(), f)
	return cmd
}

// registerTPCC adds the tpcc command's options.
func registerTPCC(fs *pflag.FlagSet, f *tpccFlags) {
	fs.SetNormalizeFunc(options.Normalize(map[string]string{"db": "mysql-db", "T": "threads"}))
	f.registerConn(fs)
	f.registerNetIO(fs)
	fs.Lookup("mysql-db").DefValue = "tpcc"
	f.db = "tpcc"
	f.registerLoad(fs)
	fs.Int64Var(&f.warehouses, "warehouses", 10, "number of warehouses")
	fs.StringVar(&f.lv.threadsSpec, "threads", "16", "threads (terminals with --wait; default 10 per warehouse there); a list runs a sweep; a range with --p95-slo searches")
	f.lv.register(fs.StringVar, fs.DurationVar, fs.IntVar)
	fs.DurationVar(&f.dur, "time", 60*time.Second, "measured run time")
	fs.DurationVar(&f.ramp, "ramp", 0, "warm-up before measuring, excluded from results")
	fs.DurationVar(&f.interval, "report-interval", 10*time.Second, "interval of the per-type lines (0: none)")
	fs.IntVar(&f.partitions, "partitions", 0, "hash-partition the warehouse-keyed tables by warehouse into N partitions")
	options.AddBool(fs, &f.wait, "wait", false, "keying and think times, 10 terminals per warehouse (the spec's mode)")
	fs.StringVar(&f.weights, "weights", "45,43,4,4,4", "deck of new_order,payment,order_status,delivery,stock_level")
	fs.StringVar(&f.checks, "checks", "", "check: conditions to run, e.g. 1-4,12 or all (default: all but 11)")
	fs.Int64Var(&f.runSeed, "rand-seed", 0, "seed of the run's inputs; 0 uses the current time")
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result here")
	fs.StringVar(&f.output, "output", "text", "text, or json (the JSON result on stdout after the report)")
	fs.StringVar(&f.configFile, "config-file", "", "file of key=value options (the command line wins)")
}

func runTPCC(ctx context.Context, fs *pflag.FlagSet, f *tpccFlags, command string, out io.Writer) error {
	if f.configFile != "" {
		if err := options.ApplyConfigFile(fs, f.configFile); err != nil {
			return err
		}
	}
	if f.warehouses < 1 {
		return fmt.Errorf("invalid --warehouses=%d: at least 1", f.warehouses)
	}
	if err := f.firstThreads(); err != nil {
		return err
	}
	if f.wait && !fs.Changed("threads") {
		f.threads = int(10 * f.warehouses)
		f.lv.threadsSpec = strconv.Itoa(f.threads)
	}
	if f.threads < 1 {
		return fmt.Errorf("invalid --threads=%d: must be at least 1", f.threads)
	}
	co, err := f.connOptions(fs)
	if err != nil {
		return err
	}
	switch command {
	case "prepare":
		return tpccPrepare(ctx, f, co, out)
	case "run":
		return f.lv.runLevels(ctx, out, "tpcc", f.resultFile, func(th int, file string) (*result.Result, error) {
			f.threads, f.resultFile = th, file
			return tpccRun(ctx, fs, f, co, out)
		})
	case "check":
		return tpccCheck(ctx, f, co, out)
	case "cleanup":
		pool, err := conn.Open(co, 1)
		if err != nil {
			return err
		}
		defer pool.Close()
		for _, t := range append(append([]string{}, tpcc.TableNames...), loader.RecordTables...) {
			if _, err := pool.DB(0).ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return fmt.Errorf("dropping %s: %v", t, err)
			}
		}
		fmt.Fprintf(out, "Dropped the TPC-C tables of %s\n", co.DB)
		return nil
	}
	return fmt.Errorf("unknown command %q: use prepare, run, check or cleanup", command)
}

func tpccDataset(f *tpccFlags) loader.Dataset {
	c := tpcc.Constants(f.seed)
	return loader.Dataset{Workload: "tpcc", Tables: tpcc.Tables(f.warehouses, f.seed, f.partitions), Meta: map[string]string{
		"warehouses": strconv.FormatInt(f.warehouses, 10), "partitions": strconv.Itoa(f.partitions),
		"c_last_load": strconv.FormatInt(c.Last, 10), "c_last_run": strconv.FormatInt(c.LastRun, 10),
		"c_id": strconv.FormatInt(c.ID, 10), "ol_i_id": strconv.FormatInt(c.Item, 10)}}
}

func tpccPrepare(ctx context.Context, f *tpccFlags, co conn.Options, out io.Writer) error {
	lo, err := f.loaderOptions()
	if err != nil {
		return err
	}
	lo.Log, lo.Quiet = out, true
	if f.loadMode == "csv" {
		m, err := loader.WriteCSV(ctx, co.DB, tpccDataset(f), lo)
		if err != nil {
			return err
		}
		return printManifest(out, m, lo.Dir)
	}
	rep, err := loader.Load(ctx, co, tpccDataset(f), lo)
	if err != nil {
		return err
	}
	rep.Summary(out)
	return nil
}

// tpccDatasetCheck finds the tables and the warehouse count of the data.
func tpccDatasetCheck(ctx context.Context, db *sql.DB, schema string, want int64) error {
	var missing []string
	for _, t := range tpcc.TableNames {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", schema, t).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table(s) %s missing in database %q: run oltpbench tpcc prepare first", strings.Join(missing, ", "), schema)
	}
	var have int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM warehouse").Scan(&have); err != nil {
		return err
	}
	if have != want {
		return fmt.Errorf("the dataset in %q has %d warehouses, not --warehouses=%d: use --warehouses=%d", schema, have, want, have)
	}
	return nil
}

func tpccRun(ctx context.Context, fs *pflag.FlagSet, f *tpccFlags, co conn.Options, out io.Writer) (*result.Result, error) {
	weights, err := tpcc.ParseWeights(f.weights)
	if err != nil {
		return nil, err
	}
	if f.dur <= 0 {
		return nil, fmt.Errorf("invalid --time=%s: a positive duration like 60s or 10m", f.dur)
	}
	restore, err := planRun(&co, f.netIO, f.threads)
	if err != nil {
		return nil, err
	}
	defer restore()
	pool, err := conn.Open(co, f.threads)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return nil, err
	}
	if err := tpccDatasetCheck(ctx, pool.DB(0), co.DB, f.warehouses); err != nil {
		return nil, err
	}
	rec, _ := loader.ReadDataset(ctx, pool.DB(0))
	seed := f.seed
	if s, ok := rec["seed"]; ok {
		// The run's C_LAST constant must differ from the load's by the delta rule.
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	runSeed := uint64(f.runSeed)
	if runSeed == 0 {
		runSeed = uint64(time.Now().UnixNano())
	}
	tr := tpcc.NewRun(tpcc.Config{Warehouses: f.warehouses, Threads: f.threads, Seed: seed, RunSeed: runSeed, Weights: weights, Wait: f.wait})
	reg := hist.NewRegistry(tpcc.TxNames, 8)
	rep := &tpcc.Report{W: out, Run: tr}
	res := &result.Result{Format: result.Format, Tool: "oltpbench " + version, Workload: "tpcc", Options: flagValues(fs), Threads: f.threads,
		Dataset: map[string]string{"warehouses": strconv.FormatInt(f.warehouses, 10)}}
	for k, v := range rec {
		res.Dataset[k] = v
	}
	res.Client, _ = os.Hostname()
	res.Server = serverInfo(ctx, pool)
	fmt.Fprintf(out, "oltpbench %s tpcc: %d warehouses, %d threads, %s measured after %s ramp, waits %v\n", version, f.warehouses, f.threads, f.dur, f.ramp, f.wait)
	ignore, _ := conn.ParseErrorSet([]string{"1213,1205,9007,8002,8022"})
	cfg := runner.Config{Threads: f.threads, Duration: f.dur, Warmup: f.ramp, ReportInterval: f.interval, Ignore: ignore, Seed: int64(runSeed)}
	fin, runErr := runner.Run(ctx, cfg, pool, tr.NewWorker, reg, tpccReporter{rep, res})
	if fin != nil {
		s := rep.Final(fin, f.warehouses)
		if err := res.SetFinal(fin, tpcc.TxNames); err != nil {
			return nil, err
		}
		res.Totals["tpmC_x100"] = int64(s.TpmC * 100)
		res.Totals["tpmTotal_x100"] = int64(s.TpmTotal * 100)
		if f.resultFile != "" {
			if err := res.Write(f.resultFile); err != nil {
				return nil, err
			}
		}
		if f.output == "json" {
			res.Write("-")
		}
	}
	if runErr != nil {
		return nil, errors.New(redact(runErr.Error(), co.Password))
	}
	return res, nil
}

type tpccReporter struct {
	*tpcc.Report
	res *result.Result
}

func (r tpccReporter) Interval(iv runner.Interval) {
	r.Report.Interval(iv)
	r.res.AddInterval(iv, tpcc.TxNames)
}

func tpccCheck(ctx context.Context, f *tpccFlags, co conn.Options, out io.Writer) error {
	which, err := tpcc.ParseChecks(f.checks)
	if err != nil {
		return err
	}
	pool, err := conn.Open(co, f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return err
	}
	if err := tpccDatasetCheck(ctx, pool.DB(0), co.DB, f.warehouses); err != nil {
		return err
	}
	results, err := tpcc.Check(ctx, pool.DB(0), f.warehouses, which, f.threads)
	failed := 0
	for _, r := range results {
		v := "PASS"
		if !r.Pass {
			v, failed = "FAIL", failed+1
		}
		fmt.Fprintf(out, "condition %2d %-58s %s  %.2fs\n", r.N, r.Desc, v, r.Elapsed.Seconds())
		for _, l := range r.Failures {
			fmt.Fprintf(out, "    %s\n", l)
		}
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d consistency condition(s) failed", failed)
	}
	return nil
}
