package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/report/compare"
	"github.com/oltpbench/oltpbench/internal/report/series"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func reportCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "report", Short: "merge, compare and show result files"}
	merge := &cobra.Command{
		Use:   "merge a.json b.json ... > merged.json",
		Short: "combine one run's results from several client machines exactly",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rs []*result.Result
			for _, a := range args {
				r, err := result.ReadWith(a, workload.Upgrade)
				if err != nil {
					return err
				}
				rs = append(rs, r)
			}
			m, err := result.Merge(rs)
			if err != nil {
				return err
			}
			return m.Encode(cmd.OutOrStdout())
		},
	}
	var base, cand, names []string
	var baseName, candName, format, failOn string
	var failOnBound, why bool
	cmp := &cobra.Command{
		Use:   "compare A B [C ...] | --baseline DIR|FILES --candidate DIR|FILES [--format text|markdown|html]",
		Short: "versions side by side, oldest first: throughput and latency by threads, ratios, verdicts, where it got worse, charts",
		RunE: func(cmd *cobra.Command, args []string) error {
			limit := 0.0
			if failOn != "" {
				var err error
				if limit, err = compare.ParseFailOn(failOn); err != nil {
					return err
				}
			}
			vs, err := compareVersions(args, base, cand, names, baseName, candName)
			if err != nil {
				return err
			}
			rep := compare.New(vs, describe)
			rep.FailOnClientBound, rep.Why = failOnBound, why
			if err := rep.Write(cmd.OutOrStdout(), format); err != nil {
				return err
			}
			for _, t := range rep.Tables {
				for _, w := range t.Warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %s\n", t.Title, w)
				}
			}
			if bad := rep.Regressions(limit); failOn != "" && len(bad) > 0 {
				return fmt.Errorf("regression beyond %s: %s", strings.TrimPrefix(failOn, "regression:"), strings.Join(bad, "; "))
			}
			return nil
		},
	}
	cmp.Flags().StringSliceVar(&base, "baseline", nil, "result files or folders of the baseline version (the two-version form)")
	cmp.Flags().StringSliceVar(&cand, "candidate", nil, "result files or folders of the candidate version (the two-version form)")
	cmp.Flags().StringSliceVar(&names, "names", nil, "labels of the versions, in order, comma-separated (default: each one's server version, else its folder's name)")
	cmp.Flags().BoolVar(&why, "why", false, "the server's evidence (statements, counters per event) for every adjacent pair of versions of every cell, not only where it got worse")
	cmp.Flags().BoolVar(&failOnBound, "fail-on-client-bound", false, "with --fail-on, also count cells a version ran client-bound (left out by default: their verdicts measure the client)")
	cmp.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a cell's throughput fell significantly by more than this from the previous version to the last, e.g. regression:5% (for CI pipelines)")
	cmp.Flags().StringVar(&baseName, "baseline-name", "", "label of the baseline (default: its server version)")
	cmp.Flags().StringVar(&candName, "candidate-name", "", "label of the candidate (default: its server version)")
	cmp.Flags().StringVar(&format, "format", "text", "text, markdown or html")
	show := &cobra.Command{
		Use:   "show result.json",
		Short: "print one result",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := result.ReadWith(args[0], workload.Upgrade)
			if err != nil {
				return err
			}
			return compare.Show(cmd.OutOrStdout(), r)
		},
	}
	cmd.AddCommand(merge, cmp, show, historyCommand())
	return cmd
}

