package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/random"
)

// randTable is sysbench.rand, on the thread's generator: the native tests'
// numbers and distributions (--rand-type, --rand-seed and the rand options).
func (e *env) randTable(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	bounds := func(L *lua.LState) (int64, int64) { return L.CheckInt64(1), L.CheckInt64(2) }
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
			tmpl := L.CheckString(1)
			buf := make([]byte, len(tmpl))
			e.rand.Digits(buf, tmpl)
			L.Push(lua.LString(buf))
			return 1
		},
		"varstring": func(L *lua.LState) int {
			lo, hi := bounds(L)
			n := e.rand.Uniform(lo, hi)
			buf := make([]byte, n)
			for i := range buf {
				// sysbench's varstring: digits and lowercase letters.
				if c := e.rand.Uniform(0, 35); c < 10 {
					buf[i] = '0' + byte(c)
				} else {
					buf[i] = 'a' + byte(c-10)
				}
			}
			L.Push(lua.LString(buf))
			return 1
		},
		"unique": func(L *lua.LState) int {
			L.Push(lua.LNumber(e.unique()))
			return 1
		},
	}
	for _, kind := range []string{"gaussian", "special", "pareto", "zipfian"} {
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
