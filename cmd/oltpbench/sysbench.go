package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/gcpace"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/runner"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
	"github.com/oltpbench/oltpbench/sysbench"
)

// sbFlags holds every option of `oltpbench sysbench`.
type sbFlags struct {
	test sysbench.Options

	netIO string

	threads        int
	events         int64
	timeSec        int64
	rate           float64
	reportInterval float64
	checkpoints    []string
	warmup         int64
	percentile     float64
	percentiles    []string
	histogram      bool
	configFile     string
	forcedShutdown string

	randType     string
	randSeed     int64
	randSpecIter int
	randSpecPct  float64
	randSpecRes  float64
	randParetoH  float64
	randZipfExp  float64

	psMode   string
	dbDriver string

	hosts, ports, sockets []string
	user, password        string
	passwordFile          string
	db                    string
	ssl, sslCA, sslCert   string
	sslKey, sslCipher     string
	ignoreErrors          []string
	sessionVars           []string
	initSQL               []string
	connectTimeout        float64

	resultFile string
	output     string

	loadMode, indexTiming string
	analyze, resume       bool
	seed                  uint64
	shard, dir            string
	csvFileSize, progress string

	ignored map[string]*string // compatibility options with no effect here
	lv      levelFlags
}

var sbAliases = map[string]string{"num-threads": "threads", "max-requests": "events", "max-time": "time", "tx-rate": "rate"}

func (f *sbFlags) register(fs *pflag.FlagSet) {
	fs.SetNormalizeFunc(options.Normalize(sbAliases))
	f.test = sysbench.Defaults()
	for _, o := range sysbench.Decl(&f.test) {
		name := strings.ReplaceAll(o.Name, "_", "-")
		switch o.Kind {
		case sysbench.OptBool:
			def, _ := options.ParseBool(o.Default)
			options.AddBool(fs, o.Bool, name, def, o.Help)
		case sysbench.OptInt:
			if o.Int != nil {
				fs.Var(options.Int64{P: o.Int}, name, o.Help)
			} else {
				fs.Var(options.Int{P: o.IntP}, name, o.Help)
			}
		case sysbench.OptString:
			fs.StringVar(o.String, name, o.Default, o.Help)
		}
	}
	fs.StringVar(&f.lv.threadsSpec, "threads", "1", "number of threads to use; a list (150,300,600) runs a sweep; a range (8-1024) with --p95-slo searches")
	f.lv.register(fs.StringVar, fs.DurationVar, fs.IntVar)
	fs.Int64Var(&f.events, "events", 0, "limit for total number of events (0: none)")
	fs.Int64Var(&f.timeSec, "time", 10, "limit for total execution time in seconds (0: none)")
	fs.Float64Var(&f.rate, "rate", 0, "average transactions rate; 0 for unlimited (open loop: latency from the scheduled start)")
	fs.Float64Var(&f.reportInterval, "report-interval", 0, "report intermediate statistics every N seconds (0: off)")
	options.AddList(fs, &f.checkpoints, "report-checkpoints", nil, "dump full statistics and reset counters at these times (seconds)")
	fs.Int64Var(&f.warmup, "warmup-time", 0, "run this many seconds before measuring")
	fs.Float64Var(&f.percentile, "percentile", 95, "percentile for latency statistics (1-100; 0 disables)")
	options.AddList(fs, &f.percentiles, "percentiles", nil, "extra percentiles for the final report, e.g. 50,95,99,99.9")
	options.AddBool(fs, &f.histogram, "histogram", false, "print latency histogram in report")
	fs.StringVar(&f.configFile, "config-file", "", "file of key=value options (the command line wins)")
	fs.StringVar(&f.forcedShutdown, "forced-shutdown", "off", "seconds to wait after --time before stopping anyway, or off")
	fs.StringVar(&f.randType, "rand-type", "special", "random numbers distribution {uniform,gaussian,special,pareto,zipfian}")
	fs.Int64Var(&f.randSeed, "rand-seed", 0, "seed for the run's random numbers; 0 uses the current time")
	fs.IntVar(&f.randSpecIter, "rand-spec-iter", 12, "number of iterations used for numbers generation")
	fs.Float64Var(&f.randSpecPct, "rand-spec-pct", 1, "percentage of values to be treated as 'special' (special distribution)")
	fs.Float64Var(&f.randSpecRes, "rand-spec-res", 75, "percentage of 'special' values to use (special distribution)")
	fs.Float64Var(&f.randParetoH, "rand-pareto-h", 0.2, "parameter h for pareto distribution")
	fs.Float64Var(&f.randZipfExp, "rand-zipfian-exp", 0.8, "shape parameter (exponent, theta) for the zipfian distribution")
	fs.StringVar(&f.psMode, "db-ps-mode", "auto", "prepared statements usage mode {auto, disable}")
	fs.StringVar(&f.dbDriver, "db-driver", "mysql", "database driver (mysql)")
	f.registerConn(fs)
	f.registerNetIO(fs)
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result here")
	fs.StringVar(&f.output, "output", "text", "text, or json (the JSON result on stdout after the report)")
	f.registerLoad(fs)
	f.ignored = map[string]*string{}
	for _, n := range []string{"verbosity", "thread-stack-size", "debug", "validate", "db-debug", "mysql-debug",
		"mysql-dry-run", "mysql-compression", "pgsql-variant", "thread-init-timeout"} {
		s := new(string)
		f.ignored[n] = s
		fs.StringVar(s, n, "", "accepted for sysbench compatibility; no effect")
		fs.Lookup(n).NoOptDefVal = "on"
		fs.Lookup(n).Hidden = true
	}
}

