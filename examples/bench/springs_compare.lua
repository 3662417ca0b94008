-- SPDX-License-Identifier: MIT
-- Spring cloth (shear 400 N/m, bend springs 50 N/m) against the membrane (poisson 0.3) with shell
-- bending (2.45e-4 N m), both with stretch 1000 N/m:
-- 1. the lab's cantilever strip (0.1 m x 0.02 m, a 2 cm clamp, 8 cm overhang, 0.2 kg/m^2) at 10
--    to 80 cells along: the tip's height. The shell's bending is a plate's and converges; a bend
--    spring resists only at second order in the fold, less on a finer mesh;
-- 2. a 1 m square hanging from its top edge with gravity in its own plane (a sideways load that
--    shears and bends it in-plane), 8 and 16 cells: the bottom middle's sideways displacement.
--   lua5.4 examples/bench/springs_compare.lua
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
dofile(root .. "/examples/checkout.lua")(root)
local t = require "tauform"
local function run(extra, nx)
  local ny = math.max(2, nx // 5)
  local m = t.mesh.grid{ width = 0.1, height = 0.02, nx = nx, ny = ny, origin = { 0, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 1, 0 } }
  local def = { vertices = m.vertices, triangles = m.triangles, density = 0.2, tau = 10, solver = { tolerance = 1e-6, max_newton = 100 } }
  for k, v in pairs(extra) do def[k] = v end
  local s <close> = t.cloth(def)
  local pins = {}
  for j = 0, ny do for i = 0, nx // 5 do pins[#pins + 1] = j * (nx + 1) + i + 1 end end
  s:pin(pins)
  for _ = 1, 150 do s:advance(1/24, 2) end
  local x = s:positions()
  local tip = 0
  for j = 0, ny do tip = tip + x[3 * (j * (nx + 1) + nx + 1)] / (ny + 1) end
  return tip
end
for _, nx in ipairs{ 10, 20, 40, 80 } do
  print(("%2d cells: membrane + shell tip z %.4f m, springs tip z %.4f m"):format(nx, run({ stretch = 1000, bend = 2.45e-4 }, nx),
    run({ cloth_model = "springs", stretch = 1000, shear = 400, bend_springs = 50 }, nx)))
end

local function sideways(extra, n)
  local m = t.mesh.grid{ width = 1, height = 1, nx = n, ny = n, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
  local def = { vertices = m.vertices, triangles = m.triangles, density = 0.1, tau = 20, gravity = { 9.81, 0, 0 },
                solver = { tolerance = 1e-8 } }
  for k, v in pairs(extra) do def[k] = v end
  local s <close> = t.cloth(def)
  s:pin(m.groups.row0)
  for _ = 1, 60 do s:advance(1 / 24) end
  local i = n * (n + 1) + n // 2 + 1
  return s:positions()[3 * i - 2] - m.vertices[3 * i - 2]
end
for _, n in ipairs{ 8, 16 } do
  print(("%2d cells, sideways load: membrane moves %.2f mm, springs %.2f mm"):format(n,
    1e3 * sideways({ stretch = 1000 }, n),
    1e3 * sideways({ cloth_model = "springs", stretch = 1000, shear = 400, bend_springs = 50 }, n)))
end
