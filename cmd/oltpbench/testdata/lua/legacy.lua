-- The 0.5-era API that sysbench 1.0 keeps: db_* and sb_rand*.
function prepare()
   db_connect()
   db_query("CREATE TABLE legacy (id INT PRIMARY KEY, name VARCHAR(10))")
   db_bulk_insert_init("INSERT INTO legacy VALUES")
   for i = 1, 5 do
      db_bulk_insert_next(string.format("(%d, '%s')", i, sb_rand_str("##")))
   end
   db_bulk_insert_done()
   db_disconnect()
end

function cleanup()
   db_connect()
   db_query("DROP TABLE IF EXISTS legacy")
end

function thread_init()
   db_connect()
   stmt = db_prepare("UPDATE legacy SET name = ? WHERE id = ?")
   params = {"", 0}
   db_bind_param(stmt, params)
end

function event()
   print("constants", DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED, thread_id)
   local id = sb_rand_uniform(1, 5)
   print("rand", id >= 1 and id <= 5, sb_rand(1, 5) <= 5, sb_rand_gaussian(1, 5) <= 5, sb_rand_special(1, 5) <= 5,
         #sb_rand_str("###"), sb_rand_uniq() ~= nil)
   params[1] = "x" .. id
   params[2] = id
   db_execute(stmt)
   db_query("SELECT COUNT(*) FROM legacy")
   return true
end

function thread_done()
   db_close(stmt)
   db_disconnect()
end
