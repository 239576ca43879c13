package script

import (
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// legacy sets the globals of the 0.5-era API that older scripts (and
// oltp_common.lua's prepare) call: sb_rand*, rand_*, and db_* written in
// Lua on top of sysbench.sql below.
func (e *env) legacy(L *lua.LState) {
	rnd := L.GetGlobal("sysbench").(*lua.LTable).RawGetString("rand").(*lua.LTable)
	alias := map[string]string{
		"sb_rand": "default", "sb_rand_uniform": "uniform", "sb_rand_gaussian": "gaussian",
		"sb_rand_special": "special", "sb_rand_str": "string",
		"sb_rand_varstr": "varstring", "rand_uniform": "uniform", "rand_gaussian": "gaussian",
		"rand_special": "special", "rand_pareto": "pareto", "rand_zipfian": "zipfian",
		"rand_uniform_uint64": "uniform_uint64", "rand_uniform_double": "uniform_double",
		"rand_string": "string", "rand_varstring": "varstring", "rand_unique": "unique", "rand_default": "default",
	}
	for global, name := range alias {
		L.SetGlobal(global, rnd.RawGetString(name))
	}
	L.Push(L.NewFunctionFromProto(legacyProto()))
	if err := L.PCall(0, 0, nil); err != nil {
		panic("script: the legacy API does not load: " + err.Error())
	}
}

// legacyDB is the 0.5-era db_* API as sysbench 1.0 keeps it, on one
// connection per thread that db_connect, or the first db_* call, opens.
const legacyDB = `
local con
DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED = 0, 1, 2
-- sysbench connects a thread on its first db_* call when the script did
-- not call db_connect.
local function c()
  if not con then
    local drv = sysbench.sql.driver()
    db_driver = drv:name()
    local ok, r = pcall(drv.connect, drv)
    if not ok then error("Failed to connect to the database", 4) end -- gopher-lua counts c itself as 2: 4 is db_*'s caller
    con = r
  end
  return con
end
function db_connect() c() end
-- sb_rand_uniq draws from the run's unique sequence until a value falls in
-- [a, b]; sb_rnd is 32 random bits.
function sb_rand_uniq(a, b)
  a, b = a or 0, b or 4294967295
  local r
  repeat r = sysbench.rand.unique() until r >= a and r <= b
  return r
end
function sb_rnd() return sysbench.rand.uniform_uint64() % 4294967296 end
function db_disconnect() if con then con:disconnect() con = nil end end
function db_query(q) c():query(q) end
function db_bulk_insert_init(q) c():bulk_insert_init(q) end
function db_bulk_insert_next(v) c():bulk_insert_next(v) end
function db_bulk_insert_done() c():bulk_insert_done() end
function db_prepare(q) return {stmt = c():prepare(q)} end
function db_bind_param(s, params)
  local t = sysbench.sql.type
  s.values, s.binds = params, {}
  for i, v in ipairs(params) do
    if type(v) == "number" then
      s.binds[i] = s.stmt:bind_create(t.BIGINT)
    else
      s.binds[i] = s.stmt:bind_create(t.VARCHAR, 65535)
    end
  end
  s.stmt:bind_param(unpack(s.binds))
end
function db_bind_result() end
function db_execute(s)
  for i, b in ipairs(s.binds or {}) do b:set(s.values[i]) end
  return s.stmt:execute()
end
function db_close(s) s.stmt:close() end
function db_store_results() end
function db_free_results() end
`

var legacyOnce = sync.OnceValue(func() *lua.FunctionProto {
	p, err := compile("legacy", []byte(legacyDB))
	if err != nil {
		panic("script: the legacy API does not compile: " + err.Error())
	}
	return p
})

func legacyProto() *lua.FunctionProto { return legacyOnce() }
