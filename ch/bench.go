// Package ch is CH-benCHmark: TPC-C's transactions, as the registered tpcc
// workload runs them, with analytical streams running the 22 CH queries on
// the same tables. It is built on tpcc through the workload registry
// (Spec.Base), not by importing it: its dataset is TPC-C's plus supplier,
// nation, region and the revenue1 view, and its runs are TPC-C's with the
// streams as extra threads (Hooks.Extra).
package ch

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

const base = "tpcc"

func init() {
	workload.Register(workload.Spec{
		Name:    "ch",
		Base:    base,
		Use:     "<prepare|run|check|cleanup> [options]",
		Example: "oltpbench ch run --warehouses=10 --threads=16 --ap-threads=2",
		Short:   "CH-benCHmark: TPC-C with analytical streams running the 22 CH queries on the same tables",
		Long: "CH-benCHmark: the TPC-C dataset (as tpcc prepares it) plus supplier, nation, region and the revenue1 view; " +
			"runs are TPC-C's terminals (--threads, every tpcc option) with --ap-threads analytical streams running the queries in a loop.",
		DefaultDB: "ch",
		Describe: func(name string) (workload.Description, bool) {
			return workload.Description{Title: "CH-benCHmark", Rank: 98, Compact: true, Details: true}, name == "ch"
		},
		New: func() workload.Workload { return &chWorkload{} },
	})
}

type chWorkload struct {
	tp        workload.Workload // the tpcc workload, from the registry
	ro        *workload.RunOptions
	apThreads int
	queryList string
	apHost    string
	apPort    int
	apVars    []string
	timeout   time.Duration
	explain   bool
	tiflash   int
	queries   []Query
}

func (w *chWorkload) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	b, ok := workload.Lookup(base)
	if !ok {
		panic("ch: the " + base + " workload is not registered in this binary")
	}
	w.tp, w.ro = b.New(), ro
	w.tp.Flags(fs, ro)
	fs.IntVar(&w.apThreads, "ap-threads", 1, "run: analytical streams, each running the queries in a loop (0: TPC-C only)")
	fs.StringVar(&w.queryList, "queries", "all", "run: the analytical queries, e.g. q1,q6,q14 (all: q1 to q22)")
	fs.StringVar(&w.apHost, "ap-host", "", "run: host of the analytical streams (default: --mysql-host), e.g. a TiDB node for TiFlash")
	fs.IntVar(&w.apPort, "ap-port", 0, "run: port of the analytical streams (default: --mysql-port)")
	fs.StringSliceVar(&w.apVars, "ap-session-vars", nil, "run: session variables of the analytical streams, e.g. tidb_isolation_read_engines=tiflash")
	workload.SecondsVar(fs, &w.timeout, "ap-query-timeout", 0, "run: a query running longer is killed and counted as an error (0: none; seconds or a duration)")
	fs.BoolVar(&w.explain, "explain-analyze", false, "run: print each query's plan once per run, from its first execution (EXPLAIN ANALYZE; MariaDB's ANALYZE)")
	fs.IntVar(&w.tiflash, "tiflash-replica", 0, "prepare: TiDB only: set N TiFlash replicas of every table and wait until they are available")
}

// ApplyOptions passes a props file to tpcc (BenchmarkSQL's settings).
func (w *chWorkload) ApplyOptions(command string, fs *pflag.FlagSet, warn io.Writer) error {
	if of, ok := w.tp.(workload.OptionFile); ok {
		return of.ApplyOptions(command, fs, warn)
	}
	return nil
}

func (w *chWorkload) Setup(s *workload.Setup) error {
	if err := w.tp.Setup(s); err != nil {
		return err
	}
	if w.tiflash < 0 {
		return fmt.Errorf("invalid --tiflash-replica=%d: a replica count, or 0 for none", w.tiflash)
	}
	if s.Command != "run" {
		return nil
	}
	if w.apThreads < 0 {
		return fmt.Errorf("invalid --ap-threads=%d: a number of streams, or 0 for TPC-C only", w.apThreads)
	}
	if strings.TrimSpace(w.queryList) == "" {
		if w.apThreads > 0 {
			return fmt.Errorf("--ap-threads=%d with no queries: give --queries=q1,...,q22 (or all), or --ap-threads=0", w.apThreads)
		}
		return nil
	}
	var err error
	w.queries, err = SelectQueries(w.queryList)
	if err != nil {
		return err
	}
	if (w.apHost != "" || w.apPort != 0) && w.apThreads == 0 {
		return fmt.Errorf("--ap-host and --ap-port are for the analytical streams: add --ap-threads")
	}
	for _, v := range w.apVars {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("invalid --ap-session-vars entry %q: use name=value", v)
		}
	}
	return nil
}

