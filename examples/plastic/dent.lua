-- SPDX-License-Identifier: MIT
-- A flesh cushion that keeps a dent: a soft flattened ball, filled with tets by the library, sits
-- on its flat underside (held); a thumb (the lattice nodes under the top within 5 cm of its
-- middle) presses 6 cm into it over half a second, holds, and lets go at frame 30. Its tets yield
-- past 5 % equivalent strain, volume kept (ABI 1.12): the dent stays, the flesh around it bulged
-- up a little. PLASTIC=0 in the environment runs the same rig elastic: it springs back.
--   lua5.4 examples/run.lua examples/plastic/dent.lua --sheet dent.png
local tauform = require "tauform"
local key = tauform.key

-- 36 cm across, 16 cm tall, its middle at z = 0.08
local skin = tauform.mesh.ellipsoid{ radii = { 0.18, 0.18, 0.08 }, center = { 0, 0, 0.08 }, rings = 24, segments = 48 }
local plastic = os.getenv("PLASTIC") ~= "0"

return {
  flesh = { surface = skin, cells = 12 },
  material = { youngs = 20e3, poisson = 0.45, density = 1000 },
  fps = 24, frames = { 1, 72 }, substeps = 1,
  tau = 0.2,
  plastic = plastic and { yield = 0.05, limit = 0.6 } or nil,
  view = { 0.5, -0.9, 1.3 },
  pins = {
    { select = function(x, y, z) return z < 0.02 end },  -- the underside rests on the table
    { select = function(x, y, z) return z > 0.11 and x * x + y * y < 0.05 * 0.05 end, release = 30,
      translate = key{ { 1, { 0, 0, 0 } }, { 13, { 0, 0, -0.06 } }, { 30, { 0, 0, -0.06 } } } },
  },
}
