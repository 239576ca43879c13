-- Calls every function of sysbench's Lua API that oltpbench implements and
-- prints what a person can compare between sysbench and oltpbench: values
-- that do not depend on random numbers or timing, and checks of those that do.
local mod = require("apimod")
local ffi = require("ffi")
ffi.cdef[[
void sb_counter_inc(int thread_id, sb_counter_type type);
int usleep(unsigned int);
]]

sysbench.cmdline.options = {
   rows = {"Rows to insert", 7},
   ratio = {"A fraction", 0.25},
   label = {"A string", "abc"},
   flag = {"A boolean", false},
   items = {"A list", {"x", "y"}},
   nodefault = {"No default"},
}

function cmd_hello()
   print("hello from tid " .. sysbench.tid .. " of command " .. tostring(sysbench.cmdline.command))
end

function cmd_each()
   -- printed by every thread: the lines' order varies, their count does not
   print("each thread " .. sysbench.tid)
end

sysbench.cmdline.commands = {
   hello = {cmd_hello},
   each = {cmd_each, sysbench.cmdline.PARALLEL_COMMAND},
}

function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("CREATE TABLE apitest (id INT PRIMARY KEY, name VARCHAR(20), v DOUBLE)")
   con:bulk_insert_init("INSERT INTO apitest VALUES")
   for i = 1, sysbench.opt.rows do
      con:bulk_insert_next(string.format("(%d, 'n%d', %d.5)", i, i, i))
   end
   con:bulk_insert_done()
   print("prepared " .. sysbench.opt.rows .. " rows")
end

function cleanup()
   sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS apitest")
   print("cleaned up")
end

local function check(what, ok)
   print(what, ok and "ok" or "WRONG")
end

function thread_init(tid)
   print("thread_init", tid, thread_id, sysbench.tid)
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function thread_done(tid)
   print("thread_done", tid)
   con:disconnect()
end

function event()
   print("version", sysbench.version, sysbench.version_string)
   print("command", sysbench.cmdline.command)
   print("opts", sysbench.opt.rows, sysbench.opt.ratio, sysbench.opt.label, sysbench.opt.flag,
         type(sysbench.opt.items), sysbench.opt.items[1], sysbench.opt.nodefault, sysbench.opt.threads)
   print("module", mod.greet("api"))
   print("format", string.format("%u|%5.2f|%-4s|%03d|%x|%%", 7, 3.14159, "ab", 5, 255))
   local t = sysbench.sql.type
   print("types", t.NONE, t.TINYINT, t.SMALLINT, t.INT, t.BIGINT, t.FLOAT, t.DOUBLE, t.TIME, t.DATE,
         t.DATETIME, t.TIMESTAMP, t.CHAR, t.VARCHAR)
   print("errors", sysbench.sql.error.NONE, sysbench.sql.error.IGNORABLE, sysbench.sql.error.FATAL,
         sysbench.error.RESTART_EVENT)

   local r = sysbench.rand
   local u = r.uniform(1, 10)
   check("uniform", u >= 1 and u <= 10 and u == math.floor(u))
   -- sysbench 1.0.20 has no sysbench.rand.zipfian (oltpbench has it, for --rand-type's sake)
   for _, f in ipairs({"default", "gaussian", "special", "pareto"}) do
      local v = r[f](5, 9)
      check(f, v >= 5 and v <= 9)
   end
   check("string", r.string("###-@@@"):match("^%d%d%d%-%l%l%l$") ~= nil)
   -- sysbench 1.0.20 has no sysbench.rand.varstring either
   local vs = r.varstring and r.varstring(3, 6) or "abcd"
   check("varstring", #vs >= 3 and #vs <= 6 and vs:match("^[%w]+$") ~= nil)
   -- a uint64 cdata in LuaJIT, a number here
   check("uniform_uint64", r.uniform_uint64() ~= nil)
   local d = r.uniform_double()
   check("uniform_double", d >= 0 and d < 1)
   check("unique", r.unique() ~= r.unique())
   check("sb_rand", sb_rand(1, 3) <= 3 and sb_rand_uniform(1, 3) >= 1 and #sb_rand_str("##") == 2)

   print("driver", drv:name(), tostring(drv), tostring(con))
   local rs = con:query("SELECT id, name, NULL FROM apitest ORDER BY id LIMIT 2")
   print("rows", rs.nrows, rs.nfields, tostring(rs))
   local row = rs:fetch_row()
   print("row1", row[1], row[2], row[3])
   row = rs:fetch_row()
   print("row2", row[1], row[2])
   print("row3", rs:fetch_row())
   rs:free()
   print("query_row", con:query_row("SELECT COUNT(*), MAX(name) FROM apitest"))
   print("update", tostring(con:query("UPDATE apitest SET v = v + 1 WHERE id = 1")))

   local st = con:prepare("SELECT name FROM apitest WHERE id = ?")
   local p = st:bind_create(t.INT)
   st:bind_param(p)
   p:set(3)
   local srs = st:execute()
   -- a prepared statement's rows are counted, not fetched, in both
   print("stmt", srs.nrows, srs:fetch_row())
   st:close()
   local ins = con:prepare("INSERT INTO apitest (id, name) VALUES (?, ?)")
   local a, b = ins:bind_create(t.INT), ins:bind_create(t.VARCHAR, 20)
   ins:bind_param(a, b)
   a:set(100)
   b:set_rand_str("##@@")
   ins:execute()
   print("inserted", con:query_row("SELECT LENGTH(name) FROM apitest WHERE id = 100"))
   ins:close()

   local ok, e = pcall(con.query, con, "SELECT * FROM no_such_table")
   print("ignorable", ok, type(e), e.errcode, e.sql_errno, e.sql_state, e.sql_errmsg, e.query)
   ok, e = pcall(con.query, con, "SELEC 1")
   print("fatal", ok, e)

   ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_READ)
   ffi.C.usleep(1)
   return true
end
