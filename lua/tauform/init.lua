-- SPDX-License-Identifier: MIT
-- tauform: cloth and flesh simulation with tau damping (Young 2007), Lua 5.4 API.
--   local tauform = require "tauform"
--   local sim <close> = tauform.cloth{ vertices = ..., triangles = ..., tau = 0.5 }
--   local body <close> = tauform.flesh{ surface = tauform.mesh.ellipsoid{ radii = {0.2, 0.15, 0.1} },
--                                       cells = 10, youngs = 3e4, poisson = 0.45, tau = 0.2 }
-- The simulation methods come from the C binding (tauform.core); this module adds the mesh
-- helpers, keyframe curves, rigs, caches and the frame-range runner.
local core = require "tauform.core"

local tauform = {
  version = core.version,
  core = core,
  cloth = core.cloth,
  flesh = core.flesh,
  tet_load = core.tet_load,
  critical_damping = core.critical_damping,
  native_bytes = core.native_bytes,
  measure_settle = core.measure_settle,
}

tauform.mesh = require "tauform.mesh"
tauform.keyframes = require "tauform.keyframes"
tauform.key = tauform.keyframes.curve
tauform.cache = require "tauform.cache"
tauform.rig = require "tauform.rig"
tauform.run = require("tauform.run").run
tauform.plot = require "tauform.plot"

return tauform
