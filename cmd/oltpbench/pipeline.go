package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/gcpace"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
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
}

func newPipeline(spec workload.Spec, fs *pflag.FlagSet) *pipeline {
	p := &pipeline{spec: spec, w: spec.New(), fs: fs}
	fs.SetNormalizeFunc(options.Normalize(spec.Aliases))
	p.f.registerWorkload(fs, spec.DefaultDB, spec.Threads, spec.ThreadsHelp, spec.Retry, spec.RetryHelp)
	p.w.Flags(fs, &p.ro)
	return p
}

// workloadCommand is `oltpbench NAME [args] COMMAND`.
func workloadCommand(spec workload.Spec) *cobra.Command {
	var p *pipeline
	cmd := &cobra.Command{
		Use:   spec.Name + " " + spec.Use,
		Short: spec.Short,
		Long:  spec.Long,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The config file counts as typed first: it may set --verbosity.
			if err := p.applyConfig(); err != nil {
				return err
			}
			if fr, ok := p.w.(workload.Front); ok {
				done, err := fr.Front(args, cmd.Flags(), cmd.OutOrStdout())
				if done || err != nil {
					return err
				}
			}
			if len(args) != spec.Args+1 {
				return fmt.Errorf("expected %s, got %q: e.g. %s", strings.TrimSuffix(spec.Use, " [options]"), strings.Join(args, " "), spec.Example)
			}
			p.out, p.warn = cmd.OutOrStdout(), cmd.ErrOrStderr()
			ctx, stop := interruptible()
			defer stop()
			return p.drive(ctx, args[len(args)-1], args[:len(args)-1])
		},
	}
	p = newPipeline(spec, cmd.Flags())
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
	return append(c, "cleanup")
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
	s := &workload.Setup{Command: command, Args: args, Threads: p.f.threads, ThreadsSet: p.fs.Changed("threads"), Seed: p.f.seed, Verbosity: 3}
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
	if p.f.threads < 1 {
		return fmt.Errorf("invalid --threads=%d: must be at least 1", p.f.threads)
	}
	return nil
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
	cmds := p.commands(h)
	known := false
	for _, c := range cmds {
		known = known || c == command
	}
	if !known {
		return fmt.Errorf("unknown command %q: use %s or %s", command, strings.Join(cmds[:len(cmds)-1], ", "), cmds[len(cmds)-1])
	}
	if err := p.setup(command, args); err != nil {
		return err
	}
	if outputs := append([]string{"text", "json"}, p.spec.Outputs...); !slices.Contains(outputs, p.f.output) {
		return fmt.Errorf("invalid --output=%s: use %s", p.f.output, strings.Join(outputs, ", "))
	}
	co, err := p.f.connOptions(p.fs)
	if err != nil {
		return err
	}
	if p.ro.DryRun && command != "run" {
		return fmt.Errorf("--mysql-dry-run applies to run only: %s needs a server", command)
	}
	switch command {
	case "prepare":
		if h.BeforeLoad != nil {
			h.BeforeLoad(p.notice)
		}
		return p.load(ctx, co, h)
	case "cleanup":
		return p.cleanup(ctx, co, h)
	case "prewarm", "check":
		pool, err := conn.Open(co, p.f.threads)
		if err != nil {
			return err
		}
		defer pool.Close()
		if err := pool.Ping(ctx); err != nil {
			return err
		}
		if command == "prewarm" {
			return h.Prewarm(ctx, pool, p.f.threads, p.out)
		}
		if h.Validate != nil {
			if err := h.Validate(ctx, pool.DB(0), co.DB); err != nil {
				return err
			}
		}
		return h.Check(ctx, pool.DB(0), p.f.threads, p.notice)
	}
	ignore, err := conn.ParseErrorSet(p.f.ignoreErrors)
	if err != nil {
		return err
	}
	return p.f.lv.runLevels(ctx, p.notice, p.w.Name(), p.f.resultFile, func(threads int, file string) (*result.Result, error) {
		return p.run(ctx, co, h, ignore, threads, file)
	})
}

