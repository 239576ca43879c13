package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/fleet"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/engine/plan"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/report/compare"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func planCommand(inv workload.Invocation) *cobra.Command {
	cmd := &cobra.Command{Use: "plan", Short: "run a whole qualification from a plan file: dataset, warm-up, steps x levels x repeats, resumable"}
	var scale float64
	var resultDir string
	var mf metrics.Flags
	var versions []string
	var failOn string
	var failOnBound bool
	var ff fleetFlags
	show := &cobra.Command{
		Use:   "show PLAN [--scale=X]",
		Short: "print the cells of a plan and its total time, without running anything",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, cells, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			plan.Show(cmd.OutOrStdout(), p, cells)
			if p.Versions != nil {
				fmt.Fprintln(cmd.OutOrStdout(), plan.DescribeVersions(p, cells))
			}
			return nil
		},
	}
	show.Flags().Float64Var(&scale, "scale", 0, "multiply the plan's durations and scaled sizes by this (0: the plan's own scale)")
	runCmd := &cobra.Command{
		Use:   "run PLAN --result-dir DIR [--scale=X] [-- options for every command, e.g. --mysql-host=...]",
		Short: "run every cell of a plan, one result file each; run it again to finish an interrupted plan",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			extra := args[1:]
			if d := cmd.ArgsLenAtDash(); d != 1 && len(args) > 1 {
				return fmt.Errorf("unexpected %q: options for every command go after --, e.g. plan run PLAN --result-dir DIR -- --mysql-port=3306", args[1])
			}
			if resultDir == "" {
				return errors.New("plan run needs --result-dir DIR: its cells' results go there, and a second run resumes from it")
			}
			if err := ff.check(); err != nil {
				return err
			}
			p, cs, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("versions") {
				if err := p.SetVersions(versions); err != nil {
					return err
				}
			}
			limit, err := parseFailOn(failOn, p)
			if err != nil {
				return err
			}
			for _, a := range extra {
				if plan.ReservedArg(a) {
					return fmt.Errorf("%s after -- is the plan's to set: change the plan, or give it to plan run before --", a)
				}
				if len(p.More) > 0 && (strings.HasPrefix(a, "--mysql-db=") || a == "--mysql-db") {
					return fmt.Errorf("%s after --: the plan's datasets name their databases (mysql-db in each one's options): leave it out", a)
				}
			}
			if ff.clients > 1 && mf.Client == "" {
				host, _ := os.Hostname()
				mf.Client = fmt.Sprintf("%s-client%d", host, ff.index) // each client's series of its own
			}
			exp, err := mf.Open()
			if err != nil {
				return err
			}
			defer exp.Close()
			ctx, stop := interruptible()
			defer stop()
			pr := &planRunner{p: p, extra: extra, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), exp: exp, inv: inv}
			rh, err := pr.resetHooks()
			if err != nil {
				return err
			}
			h := plan.Hooks{Dataset: pr.dataset, Warmup: pr.warmup, Measure: pr.measure, Capacity: pr.capacity, Headroom: pr.headroom, Progress: pr.progress, Reset: rh}
			execute := func() error {
				if p.Versions == nil {
					return plan.Execute(ctx, p, cs, resultDir, pr.out, h)
				}
				h.Versions = plan.VersionHooks{Ready: pr.ready, Report: func(ctx context.Context, dir string, dirs, labels []string, out io.Writer) error {
					return versionsReport(dir, dirs, labels, out, pr.errw, failOn, limit, failOnBound)
				}}
				return plan.ExecuteVersions(ctx, p, cs, resultDir, pr.out, h)
			}
			if ff.clients == 1 {
				return execute()
			}
			pr.extra = rotateServers(pr.extra, ff.index)
			id, err := planID(args[0], scale)
			if err != nil {
				return err
			}
			if ff.index > 0 {
				return pr.follow(ctx, ff, id)
			}
			_, port, _ := net.SplitHostPort(ff.leader)
			l, err := fleet.Listen(":"+port, ff.clients, id)
			if err != nil {
				return err
			}
			defer l.Close()
			fmt.Fprintf(pr.out, "Leader of %d clients on port %s: waiting for clients 1..%d to join\n", ff.clients, port, ff.clients-1)
			if err := l.WaitJoined(ctx, ff.joinTimeout); err != nil {
				return err
			}
			fmt.Fprintf(pr.out, "Every client joined\n")
			pr.shared = &shared{l: l, clients: ff.clients, dir: resultDir}
			h.Measure = pr.measureShared
			err = execute()
			why := ""
			if err != nil {
				why = strings.SplitN(err.Error(), "\n", 2)[0]
			}
			l.Finish(why, 5*time.Second)
			return err
		},
	}
	ff.register(runCmd.Flags())
	runCmd.Flags().StringSliceVar(&versions, "versions", nil, "run these versions of the plan's [versions] (comma-separated, in release order) instead of its list")
	runCmd.Flags().BoolVar(&failOnBound, "fail-on-client-bound", false, "with --fail-on, also count cells a version ran client-bound (left out by default: their verdicts measure the client)")
	runCmd.Flags().StringVar(&failOn, "fail-on", "", "a plan with [versions]: exit 1 when a cell's throughput fell significantly by more than this from the previous version to the last, e.g. regression:5%")
	runCmd.Flags().Float64Var(&scale, "scale", 0, "multiply the plan's durations and scaled sizes by this (0: the plan's own scale)")
	mf.Register(runCmd.Flags())
	runCmd.Flags().StringVar(&resultDir, "result-dir", "", "folder for the cells' result files; running the plan again into it redoes only the unfinished cells")
	cmd.AddCommand(show, runCmd)
	return cmd
}