// registerConn adds the connection options every command that reaches a server takes.
func (f *sbFlags) registerConn(fs *pflag.FlagSet) {
	options.AddList(fs, &f.hosts, "mysql-host", []string{"localhost"}, "MySQL server host(s)")
	options.AddList(fs, &f.ports, "mysql-port", []string{"3306"}, "MySQL server port(s)")
	options.AddList(fs, &f.sockets, "mysql-socket", nil, "MySQL socket(s)")
	fs.StringVar(&f.user, "mysql-user", "sbtest", "MySQL user")
	fs.StringVar(&f.password, "mysql-password", "", "MySQL password (or MYSQL_PWD, --mysql-password-file)")
	fs.StringVar(&f.passwordFile, "mysql-password-file", "", "file holding the MySQL password")
	fs.StringVar(&f.db, "mysql-db", "sbtest", "MySQL database name")
	fs.StringVar(&f.ssl, "mysql-ssl", "off", "TLS: off, on|required (encrypt), verify_ca, verify_identity")
	fs.Lookup("mysql-ssl").NoOptDefVal = "on"
	fs.StringVar(&f.sslCA, "mysql-ssl-ca", "", "CA certificate (PEM) to verify the server")
	fs.StringVar(&f.sslCert, "mysql-ssl-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.sslKey, "mysql-ssl-key", "", "client key (PEM)")
	fs.StringVar(&f.sslCipher, "mysql-ssl-cipher", "", "accepted for compatibility; Go chooses the cipher")
	options.AddList(fs, &f.ignoreErrors, "mysql-ignore-errors", []string{"1213", "1020", "1205"}, "errors to ignore (roll back, retry the event, count), or all")
	options.AddList(fs, &f.sessionVars, "mysql-session-vars", nil, "session variables for every connection, e.g. 'tidb_enable_1pc=1,autocommit=1'")
	fs.StringArrayVar(&f.initSQL, "init-sql", nil, "statement to run on every new connection (repeatable)")
	fs.Float64Var(&f.connectTimeout, "mysql-connect-timeout", 10, "seconds to wait for a connection")
}

// registerNetIO adds --net-io, for the commands that run a workload.
func (f *sbFlags) registerNetIO(fs *pflag.FlagSet) {
	fs.StringVar(&f.netIO, "net-io", "auto", "run: how connections wait for replies: blocking (a thread per connection, as sysbench), poller (Go's network poller), or auto (blocking up to 8 threads per CPU)")
}

// registerLoad adds the loader's options.
func (f *sbFlags) registerLoad(fs *pflag.FlagSet) {
	fs.StringVar(&f.loadMode, "load-mode", "auto", "prepare: auto (local where the server allows it, else insert), insert, local (streamed LOAD DATA LOCAL), csv (files only) or import (files, then loaded)")
	fs.StringVar(&f.indexTiming, "index-timing", "auto", "prepare: secondary indexes after the data, before, or auto")
	options.AddBool(fs, &f.analyze, "analyze", true, "prepare: ANALYZE TABLE after loading")
	fs.Uint64Var(&f.seed, "seed", 20201, "dataset seed: the same seed gives the same data")
	options.AddBool(fs, &f.resume, "resume", false, "finish an interrupted load: load only what is missing")
	fs.StringVar(&f.shard, "shard", "", "load only part i of n (i/n), so several client machines load one dataset")
	fs.StringVar(&f.dir, "dir", "", "folder of the CSV files (csv and import modes)")
	fs.StringVar(&f.csvFileSize, "csv-file-size", "256MiB", "split CSV files near this size")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto (a live bar on a terminal), on, off")
}

func (f *sbFlags) loaderOptions() (loader.Options, error) {
	i, n, err := loader.ParseShard(f.shard)
	if err != nil {
		return loader.Options{}, err
	}
	size, err := parseSize(f.csvFileSize)
	if err != nil {
		return loader.Options{}, fmt.Errorf("invalid --csv-file-size=%s: %v", f.csvFileSize, err)
	}
	switch f.progress {
	case "auto", "on", "off":
	default:
		return loader.Options{}, fmt.Errorf("invalid --progress=%s: use auto, on or off", f.progress)
	}
	return loader.Options{Mode: f.loadMode, IndexTiming: f.indexTiming, Threads: f.threads, Seed: f.seed, Analyze: f.analyze,
		Resume: f.resume, Shard: i, Shards: n, Dir: f.dir, FileSize: size, Progress: f.progress}, nil
}

// parseSize reads 1048576, 64KiB, 256MiB, 1GiB (KB/MB/GB are powers of 1000).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 {
		return 0, errors.New("a positive size like 256MiB")
	}
	return v * mult, nil
}

