package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/cells"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/plan"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

func planCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "plan", Short: "run a whole qualification from a plan file: dataset, warm-up, steps x levels x repeats, resumable"}
	var scale float64
	var resultDir string
	var mf metrics.Flags
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
			p, cs, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			for _, a := range extra {
				if plan.ReservedArg(a) {
					return fmt.Errorf("%s after -- is the plan's to set: change the plan, or give it to plan run before --", a)
				}
			}
			exp, err := mf.Open()
			if err != nil {
				return err
			}
			defer exp.Close()
			ctx, stop := interruptible()
			defer stop()
			pr := &planRunner{p: p, extra: extra, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), exp: exp}
			return plan.Run(ctx, p, cs, resultDir, pr.out, plan.Hooks{Dataset: pr.dataset, Warmup: pr.warmup, Measure: pr.measure, Progress: pr.progress})
		},
	}
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
	return plan.Load(path, scale, known, timingFlags, func(args []string, command string) error {
		p, err := configure(args, command)
		switch {
		case err != nil:
		case command == "prewarm" && p.w.Hooks().Prewarm == nil && !slices.Contains(p.w.Hooks().Commands, "prewarm"):
			err = fmt.Errorf("%s has no prewarm", args[0])
		}
		return err
	})
}

// parse reads a workload command line (workload [test] options) for
// command into a pipeline as its command would, writing to out and warn.
func parse(args []string, command string, out, warn io.Writer) (*pipeline, error) {
	spec, ok := workload.Lookup(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", args[0])
	}
	fs := pflag.NewFlagSet(spec.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p := newPipeline(spec, fs, append(args[1:len(args):len(args)], command))
	p.out, p.warn = out, warn
	if err := fs.Parse(args[1:]); err != nil {
		fe, _ := options.ReadFlagError(err)
		fe.Unknown = true // every parse error here says where the options are
		return nil, errors.New(fe.Words("see oltpbench " + spec.Name + " --help"))
	}
	return p, nil
}

// configure parses a workload command line and runs the workload's checks,
// without a server.
func configure(args []string, command string) (*pipeline, error) {
	p, err := parse(args, command, io.Discard, io.Discard)
	if err != nil {
		return nil, err
	}
	if err := p.setup(command, p.fs.Args()); err != nil {
		return nil, workload.OneLine(err)
	}
	return p, nil
}

// timingFlags names the flags a workload binds to the run's time and
// warm-up (--time, and --warmup-time or --ramp), as its Flags declared them.
func timingFlags(name string) (timeFlag, warmupFlag string) {
	spec, _ := workload.Lookup(name)
	p := newPipeline(spec, pflag.NewFlagSet(name, pflag.ContinueOnError), nil)
	return p.ro.TimeFlag, p.ro.WarmupFlag
}

// planRunner gives a plan run its workload's parts: the dataset, the
// warm-up and the cells' measurements, through the workload's pipeline.
type planRunner struct {
	p     *plan.Plan
	extra []string // options for every command (the connection)
	out   io.Writer
	errw  io.Writer
	exp   *metrics.Exporter // --metrics-addr: one endpoint for the whole plan
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
func (pr *planRunner) command(args []string, command string, front bool, out io.Writer) (*pipeline, conn.Options, error) {
	p, err := parse(append(append([]string(nil), args...), pr.extra...), command, out, pr.errw)
	if err != nil {
		return nil, conn.Options{}, err
	}
	p.exp = pr.exp
	positional := p.fs.Args()
	if front {
		if _, err := p.front(append(positional, command)); err != nil {
			return nil, conn.Options{}, err
		}
	}
	co, err := p.begin(command, positional)
	return p, co, err
}

// measure runs a cell at one thread count: the cell's command line through
// the workload's pipeline, in this process.
func (pr *planRunner) measure(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
	p, co, err := pr.command(c.Args(), "run", true, out)
	if err != nil {
		return nil, err
	}
	ignore, err := conn.ParseErrorSet(p.f.ignoreErrors)
	if err != nil {
		return nil, err
	}
	return p.measure(ctx, co, ignore, c, threads)
}

// dataset prepares the plan's dataset when the database has none, resumes
// a load that was interrupted, and otherwise checks that the database holds
// the dataset the plan asks for.
func (pr *planRunner) dataset(ctx context.Context) error {
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, pr.out)
	if err != nil {
		return err
	}
	return loader.EnsureDataset(ctx, co, p.w.Dataset(), "the plan", pr.out, func(resume bool) error {
		p.f.load.Resume = resume
		if _, err := p.front(append(p.fs.Args(), "prepare")); err != nil {
			return err
		}
		return p.prepare(ctx, co)
	}, func(command string) error {
		_, err := p.w.Hooks().Command(ctx, command, co, p.f.threads, pr.out)
		return err
	})
}

func (pr *planRunner) warmup(ctx context.Context) error {
	if pr.p.Warmup.Prewarm {
		p, co, err := pr.command(pr.p.DatasetArgs(true), "prewarm", true, pr.out)
		if err != nil {
			return err
		}
		if err := p.prewarm(ctx, co); err != nil {
			return err
		}
	}
	if !pr.p.Warmup.Analyze {
		return nil
	}
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := loader.AnalyzeDataset(ctx, co, p.w.Dataset(), 2)
	if err != nil {
		return err
	}
	fmt.Fprintf(pr.out, "Warm-up: ANALYZE TABLE on %d tables in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
