-- SPDX-License-Identifier: MIT
-- "Make the belly move as one piece": a hand pushes the side of a soft belly (the flesh of
-- examples/flesh/belly.lua, its back third held on the bone) for a quarter of a second. With the
-- response global (ABI 1.14, Palazzi 1993 ch. 4) the push moves the whole belly: it swings over
-- to the other side and back, as one piece, and settles on tau. RESPONSE=local in the environment
-- runs the same push on level 0: the flesh dents under the hand and the belly barely moves. The
-- stiffness, the rest shape and the settle time are the same in both: only where the push acts.
--   lua5.4 examples/run.lua examples/palazzi/belly.lua --out belly.pc2 --sheet belly.png
local tauform = require "tauform"
local key = tauform.key

-- 36 cm wide, 24 cm deep, 30 cm tall, its back at y = -0.12
local skin = tauform.mesh.ellipsoid{ radii = { 0.18, 0.12, 0.15 }, center = { 0, 0, 1.0 }, rings = 16, segments = 32 }
local global = os.getenv("RESPONSE") ~= "local"

return {
  flesh = { surface = skin, cells = 10 },
  material = { youngs = 15e3, poisson = 0.45, density = 1000 },  -- soft fat, 13.6 kg
  fps = 24, frames = { 1, 48 }, substeps = 2,
  kappa = 0.8, tau = 0.1,                                      -- lively, settling in a second
  gravity = { 0, 0, -9.81 },
  view = { 0.2, -1.2, 0.9 },
  pins = { { select = function(x, y, z) return y < -0.06 end } },  -- the back third on the bone
  -- a hand on the right side pushes left with 40 N for frames 6..11
  pokes = { { at = { 0.18, 0.02, 1.0 }, radius = 0.12, frames = { 6, 11 }, force = { -40, 0, 0 } } },
  response = global and { global = 100 } or { levels = { 100 } },
}
