// Command oltpbench runs OLTP benchmarks (a drop-in sysbench OLTP suite,
// TPC-C) against MySQL-protocol databases, and loads their datasets fast.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/profile"
	"github.com/oltpbench/oltpbench/internal/term"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "0.1.0-dev"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole command line: output goes to the writers given, errors
// are one line on stderr, and the result is the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	// The command, passed down to every workload: storage keys in a --dir
	// URL never reach a message.
	inv := workload.Invocation{Tool: "oltpbench " + version, Line: make([]string, len(args))}
	for i, a := range args {
		inv.Line[i] = loader.RedactURL(a)
	}
	args = rewrite(args, stdout, stderr)
	root := newRoot(args, inv)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	defer pprof.StopCPUProfile() // a command that failed has not stopped it
	if err := root.Execute(); err != nil {
		var m *workload.Message
		if errors.As(err, &m) && m.Error() == err.Error() { // the peer's words, nothing added on the way
			printMessage(stderr, m, args)
			return 1
		}
		msg := err.Error()
		if fe, ok := options.ReadFlagError(err); ok {
			msg = fe.Words("see --help")
		}
		fmt.Fprintln(stderr, "oltpbench: "+loader.RedactURL(msg))
		return 1
	}
	return 0
}

// newRoot is the command tree for the command line args (after rewrite)
// of the command inv: a workload's command reads its own arguments before
// cobra parses them. The reference in docs/reference is generated from it.
func newRoot(args []string, inv workload.Invocation) *cobra.Command {
	root := &cobra.Command{
		Use:               "oltpbench",
		Short:             "OLTP benchmarks for MySQL-protocol databases (TiDB, MySQL, MariaDB)",
		SilenceUsage:      true,
		SilenceErrors:     true,
		Version:           version,
		DisableAutoGenTag: true,
	}
	var prof profile.Flags
	prof.Register(root.PersistentFlags())
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return prof.Start() }
	root.PersistentPostRunE = func(*cobra.Command, []string) error { return prof.Stop() }
	for _, s := range workload.All() {
		root.AddCommand(workloadCommand(s, argsAfter(args, s.Name), inv))
	}
	root.AddCommand(csvCommand(args, inv), importCommand(), reportCommand(), planCommand(inv), bisectCommand(inv))
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.HasSubCommands() && !c.Runnable() {
			group(c)
		}
	}
	return root
}

// group makes c, a command of subcommands only, refuse an unknown
// subcommand in one line naming the valid ones, exit 1 (cobra prints the
// help and exits 0 for a group below the root, so a misspelt subcommand in
// a script would pass for run); with no argument it prints its help.
func group(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2 // cobra's own default, which it applies only at the root
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		msg := fmt.Sprintf("unknown command %q for %q: use %s or %s", args[0], c.CommandPath(),
			strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += " (did you mean " + s[0] + "?)"
		}
		return errors.New(msg)
	}
}

// argsAfter is the command line after "NAME" (or "csv NAME") when the
// command line is NAME's, else nil.
func argsAfter(args []string, name string) []string {
	if len(args) > 0 && args[0] == "csv" {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == name {
		return args[1:]
	}
	return nil
}

// interruptible is a context that Ctrl-C and SIGTERM end, so runs report
// what they measured.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// printMessage prints a peer tool's message as the peer does, then
// oltpbench's hint only for a person (term.ForPerson: stderr a terminal, or
// --notes): a script or harness reading the output sees the peer's lines.
func printMessage(w io.Writer, m *workload.Message, args []string) {
	fmt.Fprintln(w, loader.RedactURL(m.Text))
	if m.Hint != "" && term.ForPerson(w, notes(args)) {
		fmt.Fprintln(w, loader.RedactURL(m.Hint))
	}
}

// notes is the last --notes[=on|off] of the command line (off when none):
// the error came before the options were read.
func notes(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--notes" {
			on = true
		} else if v, ok := strings.CutPrefix(a, "--notes="); ok {
			if b, err := options.ParseBool(v); err == nil {
				on = b
			}
		}
	}
	return on
}

// rewrite gives the command line after a workload's name to the workload's
// Rewrite, if it has one.
func rewrite(args []string, stdout, stderr io.Writer) []string {
	if len(args) == 0 {
		return args
	}
	s, ok := workload.Lookup(args[0])
	if !ok || s.Peer.Rewrite == nil {
		return args
	}
	return append([]string{args[0]}, s.Peer.Rewrite(args[1:], stdout, stderr)...)
}
