-- SPDX-License-Identifier: MIT
-- A belly on a bouncing pelvis: a soft ellipsoid, filled with tets by the library, whose back
-- third rides on the "bone" (hard pins following its keyed bob and sway). While the body bounces
-- kappa is high, so the flesh jiggles; once it stops, kappa drops and tau rises and the flesh
-- settles within a few frames. The cache holds the skin (the ellipsoid's own vertices).
--   lua5.4 examples/run.lua examples/flesh/belly.lua --out belly.pc2 --sheet belly.png
local tauform = require "tauform"
local key = tauform.key

-- 36 cm wide, 24 cm deep, 30 cm tall, its back at y = -0.12
local skin = tauform.mesh.ellipsoid{ radii = { 0.18, 0.12, 0.15 }, center = { 0, 0, 1.0 }, rings = 16, segments = 32 }

-- the pelvis bobs 4 cm twice a second and sways, for two seconds, then stands still
local bob, sway = { { 1, { 0, 0, 0 } } }, { { 1, 0 } }
for k = 1, 8 do
  local f = 1 + 6 * k
  bob[#bob + 1] = { f, { 0, 0, k % 2 == 1 and 0.04 or 0.0 } }
  sway[#sway + 1] = { f, k % 2 == 1 and 4 or -4 }
end
bob[#bob + 1] = { 55, { 0, 0, 0 } }
sway[#sway + 1] = { 55, 0 }

return {
  flesh = { surface = skin, cells = 10 },
  material = { youngs = 15e3, poisson = 0.45, density = 1000 },  -- soft fat
  fps = 24, frames = { 1, 96 }, substeps = 2,
  -- lively (little damping, inertia on) while bouncing; settled fast once still
  kappa = key{ { 1, 0.9 }, { 56, 0.9 }, { 64, 0.0 } },
  tau = key{ { 1, 0.1 }, { 56, 0.1 }, { 64, 1.0 } },
  gravity = { 0, 0, -9.81 },
  view = { 1.4, -1.2, 0.5 },
  pins = {
    { select = function(x, y, z) return y < -0.06 end,   -- the back third sits on the bone
      translate = key(bob),
      rotate = { axis = { 0, 0, 1 }, center = { 0, -0.12, 1.0 }, angle = key(sway) } },
  },
}
