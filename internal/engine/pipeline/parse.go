package pipeline

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Parse reads a workload command line (workload [test] options) for
// command into a pipeline as its command would, writing to out and warn;
// inv is the command that runs it.
func Parse(args []string, command string, out, warn io.Writer, inv workload.Invocation) (*Pipeline, error) {
	spec, ok := workload.Lookup(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", args[0])
	}
	fs := pflag.NewFlagSet(spec.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p := New(spec, fs, append(args[1:len(args):len(args)], command), inv)
	p.SetOutput(out, warn)
	if err := fs.Parse(args[1:]); err != nil {
		fe, _ := options.ReadFlagError(err)
		fe.Unknown = true // every parse error here says where the options are
		return nil, fmt.Errorf("%s", fe.Words("see oltpbench "+spec.Name+" --help"))
	}
	return p, nil
}

// Configure parses a workload command line and runs the workload's
// checks, without a server.
func Configure(args []string, command string) (*Pipeline, error) {
	p, err := Parse(args, command, io.Discard, io.Discard, workload.Invocation{})
	if err != nil {
		return nil, err
	}
	if command == "search" { // its probes are runs, and its own options are checked
		if err := p.setup("run", p.fs.Args()); err != nil {
			return nil, workload.OneLine(err)
		}
		return p, p.checkSearch()
	}
	if err := p.setup(command, p.fs.Args()); err != nil {
		return nil, workload.OneLine(err)
	}
	if err := p.f.checkRun(); err != nil {
		return nil, err
	}
	return p, nil
}

// TimingFlags names the flags a workload binds to the run's time,
// warm-up and rate (--time, --warmup-time or --ramp, --rate), as its Flags
// declared them ("" for none).
func TimingFlags(name string) (timeFlag, warmupFlag, rateFlag string) {
	spec, _ := workload.Lookup(name)
	p := New(spec, pflag.NewFlagSet(name, pflag.ContinueOnError), nil, workload.Invocation{})
	return p.ro.TimeFlag, p.ro.WarmupFlag, p.ro.RateFlag
}