func sysbenchCommand() *cobra.Command {
	f := &sbFlags{}
	cmd := &cobra.Command{
		Use:   "sysbench <test> <prepare|prewarm|run|cleanup> [options]",
		Short: "sysbench 1.0.20 OLTP tests, same options and output",
		Long: "sysbench 1.0.20's OLTP tests with the same options, defaults and text output.\nTests: " +
			strings.Join(sysbench.Names(), ", ") + " (oltp_common for prepare and cleanup).",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("expected <test> <command>, got %q: e.g. oltpbench sysbench oltp_read_write run", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runSysbench(ctx, cmd.Flags(), f, args[0], args[1], os.Stdout)
		},
	}
	cmd.Flags().SortFlags = true
	f.register(cmd.Flags())
	return cmd
}

func runSysbench(ctx context.Context, fs *pflag.FlagSet, f *sbFlags, testName, command string, out io.Writer) error {
	if f.configFile != "" {
		if err := options.ApplyConfigFile(fs, f.configFile); err != nil {
			return err
		}
	}
	switch command {
	case "prepare", "prewarm", "warmup", "run", "cleanup":
	case "help":
		fmt.Fprintln(out, fs.FlagUsages())
		return nil
	default:
		return fmt.Errorf("unknown command %q: use prepare, prewarm, run or cleanup", command)
	}
	t, err := sysbench.Lookup(testName, command)
	if err != nil {
		return err
	}
	if err := f.firstThreads(); err != nil {
		return err
	}
	if f.dbDriver != "mysql" {
		return fmt.Errorf("--db-driver=%s is not supported: oltpbench speaks the MySQL protocol (use mysql)", f.dbDriver)
	}
	if f.threads < 1 {
		return fmt.Errorf("invalid --threads=%d: must be at least 1", f.threads)
	}
	switch f.psMode {
	case "auto":
		f.test.PreparedStmts = true
	case "disable":
		f.test.PreparedStmts = false
	default:
		return fmt.Errorf("invalid --db-ps-mode=%s: use auto or disable", f.psMode)
	}
	f.test.Threads = f.threads
	if err := t.Validate(&f.test, command); err != nil {
		return err
	}
	dist, err := workload.NewDist(f.randType, f.randSpecIter, f.randSpecPct, f.randSpecRes, f.randParetoH, f.randZipfExp)
	if err != nil {
		return err
	}
	co, err := f.connOptions(fs)
	if err != nil {
		return err
	}
	switch command {
	case "prepare":
		return sbPrepare(ctx, t, f, co, dist, out)
	case "cleanup":
		return sbCleanup(ctx, t, f, co, out)
	case "prewarm", "warmup":
		return sbPrewarm(ctx, t, f, co, out)
	default:
		return f.lv.runLevels(ctx, out, "sysbench/"+t.Name, f.resultFile, func(th int, file string) (*result.Result, error) {
			f.threads, f.test.Threads, f.resultFile = th, th, file
			return sbRun(ctx, fs, t, f, co, dist, out)
		})
	}
}

