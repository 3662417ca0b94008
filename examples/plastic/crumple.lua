-- SPDX-License-Identifier: MIT
-- A spring-cloth sheet that keeps its creases: hung from its top edge, its bottom edge is lifted
-- to the top and pushed back and forth (frames 1-40), so the sheet folds and crumples, then let go
-- (frame 48). Its springs yield past 3 % (at most 40 %, over 0.1 s): let go, it hangs with the
-- folds it was given instead of falling flat. PLASTIC=0 in the environment runs the same rig
-- elastic, for comparison.
--   lua5.4 examples/run.lua examples/plastic/crumple.lua --sheet crumple.png
local tauform = require "tauform"
local key = tauform.key

-- 0.6 m square in the x-z plane from z = 1.2 m, 30 x 30 cells; row0 the top, rowN the bottom edge
local mesh = tauform.mesh.grid{ width = 0.6, height = 0.6, nx = 30, ny = 30,
                                origin = { -0.3, 0, 1.2 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
local plastic = os.getenv("PLASTIC") ~= "0"

return {
  mesh = mesh,
  material = { density = 0.2, cloth_model = "springs", stretch = 800, shear = 300, bend_springs = 20 },
  fps = 24, frames = { 1, 96 }, substeps = 2,
  tau = 2,
  plastic = plastic and { yield = 0.03, limit = 0.4, time = 0.1 } or nil,
  view = { 1.0, -1.6, 0.4 },
  pins = {
    { group = "row0" },
    -- the bottom edge: up to 10 cm below the top, pushed sideways and back, then let go
    { group = "rowN", release = 48,
      translate = key{ { 1, { 0, 0, 0 } }, { 20, { 0, 0.08, 0.5 } }, { 30, { 0.12, -0.04, 0.5 } },
                       { 40, { -0.1, 0.04, 0.45 } }, { 48, { 0, 0, 0.45 } } } },
  },
}
