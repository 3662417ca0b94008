-- SPDX-License-Identifier: MIT
-- A banner that rips in a gust: 1.2 m x 0.6 m, hung by its two top corners, sewn from two halves
-- along its middle (the seam group tears at 4 % opening strain, the cloth itself at 60 %). Calm
-- air for a second, then a gust across it: the seam opens from the top edge down and the two
-- halves fly free of each other, each flapping from its own corner, self-contact keeping their
-- folds apart. The cache is an OBJ sequence (the vertex count grows when the seam splits).
--   lua5.4 examples/run.lua examples/tear/banner.lua --out banner.obj --sheet banner.png
local tauform = require "tauform"
local key = tauform.key

-- the x-z plane from z = 2, 32 x 16 cells: vertex (i, j) is j * 33 + i + 1, the seam at i = 16
local nx, ny = 32, 16
local mesh = tauform.mesh.grid{ width = 1.2, height = 0.6, nx = nx, ny = ny,
                                origin = { -0.6, 0, 2 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
local seam = {}
for j = 0, ny do seam[#seam + 1] = j * (nx + 1) + nx // 2 + 1 end
mesh.groups.seam = seam

return {
  mesh = mesh,
  material = { density = 0.15, stretch = 800, poisson = 0.3 },
  fps = 24, frames = { 1, 96 }, substeps = 2,
  tau = 0.5,
  bend = 2e-5,
  tear = { strain = 0.6, groups = { seam = 0.04 } },
  contact = { thickness = 0.003, self = 1 },  -- the halves' folds never pass through themselves
  view = { 0.6, -1.5, 0.3 },
  wind = {
    velocity = key{ { 1, { 0, 0, 0 } }, { 24, { 0, 0, 0 } }, { 36, { 1, 12, 0 } }, { 60, { 1, 4, 0 } }, { 96, { 0.5, 3, 0 } } },
    drag = 1.2, lift = 0.6,
    turbulence = { amplitude = key{ { 1, 0 }, { 30, 0 }, { 48, 1.5 } }, scale = 0.6, time = 0.3, seed = 3 },
  },
  pins = { { indices = { 1, nx + 1 } } },
}
