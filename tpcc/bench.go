package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// RetryErrors are retried with the same inputs: deadlock, lock wait timeout,
// and TiDB's write conflict, lock-not-found, schema-changed (8028) and
// other errors its developer guide lists as retryable.
var RetryErrors = []string{"1213", "1205", "9007", "8002", "8022", "8028"}

func init() {
	workload.Register(workload.Spec{
		Name:        "tpcc",
		Use:         "<prepare|run|check|search|cleanup> [options]",
		Example:     "oltpbench tpcc run --warehouses=10",
		Short:       "TPC-C: spec-faithful load, run, consistency checks",
		DefaultDB:   "tpcc",
		Threads:     "16",
		ThreadsHelp: "threads (terminals with --wait; default 10 per warehouse there); a list runs a sweep; a range with --p95-slo searches",
		Retry:       RetryErrors,
		RetryHelp: "errors on which a transaction is rolled back and redone with the same inputs, or all; the default is " +
			"deadlock (1213), lock wait timeout (1205), TiDB's write conflicts (9007, 8002, 8022) and schema change (8028)",
		CSVFlags: []string{"warehouses", "partitions", "partition-type", "clustered", "schema", "foreign-keys", "props"},
		// A run on more warehouses than the dataset has reads none.
		RangeKeys: []string{"warehouses"},
		Describe: func(name string) (workload.Description, bool) {
			return workload.Description{Title: "TPC-C", Rank: 99, Compact: true}, name == "tpcc"
		},
		New:     func() workload.Workload { return &workloadTPCC{} },
		Upgrade: upgradeFormat1,
		Peer: workload.Peer{
			Aliases: map[string]string{"db": "mysql-db", "T": "threads"}, // go-tpc's
			Outputs: []string{OutputBenchmarkSQL},
		},
		// tpcc search: the most warehouses served at the spec's mix and
		// (scaled) waits, as CockroachDB's tpccbench searches them.
		Capacity: &workload.Capacity{Unit: "warehouses", Size: "warehouses", Active: "active-warehouses", ThreadsPer: 10,
			Requires: "wait", RequiresWhy: "tpcc search probes at the spec's keying and think times: add --wait (or --wait=0.05, a twentieth of them, on a small server)",
			Verdict: capacityVerdict},
	})
}

// capacityVerdict judges a search's probe as a --wait run is judged
// (Summary.Passed): efficiency at least 85% and every 90th percentile
// response time within its limit, from the figures its result keeps.
func capacityVerdict(r *result.Result) (bool, string) {
	eff, ok := r.Figures["efficiency"]
	if !ok {
		return false, "no efficiency in its result (a run without --wait)"
	}
	var failed []string
	if eff < 85 {
		failed = append(failed, fmt.Sprintf("efficiency %.1f%% < 85%%", eff))
	}
	for t, name := range TxNames {
		if v, ok := r.Figures["p90_"+name]; ok && v > ResponseLimits[t] {
			failed = append(failed, fmt.Sprintf("p90 %s %.2f s > %.0f s", name, v, ResponseLimits[t]))
		}
	}
	if len(failed) > 0 {
		return false, strings.Join(failed, ", ")
	}
	return true, fmt.Sprintf("efficiency %.1f%%, p90 new_order %.3f s", eff, r.Figures["p90_new_order"])
}

// upgradeFormat1 reads a TPC-C result of the first file format, which kept
// tpmC (and tpmTotal) x100 among the totals, over the first operation.
func upgradeFormat1(r *result.Result) bool {
	if _, ok := r.Totals["tpmC_x100"]; !ok || len(r.Ops) == 0 {
		return false
	}
	first := r.Ops[0].Name
	r.Metric = result.Metric{Name: "tpmC", Unit: first + " transactions per minute", Ops: []string{first}, PerSeconds: 60, LatencyOp: first}
	if v, ok := r.Totals["tpmTotal_x100"]; ok {
		r.Figures = map[string]float64{"tpmTotal": float64(v) / 100}
	}
	delete(r.Totals, "tpmC_x100")
	delete(r.Totals, "tpmTotal_x100")
	return true
}

