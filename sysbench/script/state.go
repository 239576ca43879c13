package script

import (
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/sysbench/internal/loghist"
)

// Version is the sysbench version scripts see.
const Version = "1.0.20"

// env is what one Lua state's sysbench API works on: its thread, options,
// random numbers and connections.
type env struct {
	command string
	tid     int
	opt     map[string]lua.LValue // sysbench.opt
	globals map[string]lua.LValue // Config.Globals
	rand    *random.Rand
	dists   map[string]*random.Dist // rand_type's and the named distributions
	out     io.Writer
	thread  *worker.Thread // counters; nil before a run
	event   string         // the run's operation: its statements are timed in it
	ignore  conn.ErrorSet
	// dial opens a connection for connect() (nil: the command has no
	// server); prepared is --db-ps-mode=auto, driverName --db-driver.
	dial       func() (driver.Conn, conn.Endpoint, error)
	prepared   bool
	driverName string
	// conns are the connections this state opened: reconnected after a
	// lost connection, closed when the thread ends.
	conns []weak.Pointer[connection]
	gcAt  int         // how many tracked connections make track collect
	ffi   *lua.LTable // the state's ffi module
	log   *msglog.Log // sysbench's messages, shared by a run's states
	// declaring: the state only reads what the script declares (its body
	// runs again where it runs for real), so connect() opens nothing.
	declaring bool
	// uniq and uniqNext give sysbench.rand.unique its run-wide sequence.
	uniq     *random.UniqueSeq
	uniqNext func() uint32
	// raised is the last SQL error the API raised, with its Go error, so
	// that an event failing with it is judged by the runner's policy.
	raised    lua.LValue
	raisedErr error
	reports   Reports
	usedSQL   *atomic.Bool // nil outside a run
}

// count adds one statement of kind c to the thread's counters.
func (e *env) count(c measure.Counter) {
	if e.thread != nil {
		e.thread.Add(c, 1)
	}
}

// newState makes a Lua state with the standard libraries and sysbench's
// API, its require path the script's folder, LUA_PATH and InstalledDir.
func (s *Script) newState(e *env) *lua.LState {
	// Small stacks that grow: a thousand threads' states stay small.
	L := lua.NewState(lua.Options{RegistrySize: 1024, RegistryMaxSize: 256 * 1024, RegistryGrowStep: 256,
		CallStackSize: 256, MinimizeStackMemory: true})
	if e.out == nil {
		e.out = os.Stdout
	}
	pkg := L.GetGlobal("package").(*lua.LTable)
	paths := []string{filepath.Join(filepath.Dir(s.Path), "?.lua")}
	if lp := os.Getenv("LUA_PATH"); lp != "" {
		paths = append(paths, strings.Split(lp, ";")...)
	}
	paths = append(paths, "./?.lua", filepath.Join(InstalledDir, "?.lua"))
	L.SetField(pkg, "path", lua.LString(strings.Join(paths, ";")))
	// require compiles a module once for every thread's state.
	if loaders, ok := L.GetField(pkg, "loaders").(*lua.LTable); ok {
		loaders.RawSetInt(2, L.NewFunction(func(L *lua.LState) int { return loadModule(L, paths) }))
	}
	// print writes beside the message log (sysbench's stdout is beside its
	// logger): a FATAL repeated around it is still one repeat. e.out is
	// read at each call: a state's output may be set after it is made.
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		var parts []string
		for i := 1; i <= L.GetTop(); i++ {
			parts = append(parts, toString(L, L.Get(i)))
		}
		stdout := e.out
		if r, ok := stdout.(interface{ Raw() io.Writer }); ok {
			stdout = r.Raw()
		}
		fmt.Fprintln(stdout, strings.Join(parts, "\t"))
		return 0
	}))
	L.SetField(L.GetGlobal("string").(*lua.LTable), "format", L.NewFunction(strFormat))
	lua51Library(L)
	sb := L.NewTable()
	L.SetGlobal("sysbench", sb)
	L.SetField(sb, "version", lua.LString(Version))
	L.SetField(sb, "version_string", lua.LString("sysbench "+Version))
	L.SetField(sb, "tid", lua.LNumber(e.tid))
	opt := L.NewTable()
	for k, v := range e.opt {
		opt.RawSetString(k, v)
	}
	L.SetField(sb, "opt", opt)
	cmdline := L.NewTable()
	if e.command != "" {
		L.SetField(cmdline, "command", lua.LString(e.command))
	}
	L.SetField(cmdline, "PARALLEL_COMMAND", lua.LTrue)
	L.SetField(cmdline, "script_path", lua.LString(s.Path))
	s.cmdlineAPI(L, cmdline, e)
	L.SetField(sb, "cmdline", cmdline)
	L.SetField(sb, "hooks", L.NewTable())
	errs := L.NewTable()
	L.SetField(errs, "RESTART_EVENT", lua.LNumber(restartEvent))
	L.SetField(sb, "error", errs)
	L.SetField(sb, "rand", e.randTable(L))
	L.SetField(sb, "sql", e.sqlTable(L))
	L.SetField(sb, "histogram", histogramTable(L, e))
	for name, print := range map[string]func(Reports, map[string]float64){
		"report_default": Reports.PrintDefault, "report_csv": Reports.PrintCSV, "report_json": Reports.PrintJSON} {
		L.SetField(sb, name, L.NewFunction(func(L *lua.LState) int {
			if e.reports == nil {
				return 0
			}
			stat := map[string]float64{}
			L.CheckTable(1).ForEach(func(k, v lua.LValue) {
				if n, ok := v.(lua.LNumber); ok {
					stat[k.String()] = float64(n)
				}
			})
			print(e.reports, stat)
			return 0
		}))
	}
	L.PreloadModule("ffi", func(L *lua.LState) int { L.Push(e.ffiModule(L)); return 1 })
	L.SetGlobal("bit", bitModule(L))
	s.globals(L, e)
	e.legacy(L)
	return L
}

