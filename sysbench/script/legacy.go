package script

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// legacy sets the globals of the 0.5-era API that sysbench 1.0.20 keeps
// for older scripts (and oltp_common.lua's prepare): sb_rand*, and db_*
// written in Lua on top of sysbench.sql below.
func (e *env) legacy(L *lua.LState) {
	rnd := L.GetGlobal("sysbench").(*lua.LTable).RawGetString("rand").(*lua.LTable)
	alias := map[string]string{
		"sb_rand": "default", "sb_rand_uniform": "uniform", "sb_rand_gaussian": "gaussian",
		"sb_rand_special": "special", "sb_rand_str": "string",
	}
	for global, name := range alias {
		L.SetGlobal(global, rnd.RawGetString(name))
	}
	for _, p := range legacyProtos() {
		L.Push(L.NewFunctionFromProto(p))
		if err := L.PCall(0, 0, nil); err != nil {
			panic("script: the legacy API does not load: " + err.Error())
		}
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
function sb_rnd() return sysbench.rand.uniform_uint64() % 4294967296 end
function db_disconnect() if con then con:disconnect() con = nil end end
-- A statement that fails: its FATAL line is the API's; an error that
-- --mysql-ignore-errors covers (or a lost connection) goes on to the
-- runner as raised, anything else is as sysbench 1.0's 0.5 layer has it:
-- db_query and db_prepare fail with their own words at the caller's line
-- (gopher-lua counts one level more than Lua), db_execute and the bulk
-- insert's calls go on.
local function try(f, ...)
  local ok, r = pcall(f, ...)
  if not ok and type(r) == "table" then error(r, 0) end
  return ok, r
end
function db_query(q)
  local d = c()
  if not try(d.query, d, q) then error("db_query() failed", 3) end
end
function db_bulk_insert_init(q) local d = c() try(d.bulk_insert_init, d, q) end
function db_bulk_insert_next(v) local d = c() try(d.bulk_insert_next, d, v) end
function db_bulk_insert_done() local d = c() try(d.bulk_insert_done, d) end
function db_prepare(q)
  local d = c()
  local ok, s = try(d.prepare, d, q)
  if not ok then error("db_prepare() failed", 3) end
  return {stmt = s}
end
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
  local ok, r = try(s.stmt.execute, s.stmt)
  if ok then return r end
end
function db_close(s) s.stmt:close() end
function db_store_results() end
function db_free_results() end
`

// legacyUniq is sb_rand_uniq, which draws from the run's unique sequence
// until a value falls in [a, b]: a chunk of its own, named as sysbench
// names its compat layer and comparing on its line 47, so that bad bounds
// fail in sysbench's words ([string "sysbench.compat.lua"]:47: attempt to
// compare string with number).
var legacyUniq = strings.Repeat("\n", 46) +
	`function sb_rand_uniq(a, b) a, b = a or 0, b or 4294967295 local r repeat r = sysbench.rand.unique() until r >= a and r <= b return r end`

var legacyOnce = sync.OnceValue(func() [2]*lua.FunctionProto {
	p, err := compile("legacy", []byte(legacyDB))
	if err != nil {
		panic("script: the legacy API does not compile: " + err.Error())
	}
	u, err := compile(`[string "sysbench.compat.lua"]`, []byte(legacyUniq))
	if err != nil {
		panic("script: sb_rand_uniq does not compile: " + err.Error())
	}
	return [2]*lua.FunctionProto{p, u}
})

func legacyProtos() [2]*lua.FunctionProto { return legacyOnce() }
