package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dumpGlobals prints every global's name and type, and the value of those
// that are not functions or tables (a list option's items).
const dumpGlobals = `local names = {}
for k, v in pairs(_G) do
  local s = k .. ":" .. type(v)
  if type(v) == "table" and (k:match("^mysql_") or k:match("^report_")) then
    local items = {}
    for _, x in ipairs(v) do items[#items + 1] = type(x) .. " " .. tostring(x) end
    s = s .. "={" .. table.concat(items, ",") .. "}"
  elseif type(v) ~= "table" and type(v) ~= "function" then
    s = s .. "=" .. tostring(v)
  end
  names[#names + 1] = s
end
table.sort(names)
for _, n in ipairs(names) do print(n) end
`

// try prints what f returns, or its error, as a script checking a
// behaviour would.
const try = `local function try(name, f)
  local ok, v = pcall(f)
  print(name, ok, type(v), tostring(v))
end
`

// TestDropInLua51: scripts nobody here wrote lean on Lua 5.1 (LuaJIT, as
// sysbench runs them) where gopher-lua differs: numeric strings where
// numbers are wanted (0.5-era scripts take their options as string
// globals), numbers written as text, tonumber, the 0.5 globals, a query
// that fails inside a script, the legacy sb_rand's bad arguments, and a
// copy of a stock script run by path.
func TestDropInLua51(t *testing.T) {
	common, err1 := os.ReadFile("/usr/share/sysbench/oltp_common.lua")
	point, err2 := os.ReadFile("/usr/share/sysbench/oltp_point_select.lua")
	if err1 != nil || err2 != nil {
		t.Skip("needs sysbench's own scripts")
	}
	probe := func(body string) map[string]string {
		return map[string]string{"s.lua": try + "sysbench.cmdline.commands = {probe = {function()\n" + body + "\nend}}\n"}
	}
	runDropin(t, []dropinCase{
		{name: "numeric strings in for and arithmetic", files: probe(`
local n = 0
for i = 1, oltp_tables_count do n = n + i end
print("limit", n)
for i = oltp_tables_count, 3 do print("init", i) end
for i = 1, 5, oltp_tables_count do print("step", i) end
print(oltp_tables_count * 2, oltp_tables_count + 0.5, -oltp_tables_count, oltp_tables_count % 2, oltp_tables_count ^ 2, "0x10" + 0, " 5 " * 2)
try("for on a word", function() for i = 1, oltp_name do end end)
try("for on nil", function() for i = nil, 2 do end end)
try("arithmetic on a table", function() return {} + 1 end)
try("compare tables", function() return {} < {} end)
try("compare string and number", function() return oltp_tables_count < 5 end)`),
			args: "--oltp-tables-count=2 --oltp-name=abc s.lua probe"},
		{name: "numbers as text", files: probe(`
local z = 0
print(1.5, 1e15, 2^53, 123456789012345, 12345678901234, 0.1 + 0.2, 100 / 3, 1e-5, 2^63, -2^63, math.huge, -math.huge, 0 / 0, -z)
print(1.5 .. "|" .. 1e15 .. "|" .. 100 / 3 .. "|" .. 7 .. "|" .. 2^53)
print(tostring(1 / 3), tostring(1e100), table.concat({1.5, 1e15, 2^53, "x"}, " "))
print(string.format("%s %s %d %d %5.2f %x", 1e15, 0.1, "10", 3.7, "3.14159", "255"))
print(string.format("%q", "a\0" .. "1b\n\"\\" .. string.char(1, 13, 127, 200) .. "9"))
try("format without its value", function() local s = string.format("%d") return s end)
local x, t, up = true, {}, nil
try("concat local", function() local s = "a" .. x return s end)
try("concat field", function() local s = "a" .. t.k return s end)
try("concat global", function() local s = "a" .. no_such_global return s end)
try("concat upvalue", function() local s = "a" .. up return s end)
try("concat constant", function() local s = {} .. "x" return s end)`),
			args: "s.lua probe"},
		{name: "tonumber", files: probe(`
print(tonumber("0x10"), tonumber("10", 16), tonumber("z", 36), tonumber("12", 2), tonumber(" 10 "), tonumber("1e1"), tonumber(""))
print(tonumber("0x"), tonumber("inf"), tonumber("nan"), tonumber("1 2"), tonumber(nil), tonumber({}), tonumber("-0x10"), tonumber(".5"))
print(tonumber("5."), tonumber("1.5", 10), tonumber(10, 16), tonumber("-1", 10), tonumber(" ff ", 16), tonumber("0x10", 16), tonumber("1e"))
try("no value", function() local v = tonumber() return v end)
try("base out of range", function() local v = tonumber("1", 1) return v end)`),
			args: "s.lua probe"},
		{name: "library numbers from strings", files: probe(`
print(string.rep("ab", "3"), string.sub("hello", "2", "3"), string.char("65", "66"), string.byte("abc", "2"), string.find("abc", "b", "1"))
print(select("2", "a", "b"), unpack({1, 2, 3}, "2"), math.floor("3.5"), math.max("3", 5))
local t = {} table.insert(t, "1") table.insert(t, "1", "0") print(#t, t[1], t[2])
try("rep of a word", function() local s = string.rep("x", "y") return s end)`),
			args: "s.lua probe"},
		{name: "0.5 globals", files: map[string]string{"s.lua": "sysbench.cmdline.commands = {probe = {function()\n" + dumpGlobals + "end}}\n"},
			args: "--threads=3 s.lua probe"},
		{name: "0.5 globals from deprecated and unknown options", files: map[string]string{"s.lua": "sysbench.cmdline.commands = {probe = {function()\n" + dumpGlobals + "end}}\n"},
			args: "--num-threads=4 --max-time=7 --report-checkpoints=3,5 --mysql-host=a,b --oltp-tables-count=2 s.lua probe"},
		{name: "0.5 globals in a run", files: map[string]string{"s.lua": "function thread_init() if thread_id == 1 then\n" + dumpGlobals + "end end\nfunction event() end\n"},
			args: "$DB --threads=2 --events=2 s.lua run"},
		{name: "num_threads in a 0.5 script", files: map[string]string{"s.lua": `function event()
  if thread_id == 0 then print(thread_id < num_threads - 1, num_threads) end -- one thread prints: no race
  return true
end`}, args: "$DB --verbosity=1 --num-threads=2 s.lua run"},
		{name: "db_query fails", files: map[string]string{"s.lua": "function event()\n  db_query(\"SELECT nosuchfunc()\")\nend\n"},
			args: "$DB --events=3 s.lua run"},
		{name: "con:query fails", files: map[string]string{"s.lua": "function thread_init() con = sysbench.sql.driver():connect() end\nfunction event()\n  con:query(\"SELECT nosuchfunc()\")\nend\n"},
			args: "$DB --events=3 s.lua run"},
		{name: "failed query caught and printed", files: map[string]string{"s.lua": `function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local ok, err = pcall(con.query, con, "SELECT nosuchfunc()")
  print(ok, type(err))
  local ok2, err2 = pcall(db_query, "SELECT nosuchfunc()")
  print(ok2, type(err2))
end`}, args: "$DB --events=3 s.lua run"},
		{name: "db_prepare fails", files: map[string]string{"s.lua": "function event()\n  local s = db_prepare(\"SELECT nosuch FROM nosuch\")\nend\n"},
			args: "$DB --events=1 s.lua run"},
		{name: "db_execute and bulk insert fail", files: map[string]string{"s.lua": `function thread_init()
  db_query("CREATE TABLE IF NOT EXISTS tq (id INT PRIMARY KEY)")
  db_query("DELETE FROM tq")
end
function event()
  local s = db_prepare("INSERT INTO tq VALUES (?)")
  db_bind_param(s, {1})
  db_execute(s)
  db_execute(s)
  db_bulk_insert_init("INSERT INTO tq VALUES")
  db_bulk_insert_next("(5)")
  db_bulk_insert_next("(5)")
  db_bulk_insert_done()
  print(type(db_query("SELECT 1")))
end`}, args: "$DB --events=1 s.lua run"},
		{name: "legacy sb_rand bad arguments", files: probe(`
for _, f in ipairs({"sb_rand", "sb_rand_uniform", "sb_rand_gaussian", "sb_rand_special"}) do
  print(f, pcall(_G[f], "x", 5))
  print(f, pcall(_G[f], nil, 5))
  print(f, pcall(_G[f], {}, 5))
end
print(pcall(sb_rand_str, nil), pcall(sb_rand_str, 5), pcall(sb_rand_uniq, "a", 5), pcall(sb_rand_varstr, 1, 2))
try("named", function() local v = sb_rand("x", 5) return v end)
try("field", function() local v = sysbench.rand.uniform(nil, 5) return v end)
print(type(sysbench.rand.varstring), type(sysbench.rand.zipfian), type(rand_default))`),
			args: "s.lua probe"},
	})

	// A copy of two stock scripts beside each other, run by path: prepare
	// then cleanup under each tool in turn (one database: each tool's
	// prepare needs it empty).
	dir := t.TempDir()
	for name, text := range map[string][]byte{"oltp_common.lua": common, "oltp_point_select.lua": point} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--mysql-host=" + testHost, "--mysql-port=" + testPort, "--mysql-user=root", "--mysql-db=dropin", "--tables=2", "--table-size=100", "./oltp_point_select.lua"}
	var outs [2][]string
	for i, tool := range [][]string{{"sysbench"}, {binPath, "sysbench"}} {
		for _, command := range []string{"prepare", "cleanup"} {
			argv := append(append(append([]string{}, tool[1:]...), args...), command)
			out, code := merged(t, dir, "", tool[0], argv...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", append(tool[:1], argv...), code, out)
			}
			outs[i] = append(outs[i], maskedAll(out, dir)...)
		}
	}
	if !slices.Contains(outs[1], "Inserting N records into 'sbtestN'") {
		t.Errorf("the copy's prepare says nothing of its rows:\n%s", strings.Join(outs[1], "\n"))
	}
	sameLines(t, "copy of a stock script", outs[0], outs[1])
}
