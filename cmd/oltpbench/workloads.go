package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	_ "github.com/oltpbench/oltpbench/ch" // the registered workloads: a new workload is a package and a line here
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/workload"
	_ "github.com/oltpbench/oltpbench/kv"
	_ "github.com/oltpbench/oltpbench/sysbench"
	_ "github.com/oltpbench/oltpbench/tpcc"
	_ "github.com/oltpbench/oltpbench/tpch"
	_ "github.com/oltpbench/oltpbench/ycsb"
)

// workloadCommand is `oltpbench NAME [args] COMMAND`: the workload's flags
// on a pipeline, its help and parse errors as the workload declares them.
func workloadCommand(spec workload.Spec, args []string, inv workload.Invocation) *cobra.Command {
	var p *pipeline.Pipeline
	cmd := &cobra.Command{
		Use:   spec.Name + " " + spec.Use,
		Short: spec.Short,
		Long:  spec.Long,
		RunE: func(cmd *cobra.Command, args []string) error {
			p.SetOutput(cmd.OutOrStdout(), cmd.ErrOrStderr())
			if done, err := p.Front(args); done || err != nil {
				return err
			}
			if len(args) != spec.Args+1 {
				return fmt.Errorf("expected %s, got %q: e.g. %s", strings.TrimSuffix(spec.Use, " [options]"), strings.Join(args, " "), spec.Example)
			}
			exp, err := p.Metrics().Open()
			if err != nil {
				return err
			}
			defer exp.Close()
			p.SetExporter(exp)
			ctx, stop := interruptible()
			defer stop()
			return p.Drive(ctx, args[len(args)-1], args[:len(args)-1])
		},
	}
	p = pipeline.New(spec, cmd.Flags(), args, inv)
	h := p.Workload().Hooks()
	if h.Peer.Help != nil {
		cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { h.Peer.Help(c.OutOrStdout(), c.Flags()) })
	}
	if h.Peer.FlagError != nil {
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return h.Peer.FlagError(err, inv, c.OutOrStdout()) })
	}
	return cmd
}