type workloadTPCC struct {
	ro         *workload.RunOptions
	seed       uint64
	warehouses int64
	partitions int
	partType   string
	clustered  bool
	active     int64   // --active-warehouses: the run's; 0: all
	wait       float64 // --wait: the keying and think times' multiplier (0: none)
	weights    string
	checks     string
	stockUpd   string
	schemaName string
	schema     *Schema
	fks        bool
	loadC      *NURandC // the dataset's constants, read from bmsql_config
	propsFile  string
	props      *props
	resultDir  string
	txns       int64
	limitTpm   float64
	home       string
	deck       [numTx]int
	which      []int
}

func (w *workloadTPCC) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	w.ro = ro
	fs.Int64Var(&w.warehouses, "warehouses", 10, "number of warehouses")
	ro.TimeVar(fs, "time", 60*time.Second, "measured run time: seconds, or a duration like 10m")
	ro.WarmupVar(fs, "ramp", 0, "warm-up before measuring, excluded from results (seconds or a duration)")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 10*time.Second, "interval of the per-type lines (0: none)")
	fs.IntVar(&w.partitions, "partitions", 0, "partition the warehouse-keyed tables by warehouse into N partitions (--partition-type)")
	fs.StringVar(&w.partType, "partition-type", PartitionHash, "with --partitions: hash, range (contiguous groups of warehouses) or list (the same groups as lists, as TiDB Cloud's reports)")
	options.AddBool(fs, &w.clustered, "clustered", true, "TiDB: clustered primary keys (off: NONCLUSTERED, a hidden row id); MySQL and MariaDB's are clustered whatever it says")
	fs.Int64Var(&w.active, "active-warehouses", 0, "run: run on the first N of the loaded warehouses (grow the load without reloading; 0: all)")
	fs.VarPF(WaitFlag{&w.wait}, "wait", "", "keying and think times, 10 terminals per warehouse (the spec's mode): on (= 1), off (= 0), or a multiplier of them, e.g. 0.05 for a small server (its results say \"not at the spec's waits\")").NoOptDefVal = "on"
	fs.StringVar(&w.weights, "weights", "45,43,4,4,4", "deck of new_order,payment,order_status,delivery,stock_level")
	fs.StringVar(&w.checks, "checks", "", "check: conditions to run, e.g. 1-4,12 or all (default: all but 11)")
	fs.StringVar(&w.schemaName, "schema", SchemaTPCC.Name, "table layout: tpcc (the spec's names) or benchmarksql (BenchmarkSQL 5.0's bmsql_* tables, runs on datasets its loader made)")
	options.AddBool(fs, &w.fks, "foreign-keys", false, "prepare: add the ten foreign keys of BenchmarkSQL after the load (they slow runs on MySQL and MariaDB)")
	// --output=benchmarksql (the pipeline's --output, a style of this workload) prints BenchmarkSQL's end-of-run lines.
	fs.StringVar(&w.propsFile, "props", "", "BenchmarkSQL props file: conn, user, password, warehouses, loadWorkers, terminals, runMins, runTxnsPerTerminal, limitTxnsPerMin, terminalWarehouseFixed, the weights, resultDirectory; implies --output=benchmarksql, BenchmarkSQL's end-of-run lines (the command line wins)")
	fs.StringVar(&w.resultDir, "result-directory", "", "run: write BenchmarkSQL's result directory here (run.properties, data/runInfo.csv, data/result.csv); %tY %tm %td %tH %tM %tS are the date")
	fs.Int64Var(&w.txns, "txns-per-terminal", 0, "run: each thread (terminal) ends after this many transactions instead of --time")
	fs.Float64Var(&w.limitTpm, "limit-tpm", 0, "run: at most this many transactions per minute in all, paced as sysbench's --rate (0: no limit)")
	fs.StringVar(&w.home, "home-warehouse", "fixed", "run: fixed (each terminal keeps its warehouses) or random (a random warehouse per transaction)")
	fs.StringVar(&w.stockUpd, "stock-update", StockUpdateOrder, "New-Order's stock update: order (one statement for all lines) or per-line (one per line, as go-tpc and BenchmarkSQL: for comparing with their figures)")
	fs.Int64Var(&ro.Seed, "rand-seed", 0, "seed of the run's inputs; 0 uses the current time")
}