// load is prepare: the dataset through the loader, or CSV files only.
func (p *pipeline) load(ctx context.Context, co conn.Options, h workload.Hooks) error {
	lo, err := p.f.loaderOptions()
	if err != nil {
		return err
	}
	lo.Log, lo.Quiet, lo.Info = p.out, !h.TableMessages, p.detail
	ds := p.w.Dataset()
	if p.f.loadMode == "csv" {
		m, err := loader.WriteCSV(ctx, co.DB, ds, lo)
		if err != nil {
			return err
		}
		printManifest(p.detail, m, m.Location())
		return nil
	}
	rep, err := loader.Load(ctx, co, ds, lo)
	if err != nil {
		return err
	}
	rep.Summary(p.detail)
	return nil
}

func printManifest(out io.Writer, m *loader.Manifest, dir string) {
	var files, rows int64
	for _, t := range m.Tables {
		files += int64(len(t.Files))
		rows += t.Rows
	}
	fmt.Fprintf(out, "Wrote %d rows in %d CSV files to %s: %s-manifest.json lists them; %s-import.sql holds IMPORT INTO statements\n", rows, files, dir, m.DB, m.DB)
}

func (p *pipeline) cleanup(ctx context.Context, co conn.Options, h workload.Hooks) error {
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
	// Tables may reference each other (foreign keys): drop in any order.
	if _, err := c.ExecContext(ctx, "SET foreign_key_checks = 0"); err != nil {
		return err
	}
	var names []string
	for _, t := range p.w.Dataset().Tables {
		names = append(names, t.Name)
	}
	for _, n := range append(names, loader.RecordTables...) {
		if h.Dropping != nil {
			h.Dropping(p.out, n)
		}
		if _, err := c.ExecContext(ctx, "DROP TABLE IF EXISTS "+n); err != nil {
			return fmt.Errorf("dropping %s: %v", n, err)
		}
	}
	if h.Dropping == nil {
		fmt.Fprintf(p.out, "Dropped the %s tables of %s\n", workload.Describe(p.w.Name()).Title, co.DB)
	}
	return nil
}

