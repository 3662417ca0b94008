-- SPDX-License-Identifier: MIT
-- A sheet dropped edge-first onto the floor folds onto itself into a pile. With self-contact on
-- (contact.self = 1) its layers never pass through each other and rest one thickness (4 mm)
-- apart; set self = 0 to see the same drop fold through itself.
--   lua5.4 examples/run.lua examples/drape/pile.lua --out pile.pc2 --sheet pile.png
local tauform = require "tauform"

-- 1.2 m square of 3.75 cm cells, held almost upright with its lower edge 0.4 m above the floor
local mesh = tauform.mesh.grid{ width = 1.2, height = 1.2, nx = 32, ny = 32, origin = { -0.6, 0, 0.4 },
                                u = { 1, 0, 0 }, v = { 0, 0.25, 1 } }

return {
  mesh = mesh,
  material = { density = 0.2, stretch = 5000, poisson = 0.3 },
  fps = 24, frames = { 1, 48 }, substeps = 1,
  tau = 0.2,
  kappa = 0,
  bend = 2e-5,
  gravity = { 0, 0, -9.81 },
  view = { 1.2, -1.6, 1.0 },
  solver = { tolerance = 1e-2, max_newton = 12 },
  contact = { thickness = 0.004, friction = 0.4, self = 1 },
  ground = { height = 0, friction = 0.6 },
}
