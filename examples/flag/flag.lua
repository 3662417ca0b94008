-- SPDX-License-Identifier: MIT
-- A flag on a pole in wind that rises, then gusts with turbulence; tau keyed from lively (low) to
-- settled (high).
--   lua5.4 examples/run.lua examples/flag/flag.lua --out flag.pc2
local tauform = require "tauform"
local key = tauform.key

-- 1.2 m x 0.8 m, its first column on a pole at x = 0, the cloth starting across the wind (y-z plane)
local mesh = tauform.mesh.grid{ width = 1.2, height = 0.8, nx = 24, ny = 16,
                                origin = { 0, 0, 3 }, u = { 0, 1, 0 }, v = { 0, 0, -1 } }

return {
  mesh = mesh,
  material = { density = 0.15, stretch = 3000, poisson = 0.3 },
  fps = 24, frames = { 1, 120 }, substeps = 2,
  tau = key{ { 1, 0.3 }, { 70, 0.3 }, { 100, 3.0 } },
  kappa = 0,
  bend = 5e-5,
  gravity = { 0, 0, -9.81 },
  view = { 0.4, -1.6, 0.3 },
  wind = {
    velocity = key{ { 1, { 0, 0, 0 } }, { 36, { 8, 1, 0 } }, { 120, { 10, 0, 0 } } },
    drag = 1.2, lift = 0.6,
    turbulence = { amplitude = key{ { 1, 0 }, { 36, 0 }, { 60, 1.5 } }, scale = 0.8, time = 0.4, seed = 7 },
    gust = { amplitude = key{ { 1, 0 }, { 48, 0.6 } }, period = 1.5 },
  },
  pins = { { group = "col0" } },
}
