package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/random"
)

// randTable is sysbench.rand, on the thread's generator: the native tests'
// numbers and distributions (--rand-type, --rand-seed and the rand options),
// the functions sysbench 1.0.20 has there. Their bounds are C unsigned ints,
// which sysbench's LuaJIT FFI converts: a number truncated and wrapped to 32
// bits, anything else refused in the FFI's words.
func (e *env) randTable(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	bounds := func(L *lua.LState) (int64, int64) { return ffiUint32(L, 1), ffiUint32(L, 2) }
	fns := map[string]lua.LGFunction{
		"default": func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(e.rand.Default(a, b)))
			return 1
		},
		"uniform": func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(e.rand.Uniform(a, b)))
			return 1
		},
		"uniform_uint64": func(L *lua.LState) int {
			L.Push(lua.LNumber(float64(e.rand.Uint64())))
			return 1
		},
		"uniform_double": func(L *lua.LState) int {
			L.Push(lua.LNumber(e.rand.Float64()))
			return 1
		},
		"string": func(L *lua.LState) int {
			s, ok := L.Get(1).(lua.LString)
			if !ok { // sysbench.rand.string is Lua there: its first line takes #fmt
				L.Error(lua.LString("[string \"sysbench.rand.lua\"]:66: attempt to get length of local 'fmt' (a "+L.Get(1).Type().String()+" value)"), 0)
			}
			tmpl := string(s)
			buf := make([]byte, len(tmpl))
			e.rand.Digits(buf, tmpl)
			L.Push(lua.LString(buf))
			return 1
		},
		"unique": func(L *lua.LState) int {
			L.Push(lua.LNumber(e.unique()))
			return 1
		},
	}
	for _, kind := range []string{"gaussian", "special", "pareto"} {
		d := e.dists[kind]
		fns[kind] = func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(d.Draw(e.rand, a, b)))
			return 1
		}
	}
	for name, fn := range fns {
		L.SetField(t, name, L.NewFunction(fn))
	}
	return t
}

// ffiUint32 is argument n as LuaJIT's FFI passes a Lua value to a C
// unsigned int: a number truncated to an integer and wrapped to 32 bits;
// anything else is "bad argument #n to 'f' (cannot convert 'string' to
// 'unsigned int')", at the caller's line, named as the caller named f ('?'
// and no line when pcall calls it).
func ffiUint32(L *lua.LState, n int) int64 {
	if v, ok := L.Get(n).(lua.LNumber); ok {
		f := math.Trunc(float64(v))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return int64(uint32(int64(math.Mod(f, 1<<32))))
	}
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" && dbg.Name != "(anonymous)" && dbg.Name[0] != '<' {
			name = dbg.Name
		}
	}
	raise(L, "bad argument #%d to '%s' (cannot convert '%s' to 'unsigned int')", n, name, L.Get(n).Type())
	return 0
}

// unique is sysbench.rand.unique: a 32-bit value no other call of the run
// returns, from the run's permutation.
func (e *env) unique() uint32 {
	if e.uniq == nil {
		return uint32(e.rand.Uint64() & math.MaxUint32)
	}
	return e.uniq.At(e.uniqNext())
}

// Dists makes the named distributions with the run's parameters.
func Dists(randType string, specIter int, specPct, specRes, paretoH, zipfExp float64) (map[string]*random.Dist, error) {
	m := map[string]*random.Dist{}
	for _, kind := range []string{randType, "uniform", "gaussian", "special", "pareto", "zipfian"} {
		if _, ok := m[kind]; ok {
			continue
		}
		d, err := random.NewDist(kind, specIter, specPct, specRes, paretoH, zipfExp)
		if err != nil {
			return nil, err
		}
		m[kind] = d
	}
	m["default"] = m[randType]
	return m, nil
}
