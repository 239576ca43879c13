package sysbench

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"
	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/term"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/sysbench/script"
)

// A test that is not one of the native tests, or a path, is a Lua script:
// it runs in the embedded Lua with sysbench's API (package script), and
// everything around it (report, run modes, results) is the native tests'.

// firstTest is the test argument of a sysbench command line (the first
// positional one) and its command (the last, when there are two). The value
// of a flag given as "--flag value" is not positional: fs says which flags
// take one.
func firstTest(args []string, fs *pflag.FlagSet) (test, command string) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a != "-" && strings.HasPrefix(a, "-") { // "-" is standard input
			if options.TakesValue(fs, a) {
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return "", ""
	}
	if len(pos) > 1 {
		command = pos[len(pos)-1]
	}
	return pos[0], command
}

// isNative says whether a test argument names a native test.
func isNative(name string) bool {
	_, ok := tests[name]
	return ok || name == "oltp_common"
}

// Declare finds and loads the script a command line names, and adds the
// options it declares that the native tests do not have. A script that
// declares none takes any option, as sysbench lets 0.5-era scripts read
// theirs (--oltp-table-size=N as the global oltp_table_size). A script on
// standard input ("-", or no test at all) is read when the command runs
// (Front), not here.
func (s *suite) Declare(args []string, fs *pflag.FlagSet) {
	test, command := firstTest(args, fs)
	switch {
	case test == "":
		return
	case test == "-":
		s.stdin = true
		declareAny(args, fs)
		return
	case !script.IsPath(test) && (isNative(test) || s.declareHW(test, fs)):
		return
	}
	path, err := script.Find(test)
	var sc *script.Script
	if err == nil {
		if command == "csv" {
			command = "prepare"
		}
		sc, err = script.Load(path, command)
	}
	if err != nil {
		s.scriptErr = err
		return
	}
	s.script, s.fs = sc, fs
	if len(sc.Options) == 0 {
		declareAny(args, fs)
	}
	for _, name := range sc.OptionNames() {
		flag := strings.ReplaceAll(name, "_", "-")
		if fs.Lookup(flag) != nil {
			continue
		}
		o := sc.Options[name]
		if o.Type == script.ArgBool {
			fs.String(flag, o.Default, o.Help)
			fs.Lookup(flag).NoOptDefVal = "on"
			continue
		}
		fs.String(flag, o.Default, o.Help)
	}
}

// scriptValues is sysbench.opt: every option by its sysbench name, a
// script's own typed as sysbench types it, the others by their flag's type.
func (s *suite) scriptValues() (map[string]lua.LValue, error) {
	m := map[string]lua.LValue{}
	var err error
	s.fs.VisitAll(func(f *pflag.Flag) {
		name := strings.ReplaceAll(f.Name, "-", "_")
		if f.Name == "mysql-password" {
			return
		}
		v := f.Value.String()
		if o, ok := s.script.Options[name]; ok {
			lv, e := o.Value(name, v, f.Changed)
			switch {
			case e != nil && err == nil && o.Type == script.ArgBool: // sysbench's parser refuses it
				err = &workload.Message{Text: "invalid option: --" + f.Name + "=" + v}
			case e != nil && err == nil:
				err = &workload.Message{Text: e.Error()}
			}
			m[name] = lv
			return
		}
		switch f.Value.Type() {
		case "bool", "on|off":
			m[name] = lua.LBool(v == "true" || v == "on")
		case "string", "stringSlice", "stringArray":
			m[name] = lua.LString(v)
		default:
			if n, e := strconv.ParseFloat(v, 64); e == nil {
				m[name] = lua.LNumber(n)
			} else {
				m[name] = lua.LString(v)
			}
		}
	})
	m["threads"] = lua.LNumber(s.o.Threads)
	return m, err
}