// loadPlan reads a plan, every step's command line checked by its
// workload's own option checks.
func loadPlan(path string, scale float64) (*plan.Plan, []*cells.Cell, error) {
	known := plan.Workloads{}
	for _, s := range workload.All() {
		known[s.Name] = s.Args
	}
	return plan.Load(path, scale, known, pipeline.TimingFlags, func(args []string, command string) error {
		if kind, ok := strings.CutPrefix(command, "search:"); ok {
			spec, _ := workload.Lookup(args[0])
			if spec.Capacity == nil {
				return fmt.Errorf("%s has no capacity search: remove search", args[0])
			}
			if kind != spec.Capacity.Unit {
				return fmt.Errorf("search = %q: %s searches %s", kind, args[0], spec.Capacity.Unit)
			}
			_, err := pipeline.Configure(args, "search")
			return err
		}
		if command == "reimport" {
			p, err := pipeline.Configure(args, "prepare")
			if err == nil && len(p.Workload().Dataset().Tables) == 0 {
				err = fmt.Errorf("%s makes its own dataset", args[0])
			}
			return err
		}
		p, err := pipeline.Configure(args, command)
		if err == nil && command == "prewarm" && !slices.Contains(p.Commands(), "prewarm") {
			err = fmt.Errorf("%s has no prewarm", args[0])
		}
		return err
	})
}

// planRunner gives a plan run its workload's parts: the dataset, the
// warm-up and the cells' measurements, through the workload's pipeline.
type planRunner struct {
	inv   workload.Invocation // the plan's command, which its cells run as
	p     *plan.Plan
	extra []string // options for every command (the connection)
	out   io.Writer
	errw  io.Writer
	exp   *metrics.Exporter // --metrics-addr: one endpoint for the whole plan
	// shared, on the leader of a plan on several clients, hands each cell's
	// shares to the followers.
	shared *shared
}

// progress tells the plan's metrics where the plan is.
func (pr *planRunner) progress(done, total int, c *cells.Cell, eta time.Duration) {
	if c == nil {
		pr.exp.PlanProgress(done, total, "", 0, 0, 0)
		return
	}
	pr.exp.PlanProgress(done, total, c.Series.Step, c.Threads, c.Repeat, eta)
}

