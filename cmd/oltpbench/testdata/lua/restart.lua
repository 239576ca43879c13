-- An event that hits an error in --mysql-ignore-errors every third time:
-- sysbench restarts it (sysbench.error.RESTART_EVENT), calling
-- sysbench.hooks.before_restart_event first.
function prepare()
   sysbench.sql.driver():connect():query("CREATE TABLE restarts (id INT PRIMARY KEY)")
end

function cleanup()
   sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS restarts")
end

function thread_init()
   con = sysbench.sql.driver():connect()
   n, restarts = 0, 0
end

function sysbench.hooks.before_restart_event(err)
   restarts = restarts + 1
   if restarts <= 2 then
      print("restart", err.errcode == sysbench.error.RESTART_EVENT, err.sql_errno, err.sql_state)
   end
end

function event()
   n = n + 1
   if n % 3 == 0 then
      con:query("INSERT INTO restarts VALUES (1) ON DUPLICATE KEY UPDATE no_such_column = 1")
   end
   con:query("SELECT 1")
end

function thread_done()
   print("events tried", n, "restarts", restarts)
end