// run is one measured run at one thread count.
func (p *pipeline) run(ctx context.Context, co conn.Options, h workload.Hooks, ignore conn.ErrorSet, threads int, file string) (*result.Result, error) {
	restore, err := planRun(&co, p.f.netIO, threads)
	if err != nil {
		return nil, err
	}
	defer restore()
	res := &result.Result{Format: result.Format, Tool: "oltpbench " + version, Workload: p.w.Name(),
		Options: flagValues(p.fs), Threads: threads, Dataset: p.w.Sizes(), Metric: p.w.Metric()}
	res.Client, _ = os.Hostname()
	var cn runner.Connector = conn.DryConnector{}
	rec := map[string]string{}
	if p.ro.DryRun {
		res.Server.Version = "dry run (no server)"
	} else {
		pool, err := conn.Open(co, threads)
		if err != nil {
			return nil, err
		}
		defer pool.Close()
		if err := pool.Ping(ctx); err != nil {
			return nil, err
		}
		if h.Validate != nil {
			if err := h.Validate(ctx, pool.DB(0), co.DB); err != nil {
				return nil, err
			}
		}
		res.Server = serverInfo(ctx, pool)
		rec, _ = loader.ReadDataset(ctx, pool.DB(0))
		for k, v := range rec {
			res.Dataset[k] = v
		}
		cn = pool
	}
	seed := p.ro.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	r, err := p.w.NewRun(workload.RunConfig{Threads: threads, Seed: uint64(seed), Record: rec, Options: &p.ro, Out: p.notice, Output: p.f.output})
	if err != nil {
		return nil, err
	}
	ops := r.Ops()
	r.Header()
	cfg := runner.Config{Threads: threads, Duration: p.ro.Time, Events: p.ro.Events, Rate: p.ro.Rate, Warmup: p.ro.Warmup,
		ReportInterval: p.ro.ReportInterval, Checkpoints: p.ro.Checkpoints, Grace: p.ro.Grace, Ignore: ignore, Seed: seed}
	fin, runErr := runner.Run(ctx, cfg, cn, r.NewWorker, hist.NewRegistry(ops, 8), recorder{r, res, ops})
	// A failed run has no final report (as sysbench) and no result file:
	// its figures would be compared as if it had run.
	if fin != nil && runErr == nil {
		res.Figures = r.Final(fin)
		if err := res.SetFinal(fin, ops); err != nil {
			return nil, err
		}
		if file != "" {
			if err := res.Write(file); err != nil {
				return nil, err
			}
		}
		if p.f.output == "json" {
			if err := res.Encode(p.out); err != nil {
				return nil, err
			}
		}
	}
	if errors.Is(runErr, runner.ErrQueueFull) {
		return nil, &workload.Message{Text: runErr.Error(), Hint: fmt.Sprintf("oltpbench: %d threads cannot keep up with --rate=%s: lower --rate or raise --threads", threads, strconv.FormatFloat(p.ro.Rate, 'f', -1, 64))}
	}
	if runErr != nil {
		var fe *runner.FatalError
		if errors.As(runErr, &fe) {
			if n := conn.Number(fe.Err); n != 0 && !conn.IsLost(fe.Err) {
				return nil, fmt.Errorf("%v (not in --mysql-ignore-errors; add %d to ignore it)", conn.Redact(fe.Err.Error(), co.Password), n)
			}
		}
		return nil, errors.New(conn.Redact(runErr.Error(), co.Password))
	}
	return res, nil
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

func serverInfo(ctx context.Context, pool *conn.Pool) result.Server {
	s := result.Server{}
	for _, ep := range pool.Endpoints() {
		s.Endpoints = append(s.Endpoints, ep.String())
	}
	db := pool.DB(0)
	_ = db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.Version)
	s.Variables = map[string]string{}
	queryRows(ctx, db, "SHOW GLOBAL VARIABLES", func(v []string) {
		if len(v) >= 2 {
			s.Variables[v[0]] = hideSecret(v[0], v[1])
		}
	})
	if strings.Contains(strings.ToLower(s.Version), "tidb") {
		_ = db.QueryRowContext(ctx, "SELECT tidb_version()").Scan(&s.TiDBVersion)
		queryRows(ctx, db, "SHOW CONFIG", func(v []string) {
			if len(v) >= 4 {
				s.Config = append(s.Config, result.Setting{Type: v[0], Instance: v[1], Name: v[2], Value: hideSecret(v[2], v[3])})
			}
		})
		queryRows(ctx, db, "SELECT type, instance, version, git_hash, start_time FROM information_schema.cluster_info", func(v []string) {
			if len(v) >= 5 {
				s.Topology = append(s.Topology, result.Node{Type: v[0], Instance: v[1], Version: v[2], GitHash: v[3], Start: v[4]})
			}
		})
	}
	return s
}

func hideSecret(name, value string) string {
	if value != "" && result.SecretSetting(name) {
		return result.Hidden
	}
	return value
}

// queryRows runs an informational query; a server without it (or without
// the privilege) leaves the field empty rather than failing the run.
func queryRows(ctx context.Context, db *sql.DB, q string, row func([]string)) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if rows.Scan(ptrs...) != nil {
			return
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = v.String
		}
		row(out)
	}
}

// csv writes the workload's dataset as files, no server needed.
func (p *pipeline) csv(ctx context.Context, args []string) error {
	if err := p.setup("csv", args); err != nil {
		return err
	}
	lo, err := p.f.loaderOptions()
	if err != nil {
		return err
	}
	lo.Log = p.out
	m, err := loader.WriteCSV(ctx, p.f.db, p.w.Dataset(), lo)
	if err != nil {
		return err
	}
	printManifest(p.out, m, m.Location())
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