func (w *chWorkload) Name() string { return "ch" }

func (w *chWorkload) Dataset() dataset.Dataset {
	ds := w.tp.Dataset()
	ds.Workload, ds.Extends = "ch", ds.Workload
	ds.Views = []dataset.View{{Name: "revenue1", DDL: renamed(revenue1, ds.Names)}}
	ds.Tables = append(ds.Tables, Tables()...)
	return ds
}

func (w *chWorkload) Sizes() map[string]string { return w.tp.Sizes() }

// Metric is TPC-C's (tpmC); QphH is a figure of the run.
func (w *chWorkload) Metric() result.Metric { return w.tp.Metric() }

// extra are the analytical streams, on --ap-host/--ap-port with
// --ap-session-vars when given.
func (w *chWorkload) extra(co conn.Options) (workload.ExtraThreads, error) {
	ap := co
	ap.SessionVars = append(append([]string(nil), co.SessionVars...), w.apVars...)
	if w.apHost != "" {
		ap.Hosts, ap.Sockets = []string{w.apHost}, nil
	}
	if w.apPort != 0 {
		ap.Ports, ap.Sockets = []int{w.apPort}, nil
	}
	return workload.ExtraThreads{N: w.apThreads, Conn: ap, Own: w.apHost != "" || w.apPort != 0 || len(w.apVars) > 0}, nil
}

func (w *chWorkload) Hooks() workload.Hooks {
	h := w.tp.Hooks()
	h.Extra = w.extra
	tpValidate, tpCheck := h.Validate, h.Check
	h.Validate = func(ctx context.Context, db *sql.DB, schema string) error {
		if err := validate(ctx, db, schema, w.Dataset()); err != nil {
			return err
		}
		if tpValidate == nil {
			return nil
		}
		return tpValidate(ctx, db, schema)
	}
	h.Check = func(ctx context.Context, db *sql.DB, threads int, out io.Writer) error {
		var err error
		if tpCheck != nil {
			err = tpCheck(ctx, db, threads, out)
		}
		if cerr := check(ctx, db, out); err == nil {
			err = cerr
		}
		return err
	}
	if w.tiflash > 0 {
		h.AfterLoad = func(ctx context.Context, db *sql.DB, out io.Writer) error {
			var names []string
			for _, t := range w.Dataset().Tables {
				names = append(names, t.Name)
			}
			return conn.SetTiFlashReplicas(ctx, db, names, w.tiflash, out)
		}
	}
	return h
}

// validate finds the tables CH adds, naming the command that adds them.
func validate(ctx context.Context, db *sql.DB, schema string, ds dataset.Dataset) error {
	var names []string
	for _, t := range ds.Tables {
		names = append(names, t.Name)
	}
	for _, v := range ds.Views {
		names = append(names, v.Name)
	}
	missing, err := conn.MissingTables(ctx, db, schema, names)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s missing in database %q: run oltpbench ch prepare with the same options (it adds CH's tables to a tpcc dataset of the same --warehouses and --seed)",
			strings.Join(missing, ", "), schema)
	}
	return nil
}

// check counts the added tables' rows: the CH spec's sizes.
func check(ctx context.Context, db *sql.DB, out io.Writer) error {
	failed := 0
	for _, t := range Tables() {
		start := time.Now()
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t.Name).Scan(&n); err != nil {
			return err
		}
		v := "PASS"
		if n != t.Rows {
			v, failed = "FAIL", failed+1
		}
		fmt.Fprintf(out, "ch %-66s %s  %.2fs\n", fmt.Sprintf("%s holds %d rows (%d)", t.Name, t.Rows, n), v, time.Since(start).Seconds())
	}
	if failed > 0 {
		return fmt.Errorf("%d CH table(s) do not hold the spec's rows: run oltpbench ch cleanup, then prepare", failed)
	}
	return nil
}
