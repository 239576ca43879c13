-- A module beside the script, loaded with require.
local M = {}
function M.greet(who) return "hello " .. who end
return M
