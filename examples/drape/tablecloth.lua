-- SPDX-License-Identifier: MIT
-- A tablecloth dropped on a table with a ball on it: the table top is a box collider, the ball an
-- ellipsoid collider resting on it, and the floor the ground plane. The cloth falls 0.1 m onto the
-- ball, then onto the top, and its overhang swings down and settles around the table's edges.
--   lua5.4 examples/run.lua examples/drape/tablecloth.lua --out tablecloth.pc2 --sheet tablecloth.png
local tauform = require "tauform"

-- a closed box with outward triangles (a collider for one_sided contact)
local function box(lo, hi) return tauform.mesh.box{ lo = lo, hi = hi } end

local TOP = 0.75                       -- m, the table top's height
local BALL_R = 0.12                    -- m

-- 1.6 m x 1.2 m cloth of 2.5 cm cells, flat 0.1 m above the ball
local mesh = tauform.mesh.grid{ width = 1.6, height = 1.2, nx = 64, ny = 48, origin = { -0.8, -0.6, TOP + 2 * BALL_R + 0.1 } }

return {
  mesh = mesh,
  material = { density = 0.2, stretch = 5000, poisson = 0.3 },   -- a cotton-like 200 g/m^2
  fps = 24, frames = { 1, 48 }, substeps = 1,
  tau = 0.5,                           -- settles within about half a second of landing
  kappa = 0,
  bend = 2e-5,
  gravity = { 0, 0, -9.81 },
  view = { 1.0, -1.5, 0.5 },
  solver = { tolerance = 1e-2, max_newton = 8 },
  -- the gap to a collider is the cloth's thickness plus the collider's: 3 + 5 = 8 mm
  contact = { thickness = 0.003, friction = 0.4 },
  ground = { height = 0, friction = 0.6 },
  colliders = {
    { mesh = box({ -0.6, -0.4, TOP - 0.04 }, { 0.6, 0.4, TOP }), one_sided = true, thickness = 0.005, friction = 0.5 },
    { mesh = tauform.mesh.ellipsoid{ radii = { BALL_R, BALL_R, BALL_R }, center = { 0.2, 0.05, TOP + BALL_R },
                                     rings = 12, segments = 24 },
      one_sided = true, thickness = 0.005, friction = 0.5 },
  },
}
