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
	"github.com/oltpbench/oltpbench/internal/measure"
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

// luaTest is a Lua script bound to the suite's options.
type luaTest struct {
	*suite
	script    *script.Script
	err       error       // why the script could not be found or loaded
	connected atomic.Bool // a command of the script's opened a connection
	given     map[string]string
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
	l := &luaTest{suite: s, given: givenOptions(args)}
	s.kind, s.fs = l, fs
	path, err := script.Find(test)
	if err == nil {
		if command == "csv" {
			command = "prepare"
		}
		l.script, err = script.Load(path, command)
	}
	if err != nil {
		l.err = err
		return
	}
	sc := l.script
	if len(sc.Options) == 0 {
		declareAny(args, fs)
	}
	for _, name := range sc.OptionNames() {
		flag := strings.ReplaceAll(name, "_", "-")
		if fs.Lookup(flag) != nil {
			continue
		}
		o := sc.Options[name]
		fs.String(flag, o.Default, o.Help)
		if o.Type == script.ArgBool {
			fs.Lookup(flag).NoOptDefVal = "on"
		}
	}
}

func (l *luaTest) setup(st *workload.Setup, name, command string) error {
	var nf *script.NotFoundError
	if errors.As(l.err, &nf) && !script.IsPath(name) {
		return fmt.Errorf("unknown test %q: use one of %s, or a Lua script (none found in %s)", name, strings.Join(Names(), ", "), strings.Join(nf.Looked, ", "))
	}
	if l.err != nil {
		return l.err
	}
	st.Verbosity = l.level() // --db-driver: the script hears of it from sysbench.sql.driver()
	if err := l.preparedStmts(); err != nil {
		return err
	}
	l.o.Threads = st.Threads
	if err := l.newDist(); err != nil {
		return err
	}
	if err := l.checkScript(command); err != nil {
		return err
	}
	if command != "run" {
		return nil
	}
	return l.setupRun()
}

func (l *luaTest) name() string { return l.script.Name }

// sizes are what ran: the script, by path and content.
func (l *luaTest) sizes() map[string]string {
	return map[string]string{"script": l.script.Path, "script_sha256": l.script.SHA256}
}

func (l *luaTest) hooks() workload.Hooks {
	if l.script == nil { // Setup and Front say why
		return workload.Hooks{Peer: workload.PeerHooks{OwnConnections: true}}
	}
	return workload.Hooks{Peer: workload.PeerHooks{Commands: l.commands(), Command: l.command, OwnConnections: true, Connected: l.connected.Load}}
}

