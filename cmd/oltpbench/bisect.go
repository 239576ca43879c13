package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/engine/bisect"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/engine/plan"
	"github.com/oltpbench/oltpbench/internal/report/compare"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func bisectCommand(inv workload.Invocation) *cobra.Command {
	var scale float64
	var resultDir, step, versionsFile string
	var versions []string
	var maxRepeats int
	cmd := &cobra.Command{
		Use:   "bisect PLAN --result-dir DIR [--step NAME] [--versions A,...|--versions-file F] [-- options for every command]",
		Short: "find the first bad build between a good one and a bad one: the plan's [versions] deploy each build, one step decides",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			extra := args[1:]
			if d := cmd.ArgsLenAtDash(); d != 1 && len(args) > 1 {
				return fmt.Errorf("unexpected %q: options for every command go after --, e.g. bisect PLAN --result-dir DIR -- --mysql-port=3306", args[1])
			}
			if resultDir == "" {
				return errors.New("bisect needs --result-dir DIR: each build's results go into DIR/<build>/, and a second bisect resumes from them")
			}
			p, _, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			if p.Versions == nil {
				return fmt.Errorf("%s has no [versions]: bisect deploys each build with the plan's [versions] deploy (and restore)", args[0])
			}
			switch {
			case versionsFile != "" && len(versions) > 0:
				return errors.New("give the builds with --versions or --versions-file, not both")
			case versionsFile != "":
				b, err := os.ReadFile(versionsFile)
				if err != nil {
					return fmt.Errorf("cannot read --versions-file: %w", err)
				}
				versions = strings.Fields(string(b))
				fallthrough
			case len(versions) > 0:
				if err := p.SetVersions(versions); err != nil {
					return err
				}
			}
			builds := p.Versions.List
			if len(builds) < 2 {
				return fmt.Errorf("bisect needs at least two builds, the first known good and the last known bad; the list has %d", len(builds))
			}
			series, err := bisectSeries(p, step)
			if err != nil {
				return err
			}
			if n := compare.MinRepeats(); series.Repeats < n {
				return fmt.Errorf("step %q has repeats = %d: bisect decides by the U test, which needs at least %d repeats per build: raise repeats", series.Step, series.Repeats, n)
			}
			repeats := series.Repeats
			maxRepeats = max(maxRepeats, repeats)
			series.Repeats = maxRepeats // the cells of every run a build may get
			cs := cells.Expand([]*cells.Series{series})
			for _, a := range extra {
				if plan.ReservedArg(a) {
					return fmt.Errorf("%s after -- is the plan's to set: change the plan", a)
				}
			}
			ctx, stop := interruptible()
			defer stop()
			out := cmd.OutOrStdout()
			pr := &planRunner{p: p, extra: extra, out: out, errw: cmd.ErrOrStderr(), inv: inv}
			rh, err := pr.resetHooks()
			if err != nil {
				return err
			}
			m := plan.NewMatrix(p, resultDir, out, plan.Hooks{Dataset: pr.dataset, Warmup: pr.warmup, Measure: pr.measure, Reset: rh,
				Versions: plan.VersionHooks{Ready: pr.ready}})
			unit := "throughput"
			measure := func(ctx context.Context, build string, repeat int) (float64, string, error) {
				c := cs[repeat-1]
				if err := m.Run(ctx, plan.Visit{Version: build, Cells: []*cells.Cell{c}}); err != nil {
					return 0, "", err
				}
				if ctx.Err() != nil {
					return 0, "", ctx.Err()
				}
				r, err := result.ReadWith(filepath.Join(m.Dir(build), c.File), workload.Upgrade)
				if err != nil {
					return 0, "", err
				}
				v, u := r.Throughput()
				unit = u
				return v, u, nil
			}
			judge := func(base, cand []float64) bisect.Verdict {
				s := compare.Judge(base, cand)
				return bisect.Verdict{Ratio: s.Ratio, Lo: s.Lo, Hi: s.Hi, P: s.P, Significant: s.Significant, Text: s.String(unit)}
			}
			fmt.Fprintf(out, "Step %s decides: %s\n", series.Step, strings.Join(cs[0].Args(), " "))
			o, err := bisect.Run(ctx, bisect.Config{Builds: builds, Repeats: repeats, MaxRepeats: maxRepeats, Step: series.Step,
				Measure: measure, Judge: judge, Out: out})
			if cerr := m.Close(ctx); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			var b bytes.Buffer
			o.Table(&b)
			if o.Regression {
				fmt.Fprintf(out, "\nLast good: %s\nFirst bad: %s\n", o.LastGood.Build, o.FirstBad.Build)
			}
			fmt.Fprintf(out, "\n%s", b.String())
			if err := os.WriteFile(filepath.Join(resultDir, "bisect.md"), b.Bytes(), 0o644); err != nil {
				return fmt.Errorf("cannot write the table: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&scale, "scale", 0, "multiply the plan's durations and scaled sizes by this (0: the plan's own scale)")
	cmd.Flags().StringVar(&resultDir, "result-dir", "", "folder for each build's results (DIR/<build>/); a second bisect into it reuses them")
	cmd.Flags().StringVar(&step, "step", "", "the plan's step that decides (default: the plan's only step)")
	cmd.Flags().StringSliceVar(&versions, "versions", nil, "the builds in order, the first known good, the last known bad (default: the plan's [versions] list)")
	cmd.Flags().StringVar(&versionsFile, "versions-file", "", "a file of the builds in order, one per line (git log --reverse --format=%h GOOD^..BAD)")
	cmd.Flags().IntVar(&maxRepeats, "max-repeats", 10, "runs of a build whose repeats side with neither end, at most; then the closer median decides")
	return cmd
}

// bisectSeries is the step that decides a bisection, at one thread level.
func bisectSeries(p *plan.Plan, step string) (*cells.Series, error) {
	if step == "" {
		if len(p.Steps) != 1 {
			var names []string
			for _, s := range p.Steps {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("the plan has %d steps: give --step, one of %s", len(p.Steps), strings.Join(names, ", "))
		}
		step = p.Steps[0].Name
	}
	for _, s := range p.Series(pipeline.TimingFlags) {
		if s.Step != step {
			continue
		}
		if s.Search != nil || len(s.Threads) != 1 {
			return nil, fmt.Errorf("step %q: bisect decides on one thread level: give the step threads = [N] (not a search or a list)", step)
		}
		return s, nil
	}
	return nil, fmt.Errorf("the plan has no step %q", step)
}
