-- SPDX-License-Identifier: MIT
-- tauform: cloth and flesh simulation with tau damping (Young 2007), Lua 5.4 API.
--   local tauform = require "tauform"
--   local sim <close> = tauform.cloth{ vertices = ..., triangles = ..., tau = 0.5 }
--   local body <close> = tauform.flesh{ surface = tauform.mesh.ellipsoid{ radii = {0.2, 0.15, 0.1} },
--                                       cells = 10, youngs = 3e4, poisson = 0.45, tau = 0.2 }
-- The simulation methods come from the C binding (tauform.core); this module adds the mesh
-- helpers, keyframe curves, rigs, caches and the frame-range runner. Every table a user writes is
-- checked against tauform.schema before use (an unknown or misspelled field is an error naming
-- the closest valid one); plugin/docs/reference.md is generated from that schema.
local core = require "tauform.core"
local schema = require "tauform.schema"

-- "bad argument #n to 'fname' (msg)", at the caller of the wrapped function, as the binding words it
local function argerror(n, fname, msg) error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), 3) end

-- the constructors, checked against their schema; the kind's parameters the C constructor does not
-- read (wind, drag, ...) are set right after creation, so every parameter is a constructor field.
-- The C functions are called through upvalues named like them, so their own errors still name
-- 'cloth' and 'flesh'.
local function after(name, def, sim)
  local set = type(def) == "table" and schema.after_params(name, def)
  if set then
    local ok, err = pcall(sim.set, sim, set)
    if not ok then
      sim:close()
      argerror(1, name, (tostring(err):match("^bad argument #%d+ to '[^']*' %((.*)%)$") or tostring(err)))
    end
  end
  return sim
end

local function check(name, def, n)
  if type(def) == "table" then
    local msg = schema.validate(name, def)
    if msg then error(("bad argument #%d to '%s' (%s)"):format(n or 1, name, msg), 3) end
  end
end

local cloth, flesh = core.cloth, core.flesh
local function checked_cloth(def, ...)
  check("tauform.cloth", def)
  local sim = cloth(def, ...)
  return after("tauform.cloth", def, sim)
end
local function checked_flesh(def, ...)
  check("tauform.flesh", def)
  local sim = flesh(def, ...)
  return after("tauform.flesh", def, sim)
end

local function pass(...) return ... end

-- the methods that take option tables (render_png, render_sheet, collider, and the collider's set),
-- checked before the C method runs; sim:set and sim:get check their parameter names in C. The
-- argument number counts self only when the method is not called with a colon, as Lua's own
-- messages do.
local function wrap_methods()
  local reg = debug and debug.getregistry and debug.getregistry()
  local mt = reg and reg["tauform.sim"]
  if not mt or type(mt.__index) ~= "table" then return end
  if reg["tauform.schema.wrapped"] then -- a reloaded module: the methods are wrapped already
    core.unchecked_methods = reg["tauform.unchecked_methods"]
    return
  end
  reg["tauform.schema.wrapped"] = true
  local m = mt.__index
  local render_png, render_sheet = m.render_png, m.render_sheet
  -- the binding's own methods, for specs that test the C binding's checks beneath the schema's
  core.unchecked_methods = { render_png = render_png, render_sheet = render_sheet }
  reg["tauform.unchecked_methods"] = core.unchecked_methods
  local function opts(opt, n, fname)
    if type(opt) ~= "table" then return end
    local msg = schema.validate("render options", opt)
    if not msg then return end
    local how = debug.getinfo(2, "n")
    if how and how.namewhat == "method" then n = n - 1 end
    error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), 3)
  end
  m.render_png = function(self, path, opt, ...)
    opts(opt, 3, "render_png")
    return pass(render_png(self, path, opt, ...))
  end
  m.render_sheet = function(self, path, shapes, opt, ...)
    opts(opt, 4, "render_sheet")
    return pass(render_sheet(self, path, shapes, opt, ...))
  end
  -- sim:collider{...} and collider:set{...}: the schema's check (nearest name, path) before the
  -- binding's own
  local function checked(name, t, n, fname)
    if type(t) ~= "table" then return end
    local msg = schema.validate(name, t)
    if not msg then return end
    local how = debug.getinfo(2, "n")
    if how and how.namewhat == "method" then n = n - 1 end
    error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), 3)
  end
  -- the C function's own errors, called from here, number self as #1 and carry this file's
  -- position: reworded as if the caller had called it directly ("calling 'set' on bad self (...)"
  -- or the argument number Lua would give), at the caller's position
  local function direct(fn, fname, ...)
    local res = table.pack(pcall(fn, ...))
    if res[1] then return table.unpack(res, 2, res.n) end
    local err = res[2]
    local n, msg = tostring(err):match("^[^\n]-bad argument #(%d+) to '[^']*' %((.*)%)$")
    if not n then error(err, 3) end
    local how = debug.getinfo(2, "n")
    n = tonumber(n)
    if how and how.namewhat == "method" then
      if n == 1 then error(("calling '%s' on bad self (%s)"):format(fname, msg), 3) end
      n = n - 1
    end
    error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), 3)
  end
  local collider = m.collider
  m.collider = function(self, def, ...)
    checked("sim:collider", def, 2, "collider")
    return pass(direct(collider, "collider", self, def, ...))
  end
  local cmt = reg["tauform.collider"]
  if cmt and type(cmt.__index) == "table" then
    local cm = cmt.__index
    local set = cm.set
    cm.set = function(self, t, ...)
      checked("collider:set", t, 2, "set")
      return pass(direct(set, "set", self, t, ...))
    end
    core.unchecked_methods.collider_set = set
  end
  core.unchecked_methods.collider = collider
end
wrap_methods()

local tauform = {
  version = core.version,
  core = core,
  cloth = checked_cloth,
  flesh = checked_flesh,
  tet_load = core.tet_load,
  critical_damping = core.critical_damping,
  native_bytes = core.native_bytes,
  measure_settle = core.measure_settle,
}

tauform.mesh = require "tauform.mesh" -- its helpers check their options against the schema
-- the mesh helpers' option tables, checked (the helpers themselves live in mesh.lua)
tauform.schema = schema
tauform.keyframes = require "tauform.keyframes"
tauform.key = tauform.keyframes.curve
tauform.cache = require "tauform.cache"
tauform.rig = require "tauform.rig"
tauform.run = require("tauform.run").run
tauform.plot = require "tauform.plot"

return tauform
