package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/cells"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/runner"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// pipeline drives one registered workload through prepare, run, check,
// cleanup, prewarm and csv.
type pipeline struct {
	spec workload.Spec
	w    workload.Workload
	ro   workload.RunOptions
	f    commonFlags
	fs   *pflag.FlagSet
	out  io.Writer // table lines, prewarm and cleanup lines: always
	// notice gets reports and banners (verbosity 3 and up), detail the
	// loader's own lines when the workload prints table lines (4 and up).
	notice, detail io.Writer
	warn           io.Writer // stderr: notes that are not errors
	configApplied  bool
	exp            *metrics.Exporter // --metrics-addr: the command's, or the plan's
}

// newPipeline binds a workload to fs; args are the command line after the
// workload's name, for a workload whose options depend on them.
func newPipeline(spec workload.Spec, fs *pflag.FlagSet, args []string) *pipeline {
	p := &pipeline{spec: spec, w: spec.New(), fs: fs}
	fs.SetNormalizeFunc(options.Normalize(spec.Aliases))
	p.f.registerWorkload(fs, spec.DefaultDB, spec.DefaultUser, spec.Threads, spec.ThreadsHelp, spec.Retry, spec.RetryHelp)
	p.w.Flags(fs, &p.ro)
	if d, ok := p.w.(workload.Declarer); ok {
		d.Declare(args, fs)
	}
	return p
}

// workloadCommand is `oltpbench NAME [args] COMMAND`.
func workloadCommand(spec workload.Spec, args []string) *cobra.Command {
	var p *pipeline
	cmd := &cobra.Command{
		Use:   spec.Name + " " + spec.Use,
		Short: spec.Short,
		Long:  spec.Long,
		RunE: func(cmd *cobra.Command, args []string) error {
			p.out, p.warn = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if done, err := p.front(args); done || err != nil {
				return err
			}
			if len(args) != spec.Args+1 {
				return fmt.Errorf("expected %s, got %q: e.g. %s", strings.TrimSuffix(spec.Use, " [options]"), strings.Join(args, " "), spec.Example)
			}
			exp, err := p.f.metrics.Open()
			if err != nil {
				return err
			}
			defer exp.Close()
			p.exp = exp
			ctx, stop := interruptible()
			defer stop()
			return p.drive(ctx, args[len(args)-1], args[:len(args)-1])
		},
	}
	p = newPipeline(spec, cmd.Flags(), args)
	if h, ok := p.w.(workload.Helper); ok {
		cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { h.Help(c.OutOrStdout(), c.Flags()) })
	}
	if fe, ok := p.w.(workload.FlagErrorer); ok {
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return fe.FlagError(err, commandLine, c.OutOrStdout()) })
	}
	return cmd
}

// commands lists the workload's commands in the order help names them.
func (p *pipeline) commands(h workload.Hooks) []string {
	c := []string{"prepare"}
	if h.Prewarm != nil {
		c = append(c, "prewarm")
	}
	c = append(c, "run")
	if h.Check != nil {
		c = append(c, "check")
	}
	for _, x := range h.Commands {
		if !slices.Contains(c, x) && x != "cleanup" {
			c = append(c, x)
		}
	}
	return append(c, "cleanup")
}

// front applies --config-file (it counts as typed first: it may set
// --verbosity), then runs the workload's front, a peer tool's checks and
// banner, on the positional arguments and the command; done means it
// answered the command line itself.
func (p *pipeline) front(args []string) (done bool, err error) {
	if err := p.applyConfig(); err != nil {
		return false, err
	}
	if fr, ok := p.w.(workload.Front); ok {
		return fr.Front(args, p.fs, p.out)
	}
	return false, nil
}

// applyConfig applies --config-file once (the command line wins).
func (p *pipeline) applyConfig() error {
	if p.f.configFile == "" || p.configApplied {
		return nil
	}
	p.configApplied = true
	return options.ApplyConfigFile(p.fs, p.f.configFile)
}

