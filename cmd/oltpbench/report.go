package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/compare"
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
				r, err := result.Read(a)
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
	var base, cand []string
	var baseName, candName, format, failOn string
	cmp := &cobra.Command{
		Use:   "compare --baseline DIR|FILES --candidate DIR|FILES [--format text|markdown|html]",
		Short: "two versions side by side: throughput and latency by threads, ratios, charts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(base) == 0 || len(cand) == 0 {
				return errors.New("compare needs --baseline and --candidate (folders or result files)")
			}
			limit := 0.0
			if failOn != "" {
				var err error
				if limit, err = compare.ParseFailOn(failOn); err != nil {
					return err
				}
			}
			b, err := compare.Load(base)
			if err != nil {
				return err
			}
			c, err := compare.Load(cand)
			if err != nil {
				return err
			}
			if baseName == "" {
				baseName = compare.LabelOf(b, "baseline")
			}
			if candName == "" {
				candName = compare.LabelOf(c, "candidate")
			}
			if baseName == candName {
				baseName, candName = baseName+" (baseline)", candName+" (candidate)"
			}
			bv, cv := compare.Version{Label: baseName, Results: b}, compare.Version{Label: candName, Results: c}
			tables, settings := compare.Build(bv, cv, describe), compare.Settings(bv, cv)
			if err := compare.Write(cmd.OutOrStdout(), format, baseName, candName, tables, settings); err != nil {
				return err
			}
			for _, t := range tables {
				for _, w := range t.Warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %s\n", t.Title, w)
				}
			}
			if bad := compare.Regressions(tables, limit); failOn != "" && len(bad) > 0 {
				return fmt.Errorf("regression beyond %s: %s", strings.TrimPrefix(failOn, "regression:"), strings.Join(bad, "; "))
			}
			return nil
		},
	}
	cmp.Flags().StringSliceVar(&base, "baseline", nil, "result files or folders of the baseline version")
	cmp.Flags().StringSliceVar(&cand, "candidate", nil, "result files or folders of the candidate version")
	cmp.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a cell's throughput fell significantly by more than this, e.g. regression:5% (for CI pipelines)")
	cmp.Flags().StringVar(&baseName, "baseline-name", "", "label of the baseline (default: its server version)")
	cmp.Flags().StringVar(&candName, "candidate-name", "", "label of the candidate (default: its server version)")
	cmp.Flags().StringVar(&format, "format", "text", "text, markdown or html")
	show := &cobra.Command{
		Use:   "show result.json",
		Short: "print one result",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := result.Read(args[0])
			if err != nil {
				return err
			}
			return compare.Show(cmd.OutOrStdout(), r)
		},
	}
	cmd.AddCommand(merge, cmp, show)
	return cmd
}

// describe is the registry's description of a result, for reports.
func describe(resultName string) compare.Description {
	return compare.Description(workload.Describe(resultName))
}