func (w *workloadTPCC) Setup(s *workload.Setup) error {
	if len(s.Args) != 0 {
		return fmt.Errorf("unexpected argument(s) %q: tpcc has no tests to name", strings.Join(s.Args, " "))
	}
	if w.warehouses < 1 {
		return fmt.Errorf("invalid --warehouses=%d: at least 1", w.warehouses)
	}
	w.seed = s.Seed
	var err error
	if w.schema, err = SchemaNamed(w.schemaName); err != nil {
		return err
	}
	if w.fks && w.partitions > 0 {
		return fmt.Errorf("--foreign-keys=on cannot go with --partitions: MySQL and MariaDB have no foreign keys on partitioned tables")
	}
	if err := w.layout().CheckPartitions(); err != nil {
		return err
	}
	if w.active < 0 || w.active > w.warehouses {
		return fmt.Errorf("invalid --active-warehouses=%d: 1 to --warehouses (%d), or 0 for all", w.active, w.warehouses)
	}
	if w.wait > 0 && !s.ThreadsSet {
		s.Threads = int(10 * w.runWarehouses())
	}
	switch s.Command {
	case "run":
		var err error
		if w.deck, err = ParseWeights(w.weights); err != nil {
			return err
		}
		if w.txns < 0 {
			return fmt.Errorf("invalid --txns-per-terminal=%d: a count, or 0 for a timed run", w.txns)
		}
		if w.txns > 0 {
			w.ro.Time = 0 // the counts end the run
		} else if w.ro.Time <= 0 {
			return fmt.Errorf("invalid --time=0: seconds or a duration like 60s or 10m")
		}
		if w.limitTpm < 0 {
			return fmt.Errorf("invalid --limit-tpm=%g: transactions per minute, or 0 for none", w.limitTpm)
		}
		w.ro.Rate = w.limitTpm / 60
		if w.home != "fixed" && w.home != "random" {
			return fmt.Errorf("invalid --home-warehouse=%s: fixed or random", w.home)
		}
		if w.stockUpd != StockUpdateOrder && w.stockUpd != StockUpdatePerLine {
			return fmt.Errorf("invalid --stock-update=%s: use %s or %s", w.stockUpd, StockUpdateOrder, StockUpdatePerLine)
		}
	case "check":
		var err error
		if w.which, err = ParseChecks(w.checks); err != nil {
			return err
		}
	}
	return nil
}

func (w *workloadTPCC) Name() string { return "tpcc" }

func (w *workloadTPCC) Dataset() dataset.Dataset {
	c := Constants(w.seed)
	names := map[string]string{}
	for _, t := range TableNames {
		names[t] = w.schema.Table(t)
	}
	meta := map[string]string{
		"warehouses": strconv.FormatInt(w.warehouses, 10), "partitions": strconv.Itoa(w.partitions), "schema": w.schema.Name,
		"c_last_load": strconv.FormatInt(c.Last, 10), "c_last_run": strconv.FormatInt(c.LastRun, 10),
		"c_id": strconv.FormatInt(c.ID, 10), "ol_i_id": strconv.FormatInt(c.Item, 10)}
	// Only what differs from the first layout, so that datasets recorded
	// before these options still match.
	if l := w.layout(); l.Partitions > 0 && l.PartitionType != PartitionHash {
		meta["partition_type"] = l.PartitionType
	}
	if !w.clustered {
		meta["clustered"] = "off"
	}
	return dataset.Dataset{Workload: "tpcc", Tables: Tables(w.schema, w.warehouses, w.seed, w.layout()), Names: names, Meta: meta}
}

// runWarehouses are the warehouses a run draws from: the first
// --active-warehouses of the dataset's, or all of them.
func (w *workloadTPCC) runWarehouses() int64 {
	if w.active > 0 {
		return w.active
	}
	return w.warehouses
}

// layout is the tables' layout the options ask for.
func (w *workloadTPCC) layout() Layout {
	return Layout{Warehouses: w.warehouses, Partitions: w.partitions, PartitionType: w.partType, Nonclustered: !w.clustered, ForeignKeys: w.fks}
}