// setup applies --config-file, takes the first thread level and lets the
// workload validate its options.
func (p *pipeline) setup(command string, args []string) error {
	if err := p.applyConfig(); err != nil {
		return err
	}
	if of, ok := p.w.(workload.OptionFile); ok {
		warn := p.warn
		if warn == nil {
			warn = io.Discard
		}
		if err := of.ApplyOptions(command, p.fs, warn); err != nil {
			return err
		}
	}
	if err := p.f.firstThreads(); err != nil {
		return err
	}
	s := &workload.Setup{Command: command, Args: args, Threads: p.f.threads, ThreadsSet: p.fs.Changed(result.FlagThreads), Seed: p.f.load.Seed, Verbosity: 3}
	if err := p.w.Setup(s); err != nil {
		return err
	}
	p.notice = atLevel(p.out, s.Verbosity >= 3)
	p.detail = p.notice
	if p.w.Hooks().TableMessages {
		p.detail = atLevel(p.out, s.Verbosity >= 4)
	}
	if s.Threads != p.f.threads {
		p.f.threads = s.Threads
		p.f.lv.threadsSpec = strconv.Itoa(s.Threads)
	}
	return workload.CheckThreads(p.f.threads)
}

func (p *pipeline) drive(ctx context.Context, command string, args []string) error {
	h := p.w.Hooks()
	if command == "help" {
		fmt.Fprintln(p.out, p.fs.FlagUsages())
		return nil
	}
	if command == "warmup" && h.Prewarm != nil {
		command = "prewarm" // sysbench's old name
	}
	co, err := p.begin(command, args)
	if err != nil {
		return err
	}
	if h.Command != nil && command != "run" {
		handled, err := h.Command(ctx, command, co, p.f.threads, p.out)
		if handled && err == nil && command == "cleanup" && len(p.w.Dataset().Tables) == 0 && (h.Connected == nil || h.Connected()) {
			err = loader.Drop(ctx, co, p.w.Dataset(), nil) // and the record a plan's prepare wrote
		}
		if handled || err != nil {
			return err
		}
	}
	switch command {
	case "prepare":
		return p.prepare(ctx, co)
	case "cleanup":
		return p.cleanup(ctx, co, h)
	case "prewarm":
		return p.prewarm(ctx, co)
	case "check":
		return p.check(ctx, co)
	}
	return p.runCells(ctx, co)
}

// begin checks a command and the options once parsed (the workload's
// Setup included) and returns the connection options.
func (p *pipeline) begin(command string, args []string) (conn.Options, error) {
	cmds := p.commands(p.w.Hooks())
	if !slices.Contains(cmds, command) {
		return conn.Options{}, fmt.Errorf("unknown command %q: use %s or %s", command, strings.Join(cmds[:len(cmds)-1], ", "), cmds[len(cmds)-1])
	}
	if err := p.setup(command, args); err != nil {
		return conn.Options{}, err
	}
	if outputs := append([]string{"text", "json"}, p.spec.Outputs...); !slices.Contains(outputs, p.f.output) {
		return conn.Options{}, fmt.Errorf("invalid --output=%s: use %s", p.f.output, strings.Join(outputs, ", "))
	}
	co, err := p.f.conn.Options(p.fs)
	if err != nil {
		return conn.Options{}, err
	}
	if p.ro.DryRun && command != "run" {
		return conn.Options{}, fmt.Errorf("--mysql-dry-run applies to run only: %s needs a server", command)
	}
	return co, nil
}

// runCells is run: the command line's thread levels, repeats or search as
// cells, each measured by p.measure.
func (p *pipeline) runCells(ctx context.Context, co conn.Options) error {
	ignore, err := conn.ParseErrorSet(p.f.ignoreErrors)
	if err != nil {
		return err
	}
	s, err := p.f.lv.series(p.w.Name(), p.f.resultFile)
	if err != nil {
		return err
	}
	if at, _ := p.f.lv.startTime(); !at.IsZero() {
		if err := cells.Wait(ctx, p.notice, at, p.f.lv.startAt); err != nil {
			return err
		}
	}
	ex := &cells.Executor{Dir: p.f.lv.resultDir, File: p.f.resultFile, Out: p.notice,
		Measure: func(ctx context.Context, c *cells.Cell, threads int, _ io.Writer) (*result.Result, error) {
			return p.measure(ctx, co, ignore, c, threads)
		}}
	return ex.Run(ctx, cells.Expand([]*cells.Series{s}))
}

// prepare loads the dataset.
func (p *pipeline) prepare(ctx context.Context, co conn.Options) error {
	h := p.w.Hooks()
	if h.BeforeLoad != nil {
		h.BeforeLoad(p.notice)
	}
	return p.load(ctx, co, h)
}

