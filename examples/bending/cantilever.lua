-- SPDX-License-Identifier: MIT
-- The fabric lab's cantilever test (Peirce 1930, ASTM D1388): a strip clamped level with an
-- overhang L bends under its own weight; when L = 2c, c = (B / w)^(1/3) its bending length (B the
-- bending stiffness per width, w the weight per area), the chord from the clamp to the tip makes
-- 41.5 degrees with the horizontal (the heavy elastica). The rig sets B from a lab's c, settles the
-- strip and prints the angle it measures.
--   lua5.4 examples/run.lua examples/bending/cantilever.lua
-- The clamp: three pinned columns at x <= 0; the triangles between pinned columns are held and give
-- the strip its slope at the last of them (plugin/docs/physics.md, "Bending").
local tauform = require "tauform"

local L, width, cells = 0.1, 0.02, 40          -- 10 cm overhang of a 2 cm strip, 40 cells along it
local density, c = 0.2, L / 2                  -- kg/m^2, and the bending length a lab measured
local bend = density * 9.81 * c ^ 3            -- B = w c^3, N m per width
local h = L / cells
local mesh = tauform.mesh.grid{ width = h * (cells + 2), height = width, nx = cells + 2, ny = 8,
                                origin = { -2 * h, 0, 0 } }
local function tip(sim)
  local x, ax, drop, n = sim:positions(), 0, 0, 0
  for i = 1, #x, 3 do
    if mesh.vertices[i] > L - 0.5 * h then ax, drop, n = ax + x[i], drop - x[i + 2], n + 1 end
  end
  return ax / n, drop / n
end

return {
  mesh = mesh,
  material = { density = density, stretch = 1000, bend_model = "shell" },
  bend = bend,
  tau = 0.05, fps = 24, frames = { 1, 48 }, substeps = 1,
  solver = { tolerance = 1e-6 },
  pins = { { select = function(x) return x < 0.5 * h end } }, -- the clamp: three columns
  view = { 0.05, -0.25, 0.0 },
  frame = function(frame, sim)
    if frame ~= 48 then return end
    local x, drop = tip(sim)
    print(("cantilever: B = %.3g N m, chord %.2f deg (ASTM D1388 / heavy elastica: 41.5)")
      :format(bend, math.deg(math.atan(drop, x))))
  end,
}
