package sysbench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/term"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/sysbench/hw"
)

// helpOpt is one line of sysbench's --help: the option, how its value is
// spelled, the text, and the default in brackets (none when nodef).
type helpOpt struct {
	name, typ, text, def string
	nodef                bool
}

// helpSection is a titled group of sysbench's --help.
type helpSection struct {
	title string // "" for an untitled group after a blank line
	opts  []helpOpt
	after string // printed after the options
}

// sysbenchHelp is sysbench 1.0.20's --help, section by section, as data.
// The pgsql driver is not oltpbench's, so its lines are left out.
var sysbenchHelp = []helpSection{
	{title: "General options:", opts: []helpOpt{
		{"threads", "N", "number of threads to use", "1", false},
		{"events", "N", "limit for total number of events", "0", false},
		{"time", "N", "limit for total execution time in seconds", "10", false},
		{"forced-shutdown", "STRING", "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable", "off", false},
		{"thread-stack-size", "SIZE", "size of stack per thread", "64K", false},
		{"rate", "N", "average transactions rate. 0 for unlimited rate", "0", false},
		{"report-interval", "N", "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports", "0", false},
		{"report-checkpoints", "[LIST,...]", "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default.", "", false},
		{"debug", "[=on|off]", "print more debugging info", "off", false},
		{"validate", "[=on|off]", "perform validation checks where possible", "off", false},
		{"help", "[=on|off]", "print help and exit", "off", false},
		{"version", "[=on|off]", "print version and exit", "off", false},
		{"config-file", "FILENAME", "File containing command line options", "", true},
		{"tx-rate", "N", "deprecated alias for --rate", "0", false},
		{"max-requests", "N", "deprecated alias for --events", "0", false},
		{"max-time", "N", "deprecated alias for --time", "0", false},
		{"num-threads", "N", "deprecated alias for --threads", "1", false},
	}},
	{title: "Pseudo-Random Numbers Generator options:", opts: []helpOpt{
		{"rand-type", "STRING", "random numbers distribution {uniform,gaussian,special,pareto}", "special", false},
		{"rand-spec-iter", "N", "number of iterations used for numbers generation", "12", false},
		{"rand-spec-pct", "N", "percentage of values to be treated as 'special' (for special distribution)", "1", false},
		{"rand-spec-res", "N", "percentage of 'special' values to use (for special distribution)", "75", false},
		{"rand-seed", "N", "seed for random number generator. When 0, the current time is used as a RNG seed.", "0", false},
		{"rand-pareto-h", "N", "parameter h for pareto distribution", "0.2", false},
	}},
	{title: "Log options:", opts: []helpOpt{
		{"verbosity", "N", "verbosity level {5 - debug, 0 - only critical messages}", "3", false},
	}},
	{opts: []helpOpt{
		{"percentile", "N", "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations", "95", false},
		{"histogram", "[=on|off]", "print latency histogram in report", "off", false},
	}},
	{title: "General database options:\n", opts: []helpOpt{
		{"db-driver", "STRING", "specifies database driver to use ('help' to get list of available drivers)", "mysql", false},
		{"db-ps-mode", "STRING", "prepared statements usage mode {auto, disable}", "auto", false},
		{"db-debug", "[=on|off]", "print database-specific debug information", "off", false},
	}, after: "\n\nCompiled-in database drivers:\n  mysql - MySQL driver\n"},
	{title: "mysql options:", opts: []helpOpt{
		{"mysql-host", "[LIST,...]", "MySQL server host", "localhost", false},
		{"mysql-port", "[LIST,...]", "MySQL server port", "3306", false},
		{"mysql-socket", "[LIST,...]", "MySQL socket", "", true},
		{"mysql-user", "STRING", "MySQL user", "sbtest", false},
		{"mysql-password", "STRING", "MySQL password", "", false},
		{"mysql-db", "STRING", "MySQL database name", "sbtest", false},
		{"mysql-ssl", "[=on|off]", "use SSL connections, if available in the client library", "off", false},
		{"mysql-ssl-cipher", "STRING", "use specific cipher for SSL connections", "", false},
		{"mysql-compression", "[=on|off]", "use compression, if available in the client library", "off", false},
		{"mysql-debug", "[=on|off]", "trace all client library calls", "off", false},
		{"mysql-ignore-errors", "[LIST,...]", "list of errors to ignore, or \"all\"", "1213,1020,1205", false},
		{"mysql-dry-run", "[=on|off]", "Dry run, pretend that all MySQL client API calls are successful without executing them", "off", false},
	}},
}

// printOpts prints options as sysbench does: "  --name=TYPE" padded to the
// longest in the group plus one space, the text, then "[default]".
func printOpts(w io.Writer, opts []helpOpt) {
	width := 0
	for _, o := range opts {
		width = max(width, len(o.spelled()))
	}
	for _, o := range opts {
		line := fmt.Sprintf("  %-*s %s", width, o.spelled(), o.text)
		if !o.nodef {
			line += " [" + o.def + "]"
		}
		fmt.Fprintln(w, line)
	}
}

