-- sysbench.histogram: values across the buckets, some in one bucket, some
-- outside the range; a script that never uses sysbench.sql (so its report
-- has no SQL statistics).
local h = sysbench.histogram.new(500, 0.01, 1000)
function event()
   for i = 1, 60 do h:update(i * i / 7) end
   for i = 1, 25 do h:update(3.3) end
   h:update(0.000001)
   h:update(1e12)
end
function thread_done()
   h:print()
end
