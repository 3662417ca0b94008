-- SPDX-License-Identifier: MIT
-- The module search paths of the scripts run from a checkout (run.lua, young/study.lua):
-- lua/ of the checkout, and its build/lua/tauform.so first unless the caller chose a module with
-- LUA_CPATH (tests, out-of-tree builds), then after the caller's entries; else an installed one.
-- Usage: dofile(root .. "/examples/checkout.lua")(root), root = the checkout.
return function(root)
  package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
  if os.getenv("LUA_CPATH_5_4") or os.getenv("LUA_CPATH") then
    package.cpath = package.cpath .. ";" .. root .. "/build/lua/?.so"
  else
    package.cpath = root .. "/build/lua/?.so;" .. package.cpath
  end
end
