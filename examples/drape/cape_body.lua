-- SPDX-License-Identifier: MIT
-- A cape pinned behind the shoulders of a simple body that walks, turns and stops: the torso is
-- an ellipsoid collider and the pins ride on the same keyed transform, so the body carries the
-- cape rigidly. When the body stops, the cape swings forward onto its back and rests there; when
-- it turns, the cape slides round its side. Nothing passes through the torso.
--   lua5.4 examples/run.lua examples/drape/cape_body.lua --out cape_body.pc2 --sheet cape_body.png
local tauform = require "tauform"
local key = tauform.key

-- the torso: 0.4 m wide, 0.26 m deep, 0.64 m tall, centred 1.15 m above the ground
local torso = tauform.mesh.ellipsoid{ radii = { 0.2, 0.13, 0.32 }, center = { 0, 0, 1.15 }, rings = 16, segments = 32 }

-- 0.44 m x 0.9 m cape hanging in the x-z plane 2 cm behind the back (+y is behind: it walks to -y)
local mesh = tauform.mesh.grid{ width = 0.44, height = 0.9, nx = 22, ny = 45,
                                origin = { -0.22, 0.15, 1.45 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }

-- the body's motion, shared by the torso and the shoulder pins: walk 1.6 m forward, stop at frame
-- 40, then turn 50 degrees about the vertical and back
local walk = key{ { 1, { 0, 0, 0 } }, { 10, { 0, -0.15, 0 } }, { 34, { 0, -1.45, 0 } }, { 40, { 0, -1.6, 0 } } }
local turn = { axis = { 0, 0, 1 }, center = { 0, 0, 1.15 },
               angle = key{ { 1, 0 }, { 48, 0 }, { 60, 50 }, { 72, 50 }, { 84, 0 } } }

return {
  mesh = mesh,
  material = { density = 0.3, stretch = 4000, poisson = 0.3 },
  fps = 24, frames = { 1, 96 }, substeps = 2,
  tau = 0.4,
  kappa = 0.2,                        -- a little swing left in it
  bend = { value = 2e-5, groups = { row0 = 5e-4 } },
  gravity = { 0, 0, -9.81 },
  view = { 1.4, 1.2, 0.5 },           -- from behind and to the side
  solver = { tolerance = 1e-2, max_newton = 8 },
  contact = { thickness = 0.003, friction = 0.5 },
  colliders = {
    { mesh = torso, one_sided = true, thickness = 0.004, friction = 0.5, rotate = turn, translate = walk },
  },
  pins = { { group = "row0", rotate = turn, translate = walk } },
}