func (o helpOpt) spelled() string {
	if strings.HasPrefix(o.typ, "[=") || strings.HasPrefix(o.typ, "=") {
		return "--" + o.name + o.typ
	}
	return "--" + o.name + "=" + o.typ
}

// printHelp is `oltpbench sysbench --help`: sysbench's sections, then, for
// a person (term.ForPerson: a terminal, or --notes), the options oltpbench
// adds, in the same layout.
func printHelp(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage:\n  sysbench [options]... [testname] [command]\n\n")
	fmt.Fprintf(w, "Commands implemented by most tests: prepare run cleanup help\n\n")
	known := map[string]bool{}
	for _, s := range sysbenchHelp {
		if s.title != "" {
			fmt.Fprintln(w, s.title)
		}
		printOpts(w, s.opts)
		for _, o := range s.opts {
			known[o.name] = true
		}
		if s.after != "" {
			fmt.Fprint(w, s.after)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Compiled-in tests:\n")
	for _, t := range hw.Tests {
		fmt.Fprintf(w, "  %s - %s\n", t.Name, t.Desc)
	}
	fmt.Fprintf(w, "\nSee 'sysbench <testname> help' for a list of options for each test.\n\n")
	// oltpbench's own options are for a person: a harness that reads
	// sysbench's --help sees sysbench's (as hints are shown).
	if f := fs.Lookup("notes"); !term.ForPerson(w, f != nil && f.Value.String() == "on") {
		return
	}
	for _, o := range Decl(&Options{}) {
		known[strings.ReplaceAll(o.Name, "_", "-")] = true
	}
	known["pgsql-variant"] = true
	var extra []helpOpt
	fs.VisitAll(func(f *pflag.Flag) {
		if known[f.Name] || f.Hidden {
			return
		}
		extra = append(extra, flagHelp(f))
	})
	sort.Slice(extra, func(i, j int) bool { return extra[i].name < extra[j].name })
	fmt.Fprintln(w, "oltpbench options (not in sysbench):")
	printOpts(w, extra)
	fmt.Fprintln(w)
}

// flagHelp spells a flag of oltpbench's own as a sysbench help line.
func flagHelp(f *pflag.Flag) helpOpt {
	typ := "STRING"
	switch f.Value.Type() {
	case "on|off":
		typ = "[=on|off]"
	case "N", "int", "int64", "uint64", "float64", "seconds", "duration":
		typ = "N"
	case "LIST":
		typ = "[LIST,...]"
	}
	def := f.DefValue
	if def == "[]" {
		def = ""
	}
	return helpOpt{name: f.Name, typ: typ, text: f.Usage, def: def}
}

// printTestHelp is `sysbench <test> help`: the test's options, as its Lua
// script declares them (with pgsql_variant, which oltpbench accepts and
// ignores); name is how the test was named on the command line.
func printTestHelp(w io.Writer, t *Test, name string) {
	def := Defaults()
	var opts []helpOpt
	for _, o := range Decl(&def) {
		if o.Name == "create_table_options" || o.Tests != nil && !contains(o.Tests, t.Name) {
			continue // oltpbench's own, or another test's
		}
		h := helpOpt{name: o.Name, text: o.Help}
		switch o.Kind {
		case OptBool:
			h.typ = "[=on|off]"
			h.def = map[bool]string{true: "on", false: "off"}[*o.Bool]
		case OptInt:
			h.typ = "N"
			if o.Int != nil {
				h.def = fmt.Sprint(*o.Int)
			} else {
				h.def = fmt.Sprint(*o.IntP)
			}
		case OptString:
			h.typ, h.def = "STRING", *o.String
		}
		opts = append(opts, h)
	}
	opts = append(opts, helpOpt{name: "pgsql_variant", typ: "STRING", nodef: true,
		text: "Use this PostgreSQL variant when running with the PostgreSQL driver. The only currently supported variant is 'redshift'. When enabled, create_secondary is automatically disabled, and delete_inserts is set to 0"})
	sort.Slice(opts, func(i, j int) bool { return opts[i].name < opts[j].name })
	fmt.Fprintf(w, "%s options:\n", filepath.Base(name))
	printOpts(w, opts)
	fmt.Fprintln(w)
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// Front answers what sysbench answers before it runs a command: --version,
// the banner, the test and command checks in sysbench's words, and
// `<test> help`.
func (s *suite) Front(inv workload.Invocation, args []string, fs *pflag.FlagSet, out io.Writer) (bool, error) {
	if s.version {
		fmt.Fprintf(out, "sysbench %s\n", Version)
		return true, nil
	}
	if len(args) > 2 {
		return false, &workload.Message{Text: "Unrecognized command line argument: " + args[2]}
	}
	// sysbench checks its general options before the banner; --threads here
	// also takes a list, a range, or a schedule within the run (16@60s,...).
	if th := fs.Lookup("threads"); th != nil && !threadsSpec.MatchString(th.Value.String()) {
		return false, &workload.Message{Text: fmt.Sprintf("Invalid value for the 'threads' option: '%s'", th.Value.String())}
	}
	// sysbench keeps --verbosity in a byte: -1 is 255, 261 is 5.
	if s.verbosity &= 0xff; s.verbosity > 5 {
		return false, &workload.Message{Text: fmt.Sprintf("Invalid value for verbosity: %d", s.verbosity)}
	}
	if s.verbosity >= 3 {
		PrintBanner(out, inv.ToolName())
	}
	if s.stdin || len(args) == 0 && !term.Is(os.Stdin) {
		return s.stdinFront(out)
	}
	if len(args) == 0 {
		return false, &workload.Message{Text: "oltpbench: name a test and a command, e.g. oltpbench sysbench oltp_read_write run (sysbench would read a Lua script from standard input)"}
	}
	return s.kind.front(args, out)
}

// Help is `oltpbench sysbench --help`.
func (s *suite) Help(w io.Writer, fs *pflag.FlagSet) { printHelp(w, fs) }

var threadsSpec = regexp.MustCompile(`^\d+(,\d+)*$|^\d+-\d+$|^(\d+(-\d+)?@[^,@]+)(,\d+(-\d+)?@[^,@]+)*$`)

// FlagError words a command-line error as sysbench does: an option it does
// not know or a test option's bad value is "invalid option: --foo=1" after
// the banner; a general option's bad value is "Invalid value for the
// 'threads' option: 'x'".
func (s *suite) FlagError(err error, inv workload.Invocation, out io.Writer) error {
	args := inv.Line
	fe, ok := options.ReadFlagError(err)
	if ok && fe.Unknown && strings.HasPrefix(fe.Flag, "--") {
		fmt.Fprint(out, bannerText(inv.ToolName()))
		// With its script on standard input sysbench checks no option.
		if test, _ := firstTest(args[min(1, len(args)):], s.fs); (test == "" || test == "-") && stdinScript(args) {
			_, err := s.stdinFront(out)
			return err
		}
		return &workload.Message{Text: "invalid option: " + rawArg(args, fe.Flag), Hint: "oltpbench: see oltpbench sysbench --help"}
	}
	if ok && !fe.Unknown {
		name := strings.TrimPrefix(fe.Flag, "--")
		for _, o := range Decl(&Options{}) {
			if strings.ReplaceAll(o.Name, "_", "-") == name {
				fmt.Fprint(out, bannerText(inv.ToolName()))
				return &workload.Message{Text: "invalid option: " + rawArg(args, "--"+name)}
			}
		}
		return &workload.Message{Text: fmt.Sprintf("Invalid value for the '%s' option: '%s'", name, fe.Value)}
	}
	return err
}

// rawArg finds the argument as typed (--foo=1, --skip_trx=5) for an option
// pflag names in its normal form.
func rawArg(args []string, flag string) string {
	norm := func(a string) string {
		n, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		return "--" + strings.ReplaceAll(n, "_", "-")
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--") && norm(a) == strings.ReplaceAll(flag, "_", "-") {
			return a
		}
	}
	return flag
}

// rewrite reads the deprecated options as sysbench does before it parses
// the command line: --test=PATH names the test (it goes first, where the
// test stands), and each deprecated alias given a value other than its
// default says what replaces it, in sysbench's order.
func rewrite(args []string, stdout, stderr io.Writer) []string {
	var test string
	var rest []string
	given := map[string]bool{}
	for i, a := range args {
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, _ := strings.Cut(a, "=")
		name = strings.ReplaceAll(name, "_", "-")
		if name == "--test" {
			test = value
			continue
		}
		for _, d := range deprecated {
			if name == "--"+d.old && value != d.def {
				given[d.old] = true
			}
		}
		rest = append(rest, a)
	}
	if test != "" {
		fmt.Fprintln(stderr, "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.")
		rest = append([]string{test}, rest...)
	}
	for _, d := range deprecated {
		if given[d.old] {
			fmt.Fprintf(stdout, "WARNING: --%s is deprecated, use --%s instead\n", d.old, d.new)
		}
	}
	return rest
}

// deprecated are sysbench's deprecated aliases, in the order it warns of
// them, with the default that draws no warning.
var deprecated = []struct{ old, new, def string }{
	{"num-threads", "threads", "1"}, {"max-requests", "events", "0"}, {"max-time", "time", "0"}, {"tx-rate", "rate", "0"},
}

// HelpOptionNames are the options of sysbench's --help (its pgsql driver's
// left out), as sysbench spells them.
func HelpOptionNames() []string {
	var out []string
	for _, s := range sysbenchHelp {
		for _, o := range s.opts {
			out = append(out, o.name)
		}
	}
	return append(out, "pgsql-variant")
}

// TestOptionNames are the OLTP tests' own options, spelled with '-'.
func TestOptionNames() []string {
	var out []string
	for _, o := range Decl(&Options{}) {
		out = append(out, strings.ReplaceAll(o.Name, "_", "-"))
	}
	return out
}

// NoOpOptions are the options accepted that do nothing here (sysbench's own
// no-ops, or nothing for them to act on in Go).
func NoOpOptions() []string { return slices.Clone(compatOptions) }
