package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/engine/plan"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func planCommand(inv workload.Invocation) *cobra.Command {
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
			pr := &planRunner{p: p, extra: extra, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr(), exp: exp, inv: inv}
			rh, err := pr.resetHooks()
			if err != nil {
				return err
			}
			return plan.Execute(ctx, p, cs, resultDir, pr.out, plan.Hooks{Dataset: pr.dataset, Warmup: pr.warmup, Measure: pr.measure, Progress: pr.progress, Reset: rh})
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
	return plan.Load(path, scale, known, pipeline.TimingFlags, func(args []string, command string) error {
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

// dataset prepares the plan's dataset when the database has none, resumes
// a load that was interrupted, and otherwise checks that the database holds
// the dataset the plan asks for.
func (pr *planRunner) dataset(ctx context.Context) error {
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, pr.out)
	if err != nil {
		return err
	}
	return p.Ensure(ctx, co, "the plan")
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

// warmup is the plan's warm-up, its lines on out.
func (pr *planRunner) warmup(ctx context.Context, out io.Writer) error {
	if pr.p.Warmup.Prewarm {
		p, co, err := pr.command(pr.p.DatasetArgs(true), "prewarm", true, out)
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
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
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