// historyCommand is report history: every run under the folders as series,
// one per cell, and where each series' level changed.
func historyCommand() *cobra.Command {
	var format, order, failOn, since, versionsFile string
	var versions []string
	var confidence float64
	var minRuns int
	var failOnBound bool
	cmd := &cobra.Command{
		Use:   "history DIR... [--format text|markdown|html] [--fail-on change:N%]",
		Short: "runs over time (a nightly's), one series per cell: where each level changed, and the builds on either side",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			limit := 0.0
			if failOn != "" {
				var err error
				if limit, err = series.ParseFailOn(failOn); err != nil {
					return err
				}
			}
			from, err := series.ParseSince(since, time.Now())
			if err != nil {
				return err
			}
			if versionsFile != "" {
				if len(versions) > 0 {
					return errors.New("give the builds' order with --versions or --versions-file, not both")
				}
				b, err := os.ReadFile(versionsFile)
				if err != nil {
					return fmt.Errorf("cannot read --versions-file: %w", err)
				}
				versions = strings.Fields(string(b))
			}
			if len(versions) > 0 && order == "time" && !cmd.Flags().Changed("order") {
				order = "version"
			}
			rep, err := series.Build(args, series.Options{Order: order, Versions: versions, Since: from, Describe: describe,
				Upgrade: workload.Upgrade, Confidence: confidence, MinSize: minRuns})
			if err != nil {
				return err
			}
			if err := rep.Write(cmd.OutOrStdout(), format); err != nil {
				return err
			}
			if bad := rep.Gate(limit, failOnBound); failOn != "" && len(bad) > 0 {
				return fmt.Errorf("change beyond %s: %s", strings.TrimPrefix(failOn, "change:"), strings.Join(bad, "; "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, markdown (a last success / first regression table) or html (each series drawn, its changes marked)")
	cmd.Flags().StringVar(&order, "order", "time", "time (the runs' start) or version (the builds' names, numbers as numbers; or --versions' order)")
	cmd.Flags().StringSliceVar(&versions, "versions", nil, "the builds in order (implies --order=version); runs of other builds are left out and named")
	cmd.Flags().StringVar(&versionsFile, "versions-file", "", "a file of the builds in order, one per line (git log --reverse --format=%h)")
	cmd.Flags().StringVar(&since, "since", "", "only the runs started since: a date (2026-11-01), a time (RFC 3339) or a span back from now (30d)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a series' newest level is worse than the one before by more than this, e.g. change:5% (for nightly CI)")
	cmd.Flags().BoolVar(&failOnBound, "fail-on-client-bound", false, "with --fail-on, also judge the client-bound runs (left out by default: they measure the client)")
	cmd.Flags().Float64Var(&confidence, "confidence", 0.99, "how sure a change must be, 0.5 to 0.999: its permutation test's p-value at most 1 - this")
	cmd.Flags().IntVar(&minRuns, "min-runs", 3, "the fewest runs on each side of a change")
	return cmd
}

// describe is the registry's description of a result, for reports.
func describe(resultName string) compare.Description {
	return compare.Description(workload.Describe(resultName))
}

// compareVersions reads the versions of report compare: each argument is
// one (a folder or a result file, oldest first), or --baseline and
// --candidate are two. Labels come from --names (--baseline-name and
// --candidate-name), else each version's server; versions that would share
// a label are told apart by their paths' names.
func compareVersions(args, base, cand, names []string, baseName, candName string) ([]compare.Version, error) {
	paired := len(base) > 0 || len(cand) > 0
	var sets [][]string
	switch {
	case paired && len(args) > 0:
		return nil, errors.New("compare takes versions either as arguments (A B C ...) or as --baseline and --candidate, not both")
	case paired && (len(base) == 0 || len(cand) == 0):
		return nil, errors.New("compare needs both --baseline and --candidate (folders or result files), or the versions as arguments: oltpbench report compare A B [C ...]")
	case paired:
		sets = [][]string{base, cand}
	case len(args) < 2:
		return nil, errors.New("compare needs two or more versions, oldest first: oltpbench report compare A B [C ...] (folders or result files), or --baseline and --candidate")
	default:
		for _, a := range args {
			sets = append(sets, []string{a})
		}
	}
	if len(names) > 0 && len(names) != len(sets) {
		return nil, fmt.Errorf("--names has %d labels for %d versions: give one per version, in order", len(names), len(sets))
	}
	if paired && (baseName != "" || candName != "") {
		if len(names) > 0 {
			return nil, errors.New("use --names or --baseline-name/--candidate-name, not both")
		}
		names = []string{baseName, candName}
	} else if !paired && (baseName != "" || candName != "") {
		return nil, errors.New("--baseline-name and --candidate-name go with --baseline and --candidate; name versions given as arguments with --names")
	}
	vs := make([]compare.Version, len(sets))
	for i, set := range sets {
		rs, err := compare.Load(set, workload.Upgrade)
		if err != nil {
			return nil, err
		}
		vs[i] = compare.Version{Results: rs}
		if i < len(names) && names[i] != "" {
			vs[i].Label = names[i]
		}
	}
	fallback := func(i int) string {
		if paired {
			return [2]string{"baseline", "candidate"}[i]
		}
		return filepath.Base(filepath.Clean(sets[i][0]))
	}
	for i := range vs {
		if vs[i].Label == "" {
			vs[i].Label = compare.LabelOf(vs[i].Results, fallback(i))
		}
	}
	// Versions of one server (settings or machines compared) share a
	// label: the paths' names (the roles, for the two-version form) tell
	// them apart, and a position where those repeat too.
	count := map[string]int{}
	for _, v := range vs {
		count[v.Label]++
	}
	for i := range vs {
		if count[vs[i].Label] > 1 && (i >= len(names) || names[i] == "") {
			if paired {
				vs[i].Label += [2]string{" (baseline)", " (candidate)"}[i]
			} else {
				vs[i].Label = fallback(i)
			}
		}
	}
	seen := map[string]bool{}
	for i := range vs {
		if seen[vs[i].Label] {
			vs[i].Label = fmt.Sprintf("%s #%d", vs[i].Label, i+1)
		}
		seen[vs[i].Label] = true
	}
	return vs, nil
}