// prewarm reads the dataset into the server's caches.
func (p *pipeline) prewarm(ctx context.Context, co conn.Options) error {
	h := p.w.Hooks()
	if h.Prewarm == nil { // the workload's own command
		_, err := h.Command(ctx, "prewarm", co, p.f.threads, p.out)
		return err
	}
	pool, err := conn.Dial(ctx, co, p.f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	return h.Prewarm(ctx, pool, p.f.threads, p.out)
}

// check runs the workload's consistency checks.
func (p *pipeline) check(ctx context.Context, co conn.Options) error {
	pool, err := conn.Dial(ctx, co, p.f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	h := p.w.Hooks()
	if h.Validate != nil {
		if err := h.Validate(ctx, pool.DB(0), co.DB); err != nil {
			return err
		}
	}
	return h.Check(ctx, pool.DB(0), p.f.threads, p.notice)
}

// load is prepare: the dataset through the loader, or CSV files only.
func (p *pipeline) load(ctx context.Context, co conn.Options, h workload.Hooks) error {
	lo, err := p.f.load.Options(p.f.threads)
	if err != nil {
		return err
	}
	lo.Log, lo.Quiet, lo.Info, lo.Watch = p.out, !h.TableMessages, p.detail, p.exp.WatchLoad
	ds := p.w.Dataset()
	if p.f.load.Mode == "csv" {
		m, err := loader.WriteCSV(ctx, co.DB, ds, lo)
		if err != nil {
			return err
		}
		m.Summary(p.detail)
		return nil
	}
	rep, err := loader.Load(ctx, co, ds, lo)
	if err != nil {
		return err
	}
	rep.Summary(p.detail)
	if h.AfterLoad == nil {
		return nil
	}
	pool, err := conn.Dial(ctx, co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	return h.AfterLoad(ctx, pool.DB(0), p.out)
}

func (p *pipeline) cleanup(ctx context.Context, co conn.Options, h workload.Hooks) error {
	var dropping func(string)
	if h.Dropping != nil {
		dropping = func(table string) { h.Dropping(p.out, table) }
	}
	if err := loader.Drop(ctx, co, p.w.Dataset(), dropping); err != nil {
		return err
	}
	if h.Dropping == nil {
		fmt.Fprintf(p.out, "Dropped the %s tables of %s\n", workload.Describe(p.w.Name()).Title, co.DB)
	}
	return nil
}

// measure is one measured run at one thread count: its text report, and its
// result (also on stdout with --output=json).
func (p *pipeline) measure(ctx context.Context, co conn.Options, ignore conn.ErrorSet, c *cells.Cell, threads int) (*result.Result, error) {
	extra, extraCo, err := p.extraThreads(co)
	if err != nil {
		return nil, err
	}
	restore, err := runner.Tune(&co, p.f.netIO, threads+extra)
	if err != nil {
		return nil, err
	}
	defer restore()
	res := &result.Result{Format: result.Format, Tool: "oltpbench " + version, Workload: p.w.Name(),
		Options: flagValues(p.fs), Threads: threads, Dataset: p.w.Sizes(), Metric: p.w.Metric()}
	res.Client, _ = os.Hostname()
	cn, dialer, rec, done, err := p.connect(ctx, co, threads+extra, res)
	if err != nil {
		return nil, err
	}
	defer done()
	var extraCn runner.Connector
	if extraCo != nil && !p.ro.DryRun {
		extraCo.NetIO = co.NetIO
		pool, err := conn.Dial(ctx, *extraCo, extra)
		if err != nil {
			return nil, err
		}
		defer pool.Close()
		extraCn = pool
	}
	seed := p.ro.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	r, err := p.w.NewRun(workload.RunConfig{Threads: threads, Seed: uint64(seed), Record: rec, Options: &p.ro, Out: p.notice, Output: p.f.output, Dialer: dialer, Stdout: p.out})
	if err != nil {
		return nil, err
	}
	ops := r.Ops()
	r.Header()
	cfg := runner.Config{Threads: threads, Duration: p.ro.Time, Events: p.ro.Events, Rate: p.ro.Rate, QueueLength: p.spec.RateQueue, Warmup: p.ro.Warmup,
		ReportInterval: p.ro.ReportInterval, Checkpoints: p.ro.Checkpoints, Grace: p.ro.Grace, Ignore: ignore, Seed: seed,
		Extra: extra, ExtraConn: extraCn}
	var live *metrics.Run
	cfg.Watch = func(l *runner.Live) {
		var extra func() map[string]int64
		if wc, ok := r.(workload.Counters); ok {
			extra = wc.Counters
		}
		live = p.exp.StartRun(metrics.Labels{Workload: p.spec.Name, Test: p.w.Name(), Step: c.Series.Step, Threads: threads, Repeat: c.Repeat}, ops, l, extra)
	}
	fin, err := runner.Run(ctx, cfg, cn, r.NewWorker, hist.NewRegistry(ops, 8), recorder{r, res, ops})
	if err != nil {
		live.End(measure.Totals{}, nil, nil)
		// A failed run has no final report (as sysbench) and no result:
		// its figures would be compared as if it had run.
		return nil, runner.Explain(err, threads, p.ro.Rate, co.Password, p.spec.QueueFull)
	}
	res.Figures, res.NotApplicable = r.Final(fin)
	if err := res.SetFinal(fin, ops); err != nil {
		return nil, err
	}
	live.End(fin.Counts, fin.Hists, res.AllFigures())
	if p.f.output == "json" {
		if err := res.Encode(p.out); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// extraThreads are the threads a workload runs beside the level's
// (workload.Extra), with their connection options when they differ.
func (p *pipeline) extraThreads(co conn.Options) (int, *conn.Options, error) {
	x, ok := p.w.(workload.Extra)
	if !ok {
		return 0, nil, nil
	}
	return x.ExtraThreads(co)
}

// connect opens the run's connections and checks the dataset is there, and
// records the server and the dataset's record in res; a dry run has no
// server. A workload whose threads open their own connections gets a
// dialer and no connection, and the server and the dataset's record are
// read after the run (when it answers). done closes what it opened.
func (p *pipeline) connect(ctx context.Context, co conn.Options, threads int, res *result.Result) (cn runner.Connector, d conn.Dialer, rec map[string]string, done func(), err error) {
	own := p.w.Hooks().OwnConnections
	if p.ro.DryRun {
		res.Server.Version = "dry run (no server)"
		return conn.DryConnector{}, conn.DryConnector{}, map[string]string{}, func() {}, nil
	}
	if own {
		pool, err := conn.Open(co, threads)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return conn.NoConnector{}, pool, map[string]string{}, func() {
			sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			if pool.Ping(sctx) == nil {
				res.Server = conn.ServerInfo(sctx, pool)
				rec, _ := loader.ReadDataset(sctx, pool.DB(0))
				for k, v := range rec {
					res.Dataset[k] = v
				}
			}
			pool.Close()
		}, nil
	}
	pool, err := conn.Dial(ctx, co, threads)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if v := p.w.Hooks().Validate; v != nil {
		if err := v(ctx, pool.DB(0), co.DB); err != nil {
			pool.Close()
			return nil, nil, nil, nil, err
		}
	}
	res.Server = conn.ServerInfo(ctx, pool)
	rec, _ = loader.ReadDataset(ctx, pool.DB(0))
	for k, v := range rec {
		res.Dataset[k] = v
	}
	return pool, pool, rec, func() { pool.Close() }, nil
}

// recorder passes the runner's reports to the workload's text report and
// to the result file.
type recorder struct {
	workload.Run
	res *result.Result
	ops []string
}

func (r recorder) Interval(iv measure.Interval) {
	r.Run.Interval(iv)
	r.res.AddInterval(iv, r.ops)
}

// csv writes the workload's dataset as files, no server needed.
func (p *pipeline) csv(ctx context.Context, args []string) error {
	if err := p.setup("csv", args); err != nil {
		return err
	}
	lo, err := p.f.load.Options(p.f.threads)
	if err != nil {
		return err
	}
	lo.Log = p.out
	m, err := loader.WriteCSV(ctx, p.f.conn.DB, p.w.Dataset(), lo)
	if err != nil {
		return err
	}
	m.Summary(p.out)
	return nil
}

// atLevel is w when on, else a writer that drops everything (w itself, so a
// terminal stays a terminal for the progress display).
func atLevel(w io.Writer, on bool) io.Writer {
	if on {
		return w
	}
	return io.Discard
}