// firstThreads sets f.threads from --threads (the first level, or the low end of a range).
func (f *sbFlags) firstThreads() error {
	levels, lo, _, err := f.lv.parseThreads()
	if err != nil {
		return err
	}
	if levels != nil {
		f.threads = levels[0]
	} else {
		f.threads = lo
	}
	return nil
}

func (f *sbFlags) connOptions(fs *pflag.FlagSet) (conn.Options, error) {
	pw, err := conn.PasswordFromSources(f.password, f.passwordFile, fs.Changed("mysql-password"))
	if err != nil {
		return conn.Options{}, err
	}
	co := conn.Options{Hosts: f.hosts, Sockets: f.sockets, User: f.user, Password: pw, DB: f.db,
		SSL: f.ssl, SSLCA: f.sslCA, SSLCert: f.sslCert, SSLKey: f.sslKey,
		SessionVars: f.sessionVars, InitSQL: f.initSQL, ConnectTimeout: time.Duration(f.connectTimeout * float64(time.Second))}
	for _, p := range f.ports {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return co, fmt.Errorf("invalid --mysql-port=%s: a port number from 1 to 65535", p)
		}
		co.Ports = append(co.Ports, n)
	}
	for _, kv := range f.sessionVars {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return co, fmt.Errorf("invalid --mysql-session-vars item %q: use name=value", kv)
		}
	}
	return co, nil
}

// planRun sets the run's I/O model on co and the GOMAXPROCS it needs, and
// gives the garbage collector its headroom for the run; restore undoes both.
func planRun(co *conn.Options, mode string, threads int) (restore func(), err error) {
	model, procs, err := conn.PlanNetIO(mode, threads)
	if err != nil {
		return nil, err
	}
	co.NetIO = model
	prev := runtime.GOMAXPROCS(0)
	if procs != 0 {
		runtime.GOMAXPROCS(procs)
	}
	pacer := gcpace.Start(gcHeadroom)
	return func() {
		pacer.Stop()
		runtime.GOMAXPROCS(prev)
	}, nil
}

// gcHeadroom is the allocation between two collections during a run (unless
// GOGC is set): at 16 threads the live heap is about 3 MB, and collecting
// every 3 MB cost 3-8% of the client's CPU (internal/gcpace).
const gcHeadroom = 32 << 20

func sbDataset(t *sysbench.Test, f *sbFlags, dist *workload.Dist) loader.Dataset {
	return loader.Dataset{Workload: "sysbench", Tables: t.Tables(&f.test, dist), Meta: map[string]string{
		"tables": strconv.Itoa(f.test.Tables), "table_size": strconv.FormatInt(f.test.TableSize, 10), "rand_type": f.randType,
		"auto_inc": strconv.FormatBool(f.test.AutoInc), "secondary": strconv.FormatBool(f.test.Secondary),
		"create_secondary": strconv.FormatBool(f.test.CreateSecondary), "storage_engine": f.test.StorageEngine}}
}

