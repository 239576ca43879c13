-- LuaJIT's bit library, a global in sysbench: every function, with
-- negative numbers, numbers beyond 32 bits and fractions. The main chunk
-- prints too: sysbench prints that after its banner, once for the script
-- and once per thread.
print("chunk of", sysbench.cmdline.command, "in thread", sysbench.tid)
local xs = {0, 1, -1, 5, -5, 255, 2^31, 2^31 - 1, -2^31, 2^32 + 7, 2^40 + 3, 1.5, 2.5, -2.5, 0x12345678, 0xdeadbeef}
function event()
   for _, x in ipairs(xs) do
      print(x, bit.tobit(x), bit.bnot(x), bit.bswap(x), bit.tohex(x), bit.tohex(x, 4), bit.tohex(x, -3),
            bit.band(x, 0xff, 0x0f), bit.bor(x, 0x100), bit.bxor(x, -1, 3))
      for _, n in ipairs({0, 1, 4, 31, 32, 33, -1}) do
         print("", n, bit.lshift(x, n), bit.rshift(x, n), bit.arshift(x, n), bit.rol(x, n), bit.ror(x, n))
      end
   end
   return true
end