func (w *workloadTPCC) Sizes() map[string]string {
	return map[string]string{"warehouses": strconv.FormatInt(w.warehouses, 10)}
}

// Metric is tpmC: New-Orders per minute; reports show New-Order's latency.
func (w *workloadTPCC) Metric() result.Metric {
	return result.Metric{Name: "tpmC", Unit: "new_order transactions per minute", Ops: []string{TxNames[NewOrder]},
		PerSeconds: 60, LatencyOp: TxNames[NewOrder]}
}

func (w *workloadTPCC) Hooks() workload.Hooks {
	return workload.Hooks{Validate: w.validate, Check: w.check, Preflight: w.preflight, ExactRows: w.exactRows}
}

// validate finds the tables and the warehouse count of the data.
func (w *workloadTPCC) validate(ctx context.Context, db *sql.DB, schema string) error {
	missing, err := conn.MissingTables(ctx, db, schema, w.schema.TableNames())
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		for _, other := range Schemas {
			var n int
			db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", schema, other.Table("warehouse")).Scan(&n)
			if other != w.schema && n > 0 {
				return fmt.Errorf("database %q holds the %s layout, not %s: add --schema=%s", schema, other.Name, w.schema.Name, other.Name)
			}
		}
		return fmt.Errorf("table(s) %s missing in database %q: run oltpbench tpcc prepare first", strings.Join(missing, ", "), schema)
	}
	var have int64
	if err := db.QueryRowContext(ctx, w.schema.SQL("SELECT COUNT(*) FROM warehouse")).Scan(&have); err != nil {
		return err
	}
	if have != w.warehouses {
		return fmt.Errorf("the dataset in %q has %d warehouses, not --warehouses=%d: use --warehouses=%d", schema, have, w.warehouses, have)
	}
	if w.schema.config {
		c, err := readConfig(ctx, db)
		if err != nil {
			return err
		}
		w.loadC = c
	}
	return nil
}

