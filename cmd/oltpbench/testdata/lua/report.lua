-- Report hooks: every interval through report_csv, report_json and
-- report_default, and the end through report_cumulative and report_json.
function event()
  sysbench.sql.driver():connect():query("SELECT 1")
end
function sysbench.hooks.report_intermediate(stat)
  local keys = {}
  for k, v in pairs(stat) do keys[#keys+1] = k .. "=" .. type(v) end
  table.sort(keys)
  print("keys", table.concat(keys, " "))
  sysbench.report_csv(stat)
  sysbench.report_json(stat)
  sysbench.report_default(stat)
end
function sysbench.hooks.report_cumulative(stat)
  local keys = {}
  for k, v in pairs(stat) do keys[#keys+1] = k .. "=" .. type(v) end
  table.sort(keys)
  print("cumkeys", table.concat(keys, " "))
  sysbench.report_json(stat)
end
