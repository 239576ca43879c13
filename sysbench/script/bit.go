package script

import (
	"fmt"
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// bitModule is LuaJIT's bit library, a global in sysbench's LuaJIT: 32-bit
// operations on numbers, results as signed 32-bit numbers.
func bitModule(L *lua.LState) *lua.LTable {
	arg := func(L *lua.LState, i int) uint32 { return toBit(float64(L.CheckNumber(i))) }
	ret := func(L *lua.LState, v uint32) int { L.Push(lua.LNumber(int32(v))); return 1 }
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			v := arg(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v = op(v, arg(L, i))
			}
			return ret(L, v)
		}
	}
	shift := func(op func(v uint32, n uint) uint32) lua.LGFunction {
		return func(L *lua.LState) int { return ret(L, op(arg(L, 1), uint(arg(L, 2)&31))) }
	}
	return L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return ret(L, arg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return ret(L, ^arg(L, 1)) },
		"bswap":   func(L *lua.LState) int { return ret(L, bits.ReverseBytes32(arg(L, 1))) },
		"band":    fold(func(a, b uint32) uint32 { return a & b }),
		"bor":     fold(func(a, b uint32) uint32 { return a | b }),
		"bxor":    fold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  shift(func(v uint32, n uint) uint32 { return v << n }),
		"rshift":  shift(func(v uint32, n uint) uint32 { return v >> n }),
		"arshift": shift(func(v uint32, n uint) uint32 { return uint32(int32(v) >> n) }),
		"rol":     shift(func(v uint32, n uint) uint32 { return bits.RotateLeft32(v, int(n)) }),
		"ror":     shift(func(v uint32, n uint) uint32 { return bits.RotateLeft32(v, -int(n)) }),
		"tohex": func(L *lua.LState) int {
			v, n, f := arg(L, 1), L.OptInt(2, 8), "%08x"
			if n < 0 {
				f, n = "%08X", -n
			}
			L.Push(lua.LString(fmt.Sprintf(f, v)[8-min(n, 8):]))
			return 1
		},
	})
}

// toBit is LuaJIT's bit.tobit: the number rounded (to even, as LuaJIT's
// conversion does) modulo 2^32.
func toBit(x float64) uint32 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return uint32(int64(math.Mod(math.RoundToEven(x), 1<<32)))
}