// scriptValues is sysbench.opt: every option by its sysbench name, a
// script's own typed as sysbench types it, the others by their flag's type.
func (l *luaTest) values(threads int) (map[string]lua.LValue, error) {
	m := map[string]lua.LValue{}
	var err error
	l.fs.VisitAll(func(f *pflag.Flag) {
		name := strings.ReplaceAll(f.Name, "-", "_")
		if f.Name == "mysql-password" {
			return
		}
		v := f.Value.String()
		if o, ok := l.script.Options[name]; ok {
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
	m["threads"] = lua.LNumber(threads)
	return m, err
}

// config is what the script's states are made from, at threads threads.
func (l *luaTest) config(seed uint64, out io.Writer, threads int) (script.Config, error) {
	opt, err := l.values(threads)
	if err != nil {
		return script.Config{}, err
	}
	dists, err := script.Dists(l.randType, l.randSpecIter, l.randSpecPct, l.randSpecRes, l.randParetoH, l.randZipfExp)
	if err != nil {
		return script.Config{}, err
	}
	ignore, err := conn.ParseErrorSet([]string{l.fs.Lookup("mysql-ignore-errors").Value.String()})
	if err != nil {
		return script.Config{}, err
	}
	return script.Config{Opt: opt, Globals: l.legacyGlobals(threads), Dists: dists, Seed: seed, Prepared: l.o.PreparedStmts, Ignore: ignore,
		Out: out, Driver: l.dbDriver}, nil
}

// scriptCommand runs a script's commands (prepare, cleanup, prewarm, its
// own) in a pool of threads; the script connects when it asks to, so a
// command that never does needs no server.
func (l *luaTest) command(ctx context.Context, name string, co conn.Options, threads int, out io.Writer) (bool, error) {
	cfg, err := l.config(uint64(max(l.ro.Seed, 1)), out, l.o.Threads)
	if err != nil {
		return true, err
	}
	pool, err := conn.Open(co, threads)
	if err != nil {
		return true, err
	}
	defer pool.Close()
	// The script's statements take no context: when ctx ends (Ctrl-C, the
	// watch of a server that stopped answering), their connections close.
	defer context.AfterFunc(ctx, pool.Abort)()
	cfg.Dialer = countingDialer{pool, &l.connected}
	if err := l.script.Command(ctx, name, cfg, threads); err != nil {
		return true, &workload.Message{Text: "FATAL: " + err.Error()}
	}
	return true, nil
}

// dataset is a script's dataset: no tables (its prepare makes them),
// described by the script and the values of its own options, so a plan
// tells a dataset prepared by another script or with other sizes.
func (l *luaTest) dataset() dataset.Dataset {
	meta := map[string]string{"dataset_script_sha256": l.script.SHA256}
	opt, _ := l.values(l.o.Threads)
	for _, name := range l.script.OptionNames() {
		switch v := opt[name].(type) {
		case *lua.LTable:
			meta[name] = joinList(v)
		case lua.LBool:
			meta[name] = map[bool]string{true: "on", false: "off"}[bool(v)]
		default:
			meta[name] = lua.LVAsString(v)
		}
	}
	return dataset.Dataset{Workload: "sysbench " + l.script.Name + ".lua", Meta: meta}
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

// commands are a script's own commands, sorted.
func (l *luaTest) commands() []string {
	var c []string
	for n := range l.script.Commands {
		c = append(c, n)
	}
	sort.Strings(c)
	return c
}

// newRun binds the script to a run at the run's threads, on the suite's
// report: its report hooks replace the report's lines.
func (l *luaTest) newRun(sr *suiteRun, c workload.RunConfig) (workload.Run, error) {
	out := c.Stdout
	if out == nil {
		out = c.Out
	}
	cfg, err := l.config(c.Seed, out, c.Threads)
	if err != nil {
		return nil, err
	}
	cfg.Dialer, cfg.Notice, cfg.Reports, cfg.Log = c.Dialer, c.Out, sr.rep, c.Log
	r, err := l.script.NewRun(cfg)
	if err != nil {
		return nil, err
	}
	sr.events = r
	return &luaRun{suiteRun: sr, run: r}, nil
}

// luaRun reports a script's run: sysbench's report, or the script's
// report hooks where it has them.
type luaRun struct {
	*suiteRun
	run *script.Run
}

func (r *luaRun) Header() { r.header(Header{}) }

func (r *luaRun) Interval(iv measure.Interval) {
	if !r.run.HasHook("report_intermediate") {
		r.rep.Interval(iv)
		return
	}
	if err := r.run.Report("report_intermediate", r.rep.Stat(iv)); err != nil {
		fmt.Fprintf(r.c.Out, "FATAL: %v\n", err)
	}
}

func (r *luaRun) Final(f *measure.Final) (map[string]float64, map[string]string) {
	r.rep.EndJSON()
	if r.run.HasHook("report_cumulative") {
		if err := r.run.Report("report_cumulative", r.rep.CumulativeStat(f)); err != nil {
			fmt.Fprintf(r.c.Out, "FATAL: %v\n", err)
		}
		r.rep.EndJSON()
	} else {
		r.rep.NoSQL = !r.run.UsedSQL()
		r.rep.Final(f)
	}
	if err := r.run.Done(); err != nil {
		fmt.Fprintf(r.c.Out, "FATAL: %v\n", err)
	}
	return nil, nil
}

// checkScript checks a script's options, and that a run has an event.
func (l *luaTest) checkScript(command string) error {
	if _, err := l.values(l.o.Threads); err != nil {
		return err
	}
	if command == "run" && !l.script.Has["event"] {
		return &workload.Message{Text: fmt.Sprintf("FATAL: cannot find the event() function in %s", l.script.Path)}
	}
	return nil
}

// front is Front for a script: where it was not found, the Lua error
// that stopped it, what its main chunk printed, and the commands sysbench
// answers itself: none (the main chunk only), help, and those the script
// does not implement.
func (l *luaTest) front(args []string, out io.Writer) (bool, error) {
	var nf *script.NotFoundError
	switch {
	case errors.As(l.err, &nf):
		return false, &workload.Message{Text: fmt.Sprintf("FATAL: Cannot find benchmark '%s': no such built-in test, file or module", args[0]),
			Hint: "oltpbench: looked in " + strings.Join(nf.Looked, ", ") + "; the built-in tests are " + strings.Join(Names(), ", ")}
	case l.err != nil:
		var le *script.LoadError
		if errors.As(l.err, &le) {
			fmt.Fprint(out, le.Printed)
		}
		if pe := (*script.PanicError)(nil); errors.As(l.err, &pe) {
			return false, &workload.Message{Text: pe.Error()}
		}
		return false, &workload.Message{Text: "FATAL: " + l.err.Error()}
	}
	l.script.Printed.WriteTo(out)
	if len(args) == 1 {
		return true, nil // sysbench runs the script's body and stops
	}
	notImplemented := &workload.Message{Text: fmt.Sprintf("'%s' test does not implement the '%s' command.", args[0], args[1])}
	switch c := args[1]; {
	case c == "help" && l.script.Has["help"]:
		opt, err := l.values(l.o.Threads)
		if err != nil {
			return false, err
		}
		if err := l.script.Help(out, opt); err != nil {
			return false, &workload.Message{Text: "FATAL: " + err.Error()}
		}
		return true, nil
	case c == "help" && len(l.script.Options) > 0:
		printScriptHelp(out, l.script)
		return true, nil
	case c == "help":
		return false, notImplemented
	case l.script.Commands[c], c == "run":
		return false, nil
	case c == "prepare", c == "cleanup", c == "prewarm", c == "warmup":
		if l.script.Has[c] {
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
	for name := range givenOptions(args) {
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

// legacyGlobals are the options as sysbench 1.0.20 makes them globals for
// a script that declares none: each of its own options (its --help's, and
// its pgsql driver's at their defaults) typed as it types them (a list as a
// table of strings, on|off as a boolean, a size in bytes, N as a number; a
// string with no default absent), a deprecated alias as its own value
// (num_threads is 1 unless --num-threads was given), and every other
// option of the command line as the string given (--oltp-tables-count=2
// is oltp_tables_count = "2").
func (l *luaTest) legacyGlobals(threads int) map[string]lua.LValue {
	g := map[string]lua.LValue{"pgsql_db": lua.LString("sbtest"), "pgsql_host": lua.LString("localhost"),
		"pgsql_password": lua.LString(""), "pgsql_port": lua.LNumber(5432), "pgsql_user": lua.LString("sbtest")}
	own := map[string]bool{}
	aliasOf := map[string]string{}
	for _, d := range deprecated {
		aliasOf[d.old] = d.new
	}
	for _, sec := range sysbenchHelp {
		for _, o := range sec.opts {
			own[o.name] = true
			v := o.def
			switch {
			case aliasOf[o.name] != "" && l.given[o.name] == "":
				// not given: its default
			case aliasOf[o.name] != "":
				v = l.fs.Lookup(aliasOf[o.name]).Value.String()
			case l.fs.Lookup(o.name) != nil:
				v = l.fs.Lookup(o.name).Value.String()
			}
			if o.name == "threads" || o.name == "num-threads" && l.given[o.name] != "" {
				v = strconv.Itoa(threads)
			}
			if lv := sysbenchTyped(o, v); lv != nil {
				g[strings.ReplaceAll(o.name, "-", "_")] = lv
			}
		}
	}
	for name, v := range l.given {
		if !own[name] && !strings.HasPrefix(name, "pgsql-") {
			g[strings.ReplaceAll(name, "-", "_")] = lua.LString(v)
		}
	}
	return g
}

// sysbenchTyped is option o's value v as sysbench's Lua sees it; nil for
// a string with no default and no value.
func sysbenchTyped(o helpOpt, v string) lua.LValue {
	switch o.typ {
	case "[LIST,...]":
		t := &lua.LTable{}
		for _, x := range strings.Split(v, ",") {
			if x != "" {
				t.Append(lua.LString(x))
			}
		}
		return t
	case "[=on|off]":
		return lua.LBool(v != "" && v != "off" && v != "false" && v != "0")
	case "SIZE":
		if v == "" {
			v = o.def
		}
		if n, err := parseSize(v); err == nil {
			return lua.LNumber(n)
		}
	case "N":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return lua.LNumber(n)
		}
	}
	if v == "" && o.nodef {
		return nil
	}
	return lua.LString(v)
}

// parseSize reads a size as sysbench does: a number with an optional K, M,
// G or T (powers of 1024).
func parseSize(s string) (float64, error) {
	mult := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, s = 1<<10, s[:n-1]
		case 'M', 'm':
			mult, s = 1<<20, s[:n-1]
		case 'G', 'g':
			mult, s = 1<<30, s[:n-1]
		case 'T', 't':
			mult, s = 1<<40, s[:n-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f * mult, err
}

// givenOptions are the options a command line gives, by their sysbench
// names (dashes), with their values as given ("on" for a bare --name).
func givenOptions(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok {
			v = "on"
		}
		out[strings.ReplaceAll(name, "_", "-")] = v
	}
	return out
}
