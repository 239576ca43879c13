-- thread_init takes about two seconds: --thread-init-timeout below that
-- stops the run, the default lets it run.
function thread_init()
  local t = os.clock()
  while os.clock() - t < 2 do end
end

function event() end
