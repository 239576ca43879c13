-- Report hooks: every interval through report_csv, report_json and
-- report_default, and the end through report_cumulative and report_json.
function event()
  sysbench.sql.driver():connect():query("SELECT 1")
end

-- keys prints a stat table's fields and their types.
local function keys(label, stat)
  local k = {}
  for name, v in pairs(stat) do k[#k+1] = name .. "=" .. type(v) end
  table.sort(k)
  print(label, table.concat(k, " "))
end

function sysbench.hooks.report_intermediate(stat)
  keys("keys", stat)
  sysbench.report_csv(stat)
  sysbench.report_json(stat)
  sysbench.report_default(stat)
end

function sysbench.hooks.report_cumulative(stat)
  keys("cumkeys", stat)
  sysbench.report_json(stat)
end