// histogramTable is sysbench.histogram: new(size, min, max) makes a
// histogram of the calling state, with update(value) and print() (to
// stdout, as sysbench prints it).
func histogramTable(L *lua.LState, e *env) *lua.LTable {
	mt := L.NewTypeMetatable("sysbench_histogram")
	check := func(L *lua.LState) *loghist.Histogram {
		if h, ok := L.CheckUserData(1).Value.(*loghist.Histogram); ok {
			return h
		}
		L.ArgError(1, "histogram expected")
		return nil
	}
	L.SetField(mt, "__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"update": func(L *lua.LState) int { check(L).Add(float64(L.CheckNumber(2)), 1); return 0 },
		"print":  func(L *lua.LState) int { check(L).Print(e.out); return 0 },
	}))
	t := L.NewTable()
	L.SetField(t, "new", L.NewFunction(func(L *lua.LState) int {
		size, lo, hi := L.CheckInt(1), float64(L.CheckNumber(2)), float64(L.CheckNumber(3))
		if size < 2 || lo <= 0 || hi <= lo {
			L.RaiseError("sysbench.histogram.new(%d, %g, %g): needs size >= 2 and 0 < min < max", size, lo, hi)
		}
		ud := L.NewUserData()
		ud.Value = loghist.New(size, lo, hi)
		L.SetMetatable(ud, mt)
		L.Push(ud)
		return 1
	}))
	return t
}

// restartEvent is sysbench.error.RESTART_EVENT: an error the script's event
// raised that --mysql-ignore-errors covers; the event runs again.
const restartEvent = 1

// modules are the compiled modules require loaded, by file.
var modules sync.Map // path -> *lua.FunctionProto

// loadModule is require's loader of Lua files on the script's path: each
// file is compiled once, and every state runs the same code.
func loadModule(L *lua.LState, paths []string) int {
	name := strings.ReplaceAll(L.CheckString(1), ".", string(os.PathSeparator))
	var tried []string
	for _, p := range paths {
		file := strings.ReplaceAll(p, "?", name)
		if proto, ok := modules.Load(file); ok {
			L.Push(L.NewFunctionFromProto(proto.(*lua.FunctionProto)))
			return 1
		}
		src, err := os.ReadFile(file)
		if err != nil {
			tried = append(tried, "\n\tno file '"+file+"'")
			continue
		}
		proto, err := compile(file, src)
		if err != nil {
			L.RaiseError("%v", err)
		}
		modules.Store(file, proto)
		L.Push(L.NewFunctionFromProto(proto))
		return 1
	}
	L.Push(lua.LString(strings.Join(tried, "")))
	return 1
}