// scriptConfig is what the script's states are made from.
func (s *suite) scriptConfig(seed uint64, out io.Writer) (script.Config, error) {
	opt, err := s.scriptValues()
	if err != nil {
		return script.Config{}, err
	}
	dists, err := script.Dists(s.randType, s.randSpecIter, s.randSpecPct, s.randSpecRes, s.randParetoH, s.randZipfExp)
	if err != nil {
		return script.Config{}, err
	}
	ignore, err := conn.ParseErrorSet([]string{s.fs.Lookup("mysql-ignore-errors").Value.String()})
	if err != nil {
		return script.Config{}, err
	}
	return script.Config{Opt: opt, Dists: dists, Seed: seed, Prepared: s.o.PreparedStmts, Ignore: ignore, Out: out, Driver: s.dbDriver}, nil
}

// scriptCommand runs a script's commands (prepare, cleanup, prewarm, its
// own) in a pool of threads; the script connects when it asks to, so a
// command that never does needs no server.
func (s *suite) scriptCommand(ctx context.Context, name string, co conn.Options, threads int, out io.Writer) (bool, error) {
	cfg, err := s.scriptConfig(uint64(max(s.ro.Seed, 1)), out)
	if err != nil {
		return true, err
	}
	pool, err := conn.Open(co, threads)
	if err != nil {
		return true, err
	}
	defer pool.Close()
	cfg.Dialer = countingDialer{pool, &s.connected}
	if err := s.script.Command(ctx, name, cfg, threads); err != nil {
		return true, &workload.Message{Text: "FATAL: " + err.Error()}
	}
	return true, nil
}

// scriptDataset is a script's dataset: no tables (its prepare makes them),
// described by the script and the values of its own options, so a plan
// tells a dataset prepared by another script or with other sizes.
func (s *suite) scriptDataset() dataset.Dataset {
	meta := map[string]string{"dataset_script_sha256": s.script.SHA256}
	opt, _ := s.scriptValues()
	for _, name := range s.script.OptionNames() {
		switch v := opt[name].(type) {
		case *lua.LTable:
			meta[name] = joinList(v)
		case lua.LBool:
			meta[name] = map[bool]string{true: "on", false: "off"}[bool(v)]
		default:
			meta[name] = lua.LVAsString(v)
		}
	}
	return dataset.Dataset{Workload: "sysbench " + s.script.Name + ".lua", Meta: meta}
}

// joinList writes a list option as it is given, comma-separated.
func joinList(t *lua.LTable) string {
	var b strings.Builder
	for i := 1; i <= t.Len(); i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(lua.LVAsString(t.RawGetInt(i)))
	}
	return b.String()
}

// scriptCommands are a script's own commands, sorted.
func (s *suite) scriptCommands() []string {
	var c []string
	for n := range s.script.Commands {
		c = append(c, n)
	}
	sort.Strings(c)
	return c
}

// newScriptRun binds the script to a run.
func (s *suite) newScriptRun(c workload.RunConfig, rep *Report) (*script.Run, error) {
	out := c.Stdout
	if out == nil {
		out = c.Out
	}
	cfg, err := s.scriptConfig(c.Seed, out)
	if err != nil {
		return nil, err
	}
	cfg.Dialer, cfg.Notice = c.Dialer, c.Out
	cfg.Threads, cfg.Reports = s.o.Threads, rep
	return s.script.NewRun(cfg)
}

// checkScript checks a script's options, and that a run has an event.
func (s *suite) checkScript(command string) error {
	if _, err := s.scriptValues(); err != nil {
		return err
	}
	if command == "run" && !s.script.Has["event"] {
		return &workload.Message{Text: fmt.Sprintf("FATAL: cannot find the event() function in %s", s.script.Path)}
	}
	return nil
}

