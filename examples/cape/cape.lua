-- SPDX-License-Identifier: MIT
-- A cape pinned to a shoulder line that walks forward, swings side to side and stops; tau keyed
-- from lively to settled, kappa keyed to let it swing while walking and damp it at the end.
--   lua5.4 examples/run.lua examples/cape/cape.lua --out cape.pc2
local tauform = require "tauform"
local key = tauform.key

-- 0.8 m wide, 1.1 m long, hanging in the x-z plane from z = 1.5 m; row0 is the shoulder line
local mesh = tauform.mesh.grid{ width = 0.8, height = 1.1, nx = 24, ny = 33,
                                origin = { -0.4, 0, 1.5 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }

return {
  mesh = mesh,
  material = { density = 0.25, stretch = 4000, poisson = 0.3 },
  fps = 24, frames = { 1, 96 }, substeps = 2,
  -- lively while walking, settling fast once stopped
  tau = key{ { 1, 0.3 }, { 60, 0.3 }, { 72, 2.0 } },
  kappa = key{ { 1, 0.5 }, { 60, 0.5 }, { 80, 0.0 } },
  bend = { value = 2e-5, groups = { row0 = 5e-4 } },   -- a stiffer hem at the shoulders
  gravity = { 0, 0, -9.81 },
  view = { 1.2, 1.6, 0.5 },                            -- pictures: from the front, walking to the right
  pins = {
    { group = "row0",
      translate = key{ { 1, { 0, 0, 0 } }, { 12, { 0, 0.1, 0 } }, { 48, { 0, 1.2, 0.05 } }, { 60, { 0, 1.4, 0 } } },
      rotate = { axis = { 0, 0, 1 }, center = { 0, 0, 1.5 },
                 angle = key{ { 1, 0 }, { 20, 12 }, { 36, -12 }, { 52, 8 }, { 64, 0 } } } },
  },
}