// command parses a workload command line with the options for every
// command and checks it for command; its reports go to out. With front,
// the workload's front runs first (sysbench's banner), as on the command
// line.
func (pr *planRunner) command(args []string, command string, front bool, out io.Writer) (*pipeline.Pipeline, conn.Options, error) {
	p, err := pipeline.Parse(append(append([]string(nil), args...), pr.extra...), command, out, pr.errw, pr.inv)
	if err != nil {
		return nil, conn.Options{}, err
	}
	p.SetExporter(pr.exp)
	positional := p.Args()
	if front {
		if _, err := p.Front(append(positional, command)); err != nil {
			return nil, conn.Options{}, err
		}
	}
	co, err := p.Begin(command, positional)
	return p, co, err
}

// measure runs a cell at one thread count: the cell's command line through
// the workload's pipeline, in this process, described as a command line's
// cells are.
func (pr *planRunner) measure(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
	p, co, err := pr.command(c.Args(), "run", true, out)
	if err != nil {
		return nil, err
	}
	r, err := p.Describe(co, c, threads)
	if err != nil {
		return nil, err
	}
	return p.Measure(ctx, r)
}

// capacity runs a plan step's capacity search: the workload's search
// command on the cell's command line, its probes' results in dir.
func (pr *planRunner) capacity(ctx context.Context, c *cells.Cell, dir string, out io.Writer) error {
	p, err := pipeline.Parse(append(append(c.Args(), "--"+result.FlagResultDir+"="+dir), pr.extra...), "search", out, pr.errw, pr.inv)
	if err != nil {
		return err
	}
	p.SetExporter(pr.exp)
	return p.Drive(ctx, "search", p.Args())
}

// headroom runs a plan step's headroom: its workload's run at the step's
// level (a share of the highest level its search passed, read from the
// probes' results), then the workload's checks.
func (pr *planRunner) headroom(ctx context.Context, c *cells.Cell, dir string, out io.Writer) (*result.Result, error) {
	h := c.Series.Headroom
	spec, _ := workload.Lookup(c.Args()[0])
	capy := spec.Capacity
	if capy == nil {
		return nil, fmt.Errorf("%s has no capacity search: headroom needs one", spec.Name)
	}
	n := h.Units
	if n == 0 {
		best := 0
		files, _ := filepath.Glob(filepath.Join(dir, h.From, "*.json"))
		for _, f := range files {
			r, err := result.ReadWith(f, workload.Upgrade)
			if err != nil || r.Interrupted {
				continue
			}
			if ok, _ := capy.Verdict(r); ok {
				level, _ := strconv.Atoi(r.Options[capy.Active])
				best = max(best, level)
			}
		}
		if best == 0 {
			return nil, fmt.Errorf("headroom: the search in %s passed at no level", h.From)
		}
		n = max(1, int(h.Share*float64(best)))
		fmt.Fprintf(out, "Headroom: %d %s, %g of the %d the search in %s passed\n", n, capy.Unit, h.Share, best, h.From)
	}
	p, co, err := pr.command(append(c.Args(), fmt.Sprintf("--%s=%d", capy.Active, n)), "run", true, out)
	if err != nil {
		return nil, err
	}
	run, err := p.Describe(co, c, n*capy.ThreadsPer)
	if err != nil {
		return nil, err
	}
	r, err := p.Measure(ctx, run)
	if err != nil || ctx.Err() != nil {
		return r, err
	}
	check, err := pipeline.Parse(append(c.Args(), pr.extra...), "check", out, pr.errw, pr.inv)
	if err != nil {
		return nil, err
	}
	if err := check.Drive(ctx, "check", check.Args()); err != nil {
		return nil, fmt.Errorf("the checks after the headroom run: %w", err)
	}
	return r, nil
}

// dataset prepares the plan's dataset when the database has none, resumes
// a load that was interrupted, and otherwise checks that the database holds
// the dataset the plan asks for.
func (pr *planRunner) dataset(ctx context.Context) error {
	for _, ds := range pr.p.Datasets() {
		p, co, err := pr.command(pr.p.ArgsOf(ds), "prepare", false, pr.out)
		if err != nil {
			return err
		}
		if err := p.Ensure(ctx, co, "the plan"); err != nil {
			return err
		}
	}
	return nil
}