func sbPrepare(ctx context.Context, t *sysbench.Test, f *sbFlags, co conn.Options, dist *workload.Dist, out io.Writer) error {
	sysbench.PrintBanner(out, "oltpbench "+version)
	fmt.Fprintf(out, "Initializing worker threads...\n\n")
	lo, err := f.loaderOptions()
	if err != nil {
		return err
	}
	lo.Log = out
	ds := sbDataset(t, f, dist)
	if f.loadMode == "csv" {
		m, err := loader.WriteCSV(ctx, co.DB, ds, lo)
		if err != nil {
			return err
		}
		return printManifest(out, m, lo.Dir)
	}
	rep, err := loader.Load(ctx, co, ds, lo)
	if err != nil {
		return err
	}
	rep.Summary(out)
	return nil
}

func printManifest(out io.Writer, m *loader.Manifest, dir string) error {
	var files, rows int64
	for _, t := range m.Tables {
		files += int64(len(t.Files))
		rows += t.Rows
	}
	fmt.Fprintf(out, "Wrote %d rows in %d CSV files to %s: %s-manifest.json lists them; %s-import.sql holds IMPORT INTO statements\n", rows, files, dir, m.DB, m.DB)
	return nil
}

func sbCleanup(ctx context.Context, t *sysbench.Test, f *sbFlags, co conn.Options, out io.Writer) error {
	sysbench.PrintBanner(out, "oltpbench "+version)
	pool, err := conn.Open(co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	c, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, n := range append(t.TableNames(&f.test), loader.RecordTables...) {
		if !strings.HasPrefix(n, "sbtest") {
			if _, err := c.ExecContext(ctx, "DROP TABLE IF EXISTS "+n); err != nil {
				return fmt.Errorf("dropping %s: %v", n, err)
			}
			continue
		}
		fmt.Fprintf(out, "Dropping table '%s'...\n", n)
		if _, err := c.ExecContext(ctx, "DROP TABLE IF EXISTS "+n); err != nil {
			return fmt.Errorf("dropping %s: %v", n, err)
		}
	}
	return nil
}

func sbPrewarm(ctx context.Context, t *sysbench.Test, f *sbFlags, co conn.Options, out io.Writer) error {
	sysbench.PrintBanner(out, "oltpbench "+version)
	pool, err := conn.Open(co, f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.threads)
	for i := 1; i <= f.test.Tables; i++ {
		fmt.Fprintf(out, "Prewarming table %s\n", sysbench.TableName(i))
		g.Go(func() error {
			c, err := pool.Conn(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			for _, q := range append([]string{"SET tmp_table_size=2*1024*1024*1024", "SET max_heap_table_size=2*1024*1024*1024",
				"ANALYZE TABLE " + sysbench.TableName(i)}, sysbench.PrewarmSQL(&f.test, i)...) {
				rows, err := c.QueryContext(gctx, q)
				if err != nil {
					return fmt.Errorf("prewarm %s: %v", sysbench.TableName(i), err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
			return nil
		})
	}
	return g.Wait()
}

func sbRun(ctx context.Context, fs *pflag.FlagSet, t *sysbench.Test, f *sbFlags, co conn.Options, dist *workload.Dist, out io.Writer) (*result.Result, error) {
	ignore, err := conn.ParseErrorSet(f.ignoreErrors)
	if err != nil {
		return nil, err
	}
	if f.percentile < 0 || f.percentile > 100 {
		return nil, fmt.Errorf("invalid --percentile=%g: must be in [0, 100]", f.percentile)
	}
	var pcts []float64
	for _, p := range f.percentiles {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 || v > 100 {
			return nil, fmt.Errorf("invalid --percentiles item %q: numbers in (0, 100], e.g. 50,95,99,99.9", p)
		}
		pcts = append(pcts, v)
	}
	var cps []time.Duration
	for _, c := range f.checkpoints {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("invalid --report-checkpoints item %q: seconds, e.g. 10,20", c)
		}
		cps = append(cps, time.Duration(v*float64(time.Second)))
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i] < cps[j] })
	if f.timeSec < 0 || f.events < 0 || f.rate < 0 || f.reportInterval < 0 || f.warmup < 0 {
		return nil, errors.New("--time, --events, --rate, --report-interval and --warmup-time must not be negative")
	}
	if f.output != "text" && f.output != "json" {
		return nil, fmt.Errorf("invalid --output=%s: use text or json", f.output)
	}
	if f.timeSec == 0 && f.events == 0 {
		return nil, errors.New("--time=0 and --events=0 would run forever: set one of them")
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
	if err := t.Check(ctx, pool.DB(0), co.DB, &f.test); err != nil {
		return nil, err
	}
	res := &result.Result{Format: result.Format, Tool: "oltpbench " + version, Workload: "sysbench/" + t.Name,
		Options: flagValues(fs), Threads: f.threads, Dataset: map[string]string{
			"tables": strconv.Itoa(f.test.Tables), "table_size": strconv.FormatInt(f.test.TableSize, 10)}}
	res.Client, _ = os.Hostname()
	res.Server = serverInfo(ctx, pool)
	if rec, err := loader.ReadDataset(ctx, pool.DB(0)); err == nil {
		for k, v := range rec {
			res.Dataset[k] = v
		}
	}

	seed := f.randSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	sr := t.NewRun(f.test, dist, uint64(seed))
	reg := hist.NewRegistry(sr.Ops(), 8)
	textOut := out
	rep := &sysbench.Report{W: textOut, Percentile: f.percentile, Percentiles: pcts, Histogram: f.histogram, Rate: f.rate > 0}
	sysbench.PrintHeader(textOut, sysbench.Header{Tool: "oltpbench " + version, Threads: f.threads, Rate: f.rate,
		ReportInterval: time.Duration(f.reportInterval * float64(time.Second)), Checkpoints: cps, Seed: f.randSeed,
		Warmup: time.Duration(f.warmup) * time.Second})
	cfg := runner.Config{Threads: f.threads, Duration: time.Duration(f.timeSec) * time.Second, Events: f.events,
		Rate: f.rate, Warmup: time.Duration(f.warmup) * time.Second, Ignore: ignore, Seed: seed, Checkpoints: cps,
		ReportInterval: time.Duration(f.reportInterval * float64(time.Second))}
	if f.forcedShutdown != "off" && f.forcedShutdown != "" {
		v, err := strconv.ParseFloat(f.forcedShutdown, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("invalid --forced-shutdown=%s: seconds or off", f.forcedShutdown)
		}
		cfg.Grace = time.Duration(v * float64(time.Second))
	}
	fin, runErr := runner.Run(ctx, cfg, pool, sr.NewWorker, reg, recordingReporter{rep, res, sr.Ops()})
	if fin != nil {
		rep.Final(fin)
		if err := res.SetFinal(fin, sr.Ops()); err != nil {
			return nil, err
		}
		if f.resultFile != "" {
			if err := res.Write(f.resultFile); err != nil {
				return nil, err
			}
		}
		if f.output == "json" {
			if err := res.Write("-"); err != nil {
				return nil, err
			}
		}
	}
	if runErr != nil {
		var fe *runner.FatalError
		if errors.As(runErr, &fe) {
			n := conn.Number(fe.Err)
			if n != 0 && !conn.IsLost(fe.Err) {
				return nil, fmt.Errorf("%v (not in --mysql-ignore-errors; add %d to ignore it)", redact(fe.Err.Error(), co.Password), n)
			}
		}
		return nil, errors.New(redact(runErr.Error(), co.Password))
	}
	return res, nil
}

func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "****")
}

type recordingReporter struct {
	*sysbench.Report
	res *result.Result
	ops []string
}

func (r recordingReporter) Interval(iv runner.Interval) {
	r.Report.Interval(iv)
	r.res.AddInterval(iv, r.ops)
}

// flagValues lists every option's effective value, secrets removed.
func flagValues(fs *pflag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "mysql-password" || fl.Name == "help" {
			return
		}
		m[fl.Name] = fl.Value.String()
	})
	return m
}

func serverInfo(ctx context.Context, pool *conn.Pool) result.Server {
	s := result.Server{}
	for _, ep := range pool.Endpoints() {
		s.Endpoints = append(s.Endpoints, ep.String())
	}
	db := pool.DB(0)
	_ = db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.Version)
	if strings.Contains(strings.ToLower(s.Version), "tidb") {
		_ = db.QueryRowContext(ctx, "SELECT tidb_version()").Scan(&s.TiDBVersion)
	}
	return s
}
