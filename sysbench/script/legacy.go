package script

import (
	lua "github.com/yuin/gopher-lua"
)

// legacy sets the globals of the 0.5-era API that older scripts (and
// oltp_common.lua's prepare) call: sb_rand*, rand_*.
func (e *env) legacy(L *lua.LState) {
	rnd := L.GetGlobal("sysbench").(*lua.LTable).RawGetString("rand").(*lua.LTable)
	alias := map[string]string{
		"sb_rand": "default", "sb_rand_uniform": "uniform", "sb_rand_gaussian": "gaussian",
		"sb_rand_special": "special", "sb_rand_str": "string", "sb_rand_uniq": "unique",
		"sb_rand_varstr": "varstring", "rand_uniform": "uniform", "rand_gaussian": "gaussian",
		"rand_special": "special", "rand_pareto": "pareto", "rand_zipfian": "zipfian",
		"rand_uniform_uint64": "uniform_uint64", "rand_uniform_double": "uniform_double",
		"rand_string": "string", "rand_varstring": "varstring", "rand_unique": "unique", "rand_default": "default",
	}
	for global, name := range alias {
		L.SetGlobal(global, rnd.RawGetString(name))
	}
}