// resetHooks are the steps' resets' parts: the dataset remade and checked
// through its workload's pipeline, a command's connection.
func (pr *planRunner) resetHooks() (plan.ResetHooks, error) {
	_, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
	if err != nil {
		return plan.ResetHooks{}, err
	}
	return plan.ResetHooks{
		Remake: func(ctx context.Context, kind, from string, out io.Writer) error {
			p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, out)
			if err != nil {
				return err
			}
			if kind == plan.ResetReimport {
				return p.Reimport(ctx, co, from, "the plan")
			}
			return p.Reload(ctx, co, "the plan")
		},
		Fresh: func(ctx context.Context) (string, error) {
			p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
			if err != nil {
				return "", err
			}
			return p.Fresh(ctx, co, "the plan")
		},
		Env: co.CommandEnv(),
	}, nil
}

// ready asks the server for its version once, within ctx: a deployed
// version answers.
func (pr *planRunner) ready(ctx context.Context) (string, error) {
	_, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
	if err != nil {
		return "", err
	}
	co.DB = "" // a new version's server may not have the database yet
	pool, err := conn.Open(co, 1)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	var v string
	if err := pool.DB(0).QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", err
	}
	return v, nil
}

// parseFailOn reads plan run's --fail-on, which needs [versions].
func parseFailOn(failOn string, p *plan.Plan) (float64, error) {
	if failOn == "" {
		return 0, nil
	}
	if p.Versions == nil {
		return 0, errors.New("--fail-on compares versions: give the plan a [versions] table, or compare plan runs with oltpbench report compare --fail-on")
	}
	return compare.ParseFailOn(failOn)
}

// versionsReport is a versions plan's report compare of all versions in
// release order: text on out, markdown and HTML beside the results, and
// the --fail-on gate.
func versionsReport(dir string, dirs, labels []string, out, errw io.Writer, failOn string, limit float64, failOnBound bool) error {
	vs, err := compareVersions(dirs, nil, nil, labels, "", "")
	if err != nil {
		return err
	}
	rep := compare.New(vs, describe)
	rep.FailOnClientBound = failOnBound
	fmt.Fprintf(out, "\n=== report compare of %s (also in %s and %s)\n\n", strings.Join(labels, ", "),
		filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
	if err := rep.Write(out, "text"); err != nil {
		return err
	}
	for name, format := range map[string]string{"report.md": "markdown", "report.html": "html"} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
	}
	for _, t := range rep.Tables {
		for _, w := range t.Warnings {
			fmt.Fprintf(errw, "warning: %s: %s\n", t.Title, w)
		}
	}
	if bad := rep.Regressions(limit); failOn != "" && len(bad) > 0 {
		return fmt.Errorf("regression beyond %s: %s", strings.TrimPrefix(failOn, "regression:"), strings.Join(bad, "; "))
	}
	return nil
}

// warmup is the plan's warm-up, its lines on out.
func (pr *planRunner) warmup(ctx context.Context, out io.Writer) error {
	for _, ds := range pr.p.Datasets() {
		if err := pr.warmupOf(ctx, ds, out); err != nil {
			return err
		}
	}
	return nil
}

func (pr *planRunner) warmupOf(ctx context.Context, ds *plan.Dataset, out io.Writer) error {
	if pr.p.Warmup.Prewarm {
		p, co, err := pr.command(pr.p.ArgsOf(ds), "prewarm", true, out)
		if err != nil {
			return err
		}
		if err := p.Prewarm(ctx, co); err != nil {
			return err
		}
	}
	if !pr.p.Warmup.Analyze {
		return nil
	}
	p, co, err := pr.command(pr.p.ArgsOf(ds), "prepare", false, io.Discard)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := p.Analyze(ctx, co)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Warm-up: ANALYZE TABLE on %d tables in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
