package script

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/measure"
)

// cmdlineAPI adds to sysbench.cmdline what sysbench's own Lua sets there:
// the ARG_* option types, print_test_options, argv.
func (s *Script) cmdlineAPI(L *lua.LState, cmdline *lua.LTable, e *env) {
	for i, n := range argNames {
		L.SetField(cmdline, n, lua.LNumber(i))
	}
	L.SetField(cmdline, "print_test_options", L.NewFunction(func(L *lua.LState) int {
		s.PrintOptions(e.out)
		return 0
	}))
	argv := L.NewTable()
	for i, a := range sysbenchArgv() {
		argv.RawSetInt(i, lua.LString(a))
	}
	L.SetField(cmdline, "argv", argv)
}

// sysbenchArgv is the command line as sysbench would have had it:
// "sysbench" then the arguments after "oltpbench sysbench".
func sysbenchArgv() []string {
	args := os.Args
	for i, a := range args {
		if a == "sysbench" {
			return append([]string{"sysbench"}, args[i+1:]...)
		}
	}
	return append([]string{"sysbench"}, args[min(1, len(args)):]...)
}

// globals sets what sysbench 1.0 gives every script as a global: ffi (its
// own modules load it that way), the 0.5-era names (test, thread_id,
// mysql_table_engine, myisam_max_rows), and, for a script that declares no
// options, the options as globals (Config.Globals: 0.5-era scripts read
// oltp_table_size and num_threads that way).
func (s *Script) globals(L *lua.LState, e *env) {
	L.SetGlobal("ffi", e.ffiModule(L))
	L.SetGlobal("test", lua.LString(s.Path))
	L.SetGlobal("thread_id", lua.LNumber(e.tid))
	L.SetGlobal("mysql_table_engine", lua.LString("innodb"))
	L.SetGlobal("myisam_max_rows", lua.LNumber(1000000))
	if len(s.Options) == 0 {
		for k, v := range e.globals {
			L.SetGlobal(k, v)
		}
	}
	if v, ok := e.opt["mysql_table_engine"]; ok {
		L.SetGlobal("mysql_table_engine", v)
	}
	math := L.GetGlobal("math").(*lua.LTable)
	src := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(e.tid)))
	L.SetField(math, "random", L.NewFunction(func(L *lua.LState) int { return mathRandom(L, src) }))
	L.SetField(math, "randomseed", L.NewFunction(func(L *lua.LState) int {
		seed := uint64(int64(L.CheckNumber(1)))
		*src = *rand.New(rand.NewPCG(seed, seed))
		return 0
	}))
}

// mathRandom is LuaJIT's math.random: [0,1) with no argument, an integer
// in [1,m] or [m,n] otherwise, computed in doubles so that any range a
// double holds is taken (gopher-lua's stops at Go's int range).
func mathRandom(L *lua.LState, src *rand.Rand) int {
	r := src.Float64()
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
		return 1
	case 1:
		m := math.Floor(float64(L.CheckNumber(1)))
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*m) + 1))
		return 1
	}
	m, n := math.Floor(float64(L.CheckNumber(1))), math.Floor(float64(L.CheckNumber(2)))
	if m > n {
		L.ArgError(2, "interval is empty")
	}
	L.Push(lua.LNumber(math.Floor(r*(n-m+1)) + m))
	return 1
}

// cdefFunc finds the functions a C declaration declares: a name before
// "(", not a keyword or a type.
var cdefFunc = regexp.MustCompile(`([A-Za-z_]\w*)\s*\(`)

// ffiModule is LuaJIT's FFI as far as pure Go can have it: cdef records
// the functions it declares, and C offers those sysbench scripts call
// (sb_counter_inc, which sysbench declares itself; usleep and sleep once
// declared). A function not declared is LuaJIT's "missing declaration";
// one declared but not offered stops the script naming it.
func (e *env) ffiModule(L *lua.LState) *lua.LTable {
	if e.ffi != nil {
		return e.ffi
	}
	declared := map[string]bool{"sb_counter_inc": true}
	m := L.NewTable()
	L.SetField(m, "cdef", L.NewFunction(func(L *lua.LState) int {
		for _, f := range cdefFunc.FindAllStringSubmatch(L.CheckString(1), -1) {
			declared[f[1]] = true
		}
		return 0
	}))
	c := L.NewTable()
	counters := map[int]measure.Counter{1: measure.Reads, 2: measure.Writes, 0: measure.Others, 4: measure.Errors, 5: measure.Reconnects}
	for i, n := range []string{"SB_CNT_OTHER", "SB_CNT_READ", "SB_CNT_WRITE", "SB_CNT_TRX", "SB_CNT_ERROR", "SB_CNT_RECONNECT"} {
		L.SetField(c, n, lua.LNumber(i))
	}
	fns := map[string]*lua.LFunction{
		"sb_counter_inc": L.NewFunction(func(L *lua.LState) int {
			if k, ok := counters[L.CheckInt(2)]; ok {
				e.count(k)
			}
			return 0
		}),
		"usleep": L.NewFunction(func(L *lua.LState) int {
			time.Sleep(time.Duration(L.CheckInt64(1)) * time.Microsecond)
			L.Push(lua.LNumber(0))
			return 1
		}),
		"sleep": L.NewFunction(func(L *lua.LState) int {
			time.Sleep(time.Duration(L.CheckInt64(1)) * time.Second)
			L.Push(lua.LNumber(0))
			return 1
		}),
	}
	mt := L.NewTable()
	L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(2)
		if !declared[name] {
			L.RaiseError("missing declaration for symbol '%s'", name)
		}
		if f, ok := fns[name]; ok {
			L.Push(f)
			return 1
		}
		L.RaiseError("ffi.C.%s is not available in oltpbench's Lua (no LuaJIT FFI): sb_counter_inc, usleep and sleep are", name)
		return 0
	}))
	L.SetMetatable(c, mt)
	L.SetField(m, "C", c)
	e.ffi = m
	return m
}

// logf prints one of sysbench's messages through the run's logger (to the
// state's output when it has none).
func (e *env) logf(format string, args ...any) {
	if e.log == nil {
		fmt.Fprintf(e.out, format, args...)
		return
	}
	e.log.Printf(format, args...)
}

// raise raises msg as luaL_error does: after the position of the Lua code
// that called the API function, or bare when pcall called it directly.
func raise(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w := L.Where(1); w != "" && w != "[G]:" {
		msg = w + " " + msg
	}
	L.Error(lua.LString(msg), 0)
}
