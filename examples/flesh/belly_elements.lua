-- SPDX-License-Identifier: MIT
-- The belly rig (belly.lua) with each tet element on its 10-cell lattice. Prints each run's cost and how the skin moves (peak speed while bouncing,
-- the drop of the belly's front under gravity once still) and writes a contact sheet per run.
--   LUA_PATH='lua/?.lua;;' LUA_CPATH='build/lua/?.so;;' lua5.4 examples/flesh/belly_elements.lua
local tauform = require "tauform"

local here = (arg and arg[0] or ""):match("^(.*)/") or "."
local base = dofile(here .. "/belly.lua")

-- the same lattice for both: a coarser one also changes which vertices the rig's pins select (its
-- back third, y < -0.06 at rest), so it is another rig, not a coarser mesh of this one
local runs = { { "linear", 10 }, { "quadratic", 10 } }
print("| element | cells | tets | nodes | ms/frame | Newton/frame | front drop at frame 96 mm | peak skin speed m/s |")
print("|---|---|---|---|---|---|---|---|")
for _, r in ipairs(runs) do
  local element, cells = r[1], r[2]
  local rig = {}
  for k, v in pairs(base) do rig[k] = v end
  rig.flesh = { surface = base.flesh.surface, cells = cells, element = element }
  local peak, sim_info, skin = 0, nil, nil
  local skin0 = base.flesh.surface.vertices
  rig.frame = function(frame, sim)
    local v = sim:velocities()
    for i = 1, #v, 3 do peak = math.max(peak, math.sqrt(v[i] ^ 2 + v[i + 1] ^ 2 + v[i + 2] ^ 2)) end
    sim_info = sim_info or sim:info()
    skin = sim:surface_positions()
  end
  local sheet = ("%s/belly_%s_%d.png"):format(here, element, cells)
  local res = assert(tauform.run(rig, { sheet = sheet, rest_obj = false }))
  -- the front of the belly (y > 0.1 at rest): its mean drop in the last frame
  local x, drop, n = skin, 0, 0
  for i = 1, #skin0, 3 do
    if skin0[i + 1] > 0.1 then drop, n = drop + skin0[i + 2] - x[i + 2], n + 1 end
  end
  print(("| %s | %d | %d | %d | %.1f | %.1f | %.2f | %.3f |"):format(element, cells, sim_info.tets, sim_info.nodes,
    res.ms_per_frame, res.newton_per_frame, 1e3 * drop / n, peak))
end