// scriptFront is Front for a script: where it was not found, the Lua error
// that stopped it, what its main chunk printed, and the commands sysbench
// answers itself: none (the main chunk only), help, and those the script
// does not implement.
func (s *suite) scriptFront(args []string, out io.Writer) (bool, error) {
	var nf *script.NotFoundError
	switch {
	case errors.As(s.scriptErr, &nf):
		return false, &workload.Message{Text: fmt.Sprintf("FATAL: Cannot find benchmark '%s': no such built-in test, file or module", args[0]),
			Hint: "oltpbench: looked in " + strings.Join(nf.Looked, ", ") + "; the built-in tests are " + strings.Join(Names(), ", ")}
	case s.scriptErr != nil:
		var le *script.LoadError
		if errors.As(s.scriptErr, &le) {
			fmt.Fprint(out, le.Printed)
		}
		return false, &workload.Message{Text: "FATAL: " + s.scriptErr.Error()}
	}
	s.script.Printed.WriteTo(out)
	if len(args) == 1 {
		return true, nil // sysbench runs the script's body and stops
	}
	notImplemented := &workload.Message{Text: fmt.Sprintf("'%s' test does not implement the '%s' command.", args[0], args[1])}
	switch c := args[1]; {
	case c == "help" && s.script.Has["help"]:
		opt, err := s.scriptValues()
		if err != nil {
			return false, err
		}
		if err := s.script.Help(out, opt); err != nil {
			return false, &workload.Message{Text: "FATAL: " + err.Error()}
		}
		return true, nil
	case c == "help" && len(s.script.Options) > 0:
		printScriptHelp(out, s.script)
		return true, nil
	case c == "help":
		return false, notImplemented
	case s.script.Commands[c], c == "run":
		return false, nil
	case c == "prepare", c == "cleanup", c == "prewarm", c == "warmup":
		if s.script.Has[c] {
			return false, nil
		}
		return false, notImplemented
	}
	return false, &workload.Message{Text: "Unknown command: " + args[1]}
}

// printScriptHelp is `<script> help` for a script without a help
// function: its options as sysbench lists them.
func printScriptHelp(w io.Writer, sc *script.Script) {
	fmt.Fprintf(w, "%s options:\n", sc.Name+".lua")
	sc.PrintOptions(w)
}

// declareAny adds the options of a command line that no flag has, as
// strings ("on" when given without a value), for a script that declares no
// options of its own.
func declareAny(args []string, fs *pflag.FlagSet) {
	for _, a := range args {
		if a == "--" {
			return
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if name == "" || fs.Lookup(name) != nil {
			continue
		}
		fs.String(name, "", "")
		f := fs.Lookup(name)
		f.NoOptDefVal, f.Hidden = "on", true
	}
}

// stdinScript says whether a command line with no test reads its script
// from standard input: sysbench does unless stdin is a terminal, and
// --help and --version read nothing.
func stdinScript(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "--version" || strings.HasPrefix(a, "--help=") || strings.HasPrefix(a, "--version=") {
			return false
		}
	}
	return !term.Is(os.Stdin)
}

// stdinFront is sysbench with its script on standard input: the script's
// body runs (what it prints is printed) and nothing else, whatever the
// command.
func (s *suite) stdinFront(out io.Writer) (bool, error) {
	sc, err := loadStdin("")
	if err != nil {
		var le *script.LoadError
		if errors.As(err, &le) {
			fmt.Fprint(out, le.Printed)
		}
		return false, &workload.Message{Text: "FATAL: " + err.Error()}
	}
	sc.Printed.WriteTo(out)
	return true, nil
}

// loadStdin loads the script standard input holds.
func loadStdin(command string) (*script.Script, error) {
	src, err := io.ReadAll(os.Stdin)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "sysbench-stdin-*.lua")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name()) // compiled as it loads: nothing reads it again
	if _, err := f.Write(src); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	return script.Load(f.Name(), command)
}

// countingDialer notes that a connection was opened.
type countingDialer struct {
	conn.Dialer
	opened *atomic.Bool
}

func (d countingDialer) Connect(ctx context.Context) (driver.Conn, conn.Endpoint, error) {
	d.opened.Store(true)
	return d.Dialer.Connect(ctx)
}