// readConfig reads the load's C constants from bmsql_config, as
// BenchmarkSQL's own runs do: a dataset its loader made has its own.
func readConfig(ctx context.Context, db *sql.DB) (*NURandC, error) {
	vals := map[string]int64{}
	err := conn.QueryStrings(ctx, db, "SELECT cfg_name, cfg_value FROM "+ConfigTable, func(v []sql.NullString) error {
		if n, err := strconv.ParseInt(strings.TrimSpace(v[1].String), 10, 64); err == nil {
			vals[v[0].String] = n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"nURandCLast", "nURandCC_ID", "nURandCI_ID"} {
		if _, ok := vals[k]; !ok {
			return nil, fmt.Errorf("%s has no %s: the dataset was not made by BenchmarkSQL or oltpbench --schema=benchmarksql", ConfigTable, k)
		}
	}
	return &NURandC{Last: vals["nURandCLast"], ID: vals["nURandCC_ID"], Item: vals["nURandCI_ID"]}, nil
}

// check runs the consistency conditions and prints one line each.
func (w *workloadTPCC) check(ctx context.Context, db *sql.DB, threads int, out io.Writer) error {
	results, err := Check(ctx, db, w.schema, w.warehouses, w.which, threads)
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

func (w *workloadTPCC) NewRun(c workload.RunConfig) (workload.Run, error) {
	seed := w.seed
	if s, ok := c.Record["seed"]; ok {
		// The run's C_LAST constant must differ from the load's by the delta rule.
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	cfg := Config{Warehouses: w.runWarehouses(), Threads: c.Threads, Seed: seed, RunSeed: c.Seed, Weights: w.deck, Wait: w.wait,
		StockPerLine: w.stockUpd == StockUpdatePerLine, Schema: w.schema, TxPerTerminal: w.txns, RandomHome: w.home == "random"}
	if w.loadC != nil {
		// The dataset's own constants; the run's C_LAST by the delta rule.
		c := *w.loadC
		c.LastRun = runConstant(c.Last, seed)
		cfg.C = &c
	}
	r := NewRun(cfg)
	tr := &tpccRun{Run: r, rep: &Report{W: c.Out, Run: r}, c: c, w: w, bmsql: c.Output == OutputBenchmarkSQL}
	r.start = time.Now()
	if w.resultDir != "" {
		if !tr.bmsql {
			return nil, fmt.Errorf("--result-directory writes BenchmarkSQL's files: add --output=benchmarksql")
		}
		d, err := openResultDir(w.resultDir, r.start, runProperties(w.props, cfg, c.Options.Time.Minutes(), w.limitTpm))
		if err != nil {
			return nil, err
		}
		tr.dir = d
		r.rows = make([]*rowRecorder, c.Threads)
		for i := range r.rows {
			r.rows[i] = &rowRecorder{d: d}
		}
	}
	return tr, nil
}

type tpccRun struct {
	*Run
	rep   *Report
	c     workload.RunConfig
	w     *workloadTPCC
	bmsql bool       // BenchmarkSQL's output
	dir   *resultDir // BenchmarkSQL's result directory, or nil
}

func (r *tpccRun) Ops() []string { return TxNames }

// Counters are the audit's counts, and the failed and retried attempts per
// transaction type ("errors/new_order"), for live metrics.
func (r *tpccRun) Counters() map[string]int64 {
	a := &r.Run.Audit
	m := map[string]int64{"new_orders": a.NewOrders.Load(), "rollbacks": a.Rollbacks.Load(), "order_lines": a.Lines.Load(),
		"remote_order_lines": a.RemoteLines.Load(), "payments": a.Payments.Load(), "remote_payments": a.RemotePayments.Load(),
		"by_last_name": a.ByName.Load(), "by_last_name_of": a.ByNameOf.Load(), "skipped_deliveries": a.SkippedDeliveries.Load()}
	for t, name := range TxNames {
		m["errors/"+name], m["retries/"+name] = a.Errors[t].Load(), a.Retries[t].Load()
	}
	return m
}

func (r *tpccRun) Header() {
	fmt.Fprintf(r.c.Out, "%s tpcc: %d warehouses, %d threads, %s measured after %s ramp, waits %s, stock update %s\n", r.c.Tool,
		r.w.warehouses, r.c.Threads, r.c.Options.Time, r.c.Options.Warmup, describeWait(r.w.wait), r.w.stockUpd)
	// As BenchmarkSQL logs them: the delta rule (clause 2.1.6.1) can be read off.
	if r.bmsql {
		logLine(r.c.Out, "C value for C_LAST during load: %d", r.Run.c.Last)
		logLine(r.c.Out, "C value for C_LAST this run: %d", r.Run.c.LastRun)
	} else {
		fmt.Fprintf(r.c.Out, "C value for C_LAST during load: %d\nC value for C_LAST this run: %d\n", r.Run.c.Last, r.Run.c.LastRun)
	}
}

func (r *tpccRun) Interval(iv measure.Interval) { r.rep.Interval(iv) }
func (r *tpccRun) Checkpoint(f measure.Final)   { r.rep.Checkpoint(f) }

func (r *tpccRun) Final(f *measure.Final) (map[string]float64, map[string]string) {
	s := r.rep.Final(f, r.w.runWarehouses())
	if r.bmsql {
		// The lines BenchmarkSQL's users grep. Unlike BenchmarkSQL, a
		// New-Order that failed (and was redone) is counted once.
		var total int64
		for _, h := range f.Hists {
			total += h.TotalCount()
		}
		const at = "2006-01-02 15:04:05"
		fmt.Fprintln(r.c.Out)
		logLine(r.c.Out, "")
		logLine(r.c.Out, "Measured tpmC (NewOrders) = %.2f", s.TpmC)
		logLine(r.c.Out, "Measured tpmTOTAL = %.2f", s.TpmTotal)
		logLine(r.c.Out, "Session Start     = %s", r.Run.start.Format(at))
		logLine(r.c.Out, "Session End       = %s", time.Now().Format(at))
		logLine(r.c.Out, "Transaction Count = %d", total)
	}
	if r.dir != nil {
		for _, rr := range r.Run.rows {
			rr.flush()
		}
		mult := strconv.FormatFloat(r.w.wait, 'f', 1, 64)
		runMins := strconv.FormatFloat(r.c.Options.Time.Minutes(), 'f', -1, 64)
		info := "run,driver,driverVersion,db,sessionStart,runMins,loadWarehouses,runWarehouses,numSUTThreads,limitTxnsPerMin,thinkTimeMultiplier,keyingTimeMultiplier\n" +
			fmt.Sprintf("1,oltpbench,%s,mysql,%s,%s,%d,%d,%d,%s,%s,%s\n", strings.TrimPrefix(r.c.Tool, "oltpbench "),
				r.Run.start.Format("2006-01-02 15:04:05"), runMins, r.w.warehouses, r.w.warehouses, r.c.Threads,
				strconv.FormatFloat(r.w.limitTpm, 'f', -1, 64), mult, mult)
		if err := r.dir.close(info); err != nil {
			fmt.Fprintf(r.c.Out, "oltpbench: writing %s: %v\n", r.dir.path, err)
		} else if r.bmsql {
			logLine(r.c.Out, "Result directory: %s", r.dir.path)
		}
	}
	if r.w.wait == 0 {
		return map[string]float64{"tpmTotal": s.TpmTotal}, map[string]string{"efficiency": EfficiencyWithoutWait}
	}
	figs := map[string]float64{"tpmTotal": s.TpmTotal, "efficiency": s.Efficiency, "wait": r.w.wait, "spec_pass": 0}
	if ok, _ := s.Passed(); ok {
		figs["spec_pass"] = 1
	}
	for _, a := range s.Audit {
		if a.Unit == "s" {
			figs["p90_"+strings.TrimPrefix(a.What, "90th percentile response ")] = a.Value
		}
	}
	if r.w.wait != 1 {
		return figs, map[string]string{"spec_waits": NotAtSpecWaits(r.w.wait)}
	}
	return figs, nil
}

// preparedPerTerminal is how many statements a terminal prepares at most.
const preparedPerTerminal = 42

// preflight warns when the terminals' prepared statements exceed the
// server's max_prepared_stmt_count: the rest fail.
func (w *workloadTPCC) preflight(srv workload.Server, threads int) []string {
	max, err := strconv.Atoi(srv.Variables["max_prepared_stmt_count"])
	if need := threads * preparedPerTerminal; err == nil && need > max {
		return []string{fmt.Sprintf("%d terminals prepare up to %d statements and the server's max_prepared_stmt_count is %d: raise it (SET GLOBAL max_prepared_stmt_count = %d) or run fewer threads",
			threads, need, max, need+100)}
	}
	return nil
}

// exactOrderLinesUpTo is the most orders whose lines exactRows counts.
const exactOrderLinesUpTo = 3_000_000

// exactRows are the orders and new orders, exact from the district counters
// and the new orders' keys (contiguous per district: Delivery takes the
// lowest): one row per district read, whatever the warehouses; and the
// order lines from the orders, up to exactOrderLinesUpTo.

func (w *workloadTPCC) exactRows(ctx context.Context, db *sql.DB) map[string]int64 {
	out := map[string]int64{}
	q := w.schema.SQL
	var n sql.NullInt64
	if db.QueryRowContext(ctx, q("SELECT SUM(d_next_o_id - 1) FROM district")).Scan(&n) == nil && n.Valid {
		out[w.schema.Table("orders")] = n.Int64
	}
	if db.QueryRowContext(ctx, q("SELECT SUM(c) FROM (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 AS c FROM new_order GROUP BY no_w_id, no_d_id) x")).Scan(&n) == nil && n.Valid {
		out[w.schema.Table("new_order")] = n.Int64
	}
	// Each order's line count is in the order (consistency condition 4):
	// a scan of orders, a tenth of order_line's rows, cheap up to 100
	// warehouses.
	if o, ok := out[w.schema.Table("orders")]; ok && o <= exactOrderLinesUpTo &&
		db.QueryRowContext(ctx, q("SELECT SUM(o_ol_cnt) FROM orders")).Scan(&n) == nil && n.Valid {
		out[w.schema.Table("order_line")] = n.Int64
	}
	return out
}
