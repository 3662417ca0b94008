-- SPDX-License-Identifier: MIT
-- Rigs: a Lua file (or table) that describes a shot's animated parameters over frames.
--
--   return {
--     mesh = tauform.mesh.grid{...} or "cape.obj",     -- a path is relative to the rig file
--     material = { density = 0.2, stretch = 5000, poisson = 0.3, total_mass = nil, masses = nil },
--                -- stretch = { value = 2000, groups = { jacket = 8000 } }: each piece its fabric
--     fps = 24, frames = {1, 120}, substeps = 2,
--     tau = 0.5 or tauform.key{ {1, 0.2}, {48, 2.0} },  -- number, curve or function(frame)
--     settle = 1.5,                                       -- or: seconds to settle (replaces tau;
--                                                         -- number, curve or function)
--     kappa = 0, gravity = {0, 0, -9.81},                 -- likewise (gravity a 3-vector)
--     bend = 1e-5 or curve or { value = 1e-5, groups = { collar = 1e-3 } },  -- per-vertex map
--     plastic = { yield = 0.05, limit = 0.2 or { value = 0, groups = { elbow = 0.3 } },  -- springs,
--                 time = 0.5 },        -- triangles, tets: rest shapes yield past 5 %, at most 20 %
--     plastic = { bend_yield = 5, bend_limit = 40 or { ... } },  -- bending (1/m): folds crease
--     pins = {
--       { group = "row0" or indices = {...}, weight = 1,  -- 1 hard, < 1 soft
--         translate = {x, y, z} or curve of {x, y, z},
--         rotate = { axis = {0, 0, 1}, angle = degrees or curve, center = {x, y, z} },
--         targets = function(frame, rest) return {x1, y1, z1, ...} end,  -- or full control
--         release = 48 },                                 -- optional: free from frame 48 on
--     },
--     pokes = { { at = {x, y, z}, radius = 0.1,            -- a force on a spot (rest coordinates),
--                 force = {0, 2, 0} or curve, frames = {10, 12} } },  -- N in all, or a group
--     response = { levels = {20}, global = 80,            -- percent per level from the vertices,
--                  groups = { belly = {0, 0, 100} } },     -- global: the body as one piece (Palazzi)
--     wind = { velocity = {10, 0, 0} or curve,             -- m/s; air density 1.225 by default
--              drag = 1.2, lift = 0.6, density = 1.225,
--              turbulence = { amplitude = 2, scale = 1, time = 0.5, seed = 0 },  -- m/s, m, s
--              gust = { amplitude = 0.5, period = 3 } },  -- up to 1.5x the base wind, every ~3 s
--     contact = { thickness = 0.002, friction = 0.3, self = 1 }, -- the cloth's (or skin's); keyed
--     ground = { normal = {0, 0, 1}, height = 0, friction = 0.5 },  -- a plane; none without it
--     colliders = {                                       -- triangle meshes it does not cross
--       { mesh = tauform.mesh.grid{...} or "box.obj",    -- or sequence = "body_####.obj" (a file
--         thickness = 0.001, friction = 0.5,             -- per frame, same topology); keyed
--         one_sided = false,                             -- closed, outward: push out what is inside
--         transform = matrix or function(frame),         -- 16 numbers row-major or 4 rows of 4,
--         rotate = { axis =, angle =, center = },        -- then a rotation as pins', then
--         translate = {x, y, z} or curve },              -- an offset
--     },
--     frame = function(frame, sim) end,                   -- optional hook after the rig's sets
--     view = {1, -1.5, 0.8},                              -- camera direction for pictures
--   }
--
-- A flesh rig gives `flesh` instead of `mesh` (and no `bend`):
--     flesh = { surface = tauform.mesh.ellipsoid{...} or "belly.obj",  -- the skin: filled with a
--               cells = 10,                                            -- lattice of tets, or embedded
--               tets = "belly.msh" or "belly.node" or { vertices, tets, regions } },  -- in given tets
--     material = { youngs = 3e4, poisson = 0.45, density = 1000,
--                  regions = { muscle = { youngs = 3e5 } } },  -- Gmsh physical names or region ids
--     pins = { { select = function(x, y, z) return z < 0.01 end, ... } },  -- by rest position
-- Its cache holds the skin's vertices (the simulation's own with no surface).
--
-- Rig:create() builds the simulation at the first frame (parameters of that frame, pinned vertices
-- at their targets, colliders at their first-frame pose); Rig:apply(sim, frame) sets every
-- parameter, the pin targets and the colliders' poses for `frame` (call it before advancing to that
-- frame: a collider moves linearly to its pose during the advance). The rig computes a collider's
-- pose itself and gives it with collider:move. Every table of the rig is checked against
-- tauform.schema when it loads (an unknown field names the closest valid one); a keyed function's
-- result is checked for every frame. Errors name the rig file and the field's path:
--   cape.lua: pins[1].weigth: unknown field (did you mean 'weight'?)
local keyframes = require "tauform.keyframes"
local meshlib = require "tauform.mesh"
local core = require "tauform.core"
local schema = require "tauform.schema"

local M = {}
local Rig = {}
Rig.__index = Rig

-- the slowest mode is recomputed when a load or stiffness it depends on changes by more than this
local SETTLE_RECOMPUTE = 0.1
local AIR_DENSITY = 1.225 -- kg/m^3, sea level: the default once a rig has wind
-- how far a collider matrix's last row may be from 0 0 0 1 (the binding's tolerance)
local MATRIX_ROW_TOL = 1e-9

local function fail(self, fmt, ...) error(("%s: " .. fmt):format(self.source, ...), 0) end

-- a binding error caught for a rig: its reason without "bad argument #n to 'f' (...)", which
-- names an argument of a call the rig author never wrote
local function why(err)
  err = tostring(err)
  return err:match("^bad argument #%d+ to '[^']*' %((.*)%)$") or err
end

local function check_param(self, name, v, vector)
  if v == nil then return end
  local t = type(v)
  if t == "function" or keyframes.is_curve(v) then return end
  if vector then
    if t ~= "table" or #v ~= 3 then fail(self, "field '%s' must be {x, y, z}, a curve or a function", name) end
  elseif t ~= "number" then
    fail(self, "field '%s' must be a number, a curve or a function (got %s)", name, t)
  end
end

-- a keyed value or a per-vertex map { value = ..., groups = { name = ... } } (bend, plastic.yield,
-- plastic.limit, plastic.bend_yield, plastic.bend_limit, material.stretch): the groups exist, and
-- every constant is within the parameter's range (param: its Lua name), so a bad group value is
-- named by its group when the rig loads, not by a vertex when the map is set
local function check_in_range(self, path, v, param)
  local p = param and core.params[param]
  if not p or type(v) ~= "number" then return end
  local ok = (p.lo_open and v > p.lo or not p.lo_open and v >= p.lo) and
             (p.hi_open and v < p.hi or not p.hi_open and v <= p.hi)
  if not ok then
    fail(self, "%s: must be in %s%g, %g%s%s, got %s", path, p.lo_open and "(" or "[", p.lo, p.hi,
         p.hi_open and ")" or "]", p.unit ~= "" and (" " .. p.unit) or "", tostring(v))
  end
end

local function check_map(self, path, x, param)
  if type(x) == "table" and not keyframes.is_curve(x) then
    check_param(self, path .. ".value", x.value or 0)
    check_in_range(self, path .. ".value", x.value, param)
    for name, v in pairs(x.groups or {}) do
      local ok, err = pcall(meshlib.group, self.mesh, name)
      if not ok then fail(self, "%s.groups: %s", path, err) end
      check_param(self, path .. ".groups." .. name, v)
      check_in_range(self, path .. ".groups." .. name, v, param)
    end
  else
    check_param(self, path, x)
    check_in_range(self, path, x, param)
  end
end

-- a keyed value at `frame`: a function's result is checked (a number, or {x, y, z} for a vector)
-- every frame, a constant or curve was checked when the rig loaded
local function sample(self, path, x, frame, vector)
  if type(x) == "function" then
    local v = x(frame)
    if v ~= nil then
      local msg = schema.check_result(path, v, vector)
      if msg then fail(self, "frame %g: %s", frame, msg) end
    end
    return v
  end
  return keyframes.sample(x, frame)
end

-- a keyed value at `frame`, or a per-vertex map from { value = ..., groups = { name = ... } }
local function value_or_map(self, path, b, frame, sim)
  if type(b) ~= "table" or keyframes.is_curve(b) then return sample(self, path, b, frame) end
  local base = sample(self, path .. ".value", b.value or 0, frame)
  local map = {}
  for i = 1, self.n do map[i] = base end
  for name, v in pairs(b.groups or {}) do
    local x = sample(self, path .. ".groups." .. name, v, frame)
    for _, i in ipairs(self.mesh.groups[name]) do map[i] = x end
  end
  -- a torn cloth has more vertices than its mesh: each copy is in its original vertex's groups
  if sim and sim:vert_count() > self.n then
    local origin, full = sim:origins(), {}
    for i = 1, #origin do full[i] = map[origin[i]] end
    return full
  end
  return map
end

-- Rodrigues rotation of p about axis (unit) through center by angle (radians)
local function rotate(p, axis, angle, center)
  local x, y, z = p[1] - center[1], p[2] - center[2], p[3] - center[3]
  local c, s = math.cos(angle), math.sin(angle)
  local kx, ky, kz = axis[1], axis[2], axis[3]
  local dot = kx * x + ky * y + kz * z
  local cx, cy, cz = ky * z - kz * y, kz * x - kx * z, kx * y - ky * x
  return x * c + cx * s + kx * dot * (1 - c) + center[1],
         y * c + cy * s + ky * dot * (1 - c) + center[2],
         z * c + cz * s + kz * dot * (1 - c) + center[3]
end

function M.load(spec, opt)
  opt = opt or {}
  local source, dir = opt.name or "rig", "."
  if type(spec) == "string" then
    source = spec
    dir = spec:match("^(.*)/[^/]*$") or "."
    local chunk, err = loadfile(spec, "t")
    if not chunk then error(err, 0) end
    local ok, res = pcall(chunk)
    if not ok then error(res, 0) end
    spec = res
  end
  if type(spec) == "function" then spec = spec() end
  if type(spec) ~= "table" then error(("%s: a rig must return a table"):format(source), 0) end
  local self = setmetatable({ spec = spec, source = source, dir = dir }, Rig)
  local bad = schema.validate("rig", spec)
  if bad then fail(self, "%s", bad) end
  if spec.flesh ~= nil then
    if spec.mesh ~= nil then fail(self, "give either 'mesh' (cloth) or 'flesh', not both") end
    if spec.bend ~= nil then fail(self, "field 'bend' is a cloth parameter: flesh has no hinges") end
    if spec.tear ~= nil then fail(self, "field 'tear' is a cloth parameter: flesh does not tear") end
    self:load_flesh(spec.flesh)
  else
    local mesh = self:load_mesh(spec.mesh, "mesh")
    if not mesh.triangles then fail(self, "field 'mesh' must be a mesh table {vertices, triangles, groups} or an OBJ path") end
    self.mesh = mesh
    self.n = #mesh.vertices // 3
  end
  local mesh = self.mesh
  self.fps = spec.fps or opt.fps or 24
  self.substeps = spec.substeps or 1
  self.frames = spec.frames or { 1, 48 }
  if type(self.fps) ~= "number" or self.fps <= 0 then fail(self, "field 'fps' must be a positive number") end
  check_param(self, "tau", spec.tau)
  check_param(self, "settle", spec.settle)
  if spec.settle ~= nil and spec.tau ~= nil then fail(self, "give either 'tau' or 'settle', not both") end
  check_param(self, "kappa", spec.kappa)
  check_param(self, "gravity", spec.gravity, true)
  check_map(self, "bend", spec.bend, "bend")
  local stretch = type(spec.material) == "table" and spec.material.stretch
  if type(stretch) == "table" then check_map(self, "material.stretch", stretch, "stretch") end
  if spec.plastic ~= nil then
    if type(spec.plastic) ~= "table" then fail(self, "field 'plastic' must be a table { yield = ..., limit = ..., time = ... }") end
    check_map(self, "plastic.yield", spec.plastic.yield, "plastic_yield")
    check_map(self, "plastic.limit", spec.plastic.limit, "plastic_limit")
    check_param(self, "plastic.time", spec.plastic.time)
    check_map(self, "plastic.bend_yield", spec.plastic.bend_yield, "bend_yield")
    check_map(self, "plastic.bend_limit", spec.plastic.bend_limit, "bend_plastic_limit")
  end
  if spec.tear ~= nil then
    if type(spec.tear) ~= "table" then fail(self, "field 'tear' must be a table { strain = ..., groups = { ... } }") end
    check_param(self, "tear.strain", spec.tear.strain)
    for name, v in pairs(spec.tear.groups or {}) do
      local ok, err = pcall(meshlib.group, self.mesh, name)
      if not ok then fail(self, "tear.groups: %s", err) end
      check_param(self, "tear.groups." .. name, v)
    end
  end
  self:check_response(spec.response)
  if spec.wind ~= nil then
    local w = spec.wind
    if type(w) ~= "table" then fail(self, "field 'wind' must be a table { velocity = ..., ... }") end
    check_param(self, "wind.velocity", w.velocity or { 0, 0, 0 }, true)
    for _, k in ipairs({ "density", "drag", "lift" }) do check_param(self, "wind." .. k, w[k]) end
    for _, part in ipairs({ "turbulence", "gust" }) do
      if w[part] ~= nil and type(w[part]) ~= "table" then fail(self, "field 'wind.%s' must be a table", part) end
    end
    check_param(self, "wind.turbulence.amplitude", (w.turbulence or {}).amplitude)
    check_param(self, "wind.gust.amplitude", (w.gust or {}).amplitude)
  end
  -- pins: resolve groups to index lists once
  self.pins = {}
  for k, p in ipairs(spec.pins or {}) do
    local ids = p.indices
    if p.group then
      if self.kind == "flesh" then fail(self, "pins[%d]: flesh pins choose vertices with select or indices", k) end
      local ok, res = pcall(meshlib.group, mesh, p.group)
      if not ok then fail(self, "pins[%d]: %s", k, res) end
      ids = res
    end
    if p.select ~= nil and type(p.select) ~= "function" then fail(self, "pins[%d].select must be a function(x, y, z)", k) end
    if type(ids) ~= "table" and not p.select then fail(self, "pins[%d] needs a group, an indices list or a select function", k) end
    local w = p.weight or 1
    if type(w) ~= "number" or w <= 0 or w > 1 then fail(self, "pins[%d].weight must be in (0, 1]", k) end
    if p.rotate and (type(p.rotate) ~= "table" or type(p.rotate.axis) ~= "table") then
      fail(self, "pins[%d].rotate must be { axis = {x, y, z}, angle = degrees or curve, center = {x, y, z} }", k)
    end
    self.pins[k] = { spec = p, ids = ids, weight = w }
  end
  self.colliders = {}
  for k, c in ipairs(spec.colliders or {}) do self.colliders[k] = self:load_collider(k, c) end
  self.collider_objects = setmetatable({}, { __mode = "k" }) -- per simulation this rig created
  return self
end

-- flat {x1, y1, z1, ...} from a flat or nested list of positions
local function flat(v)
  if type(v[1]) ~= "table" then return v end
  local out = {}
  for i, p in ipairs(v) do out[3 * i - 2], out[3 * i - 1], out[3 * i] = p[1], p[2], p[3] end
  return out
end

-- a 4x4 matrix (16 numbers row-major, or 4 rows of 4) flat, or nil and why not
local function flat_matrix(m)
  if not schema.is_matrix(m) then return nil, ("expected a 4x4 matrix (16 numbers row-major, or 4 rows of 4), got %s"):format(schema.got(m)) end
  local out = m
  if #m == 4 then
    out = {}
    for r = 1, 4 do for c = 1, 4 do out[4 * r - 4 + c] = m[r][c] end end
  end
  for i = 1, 16 do
    local x = out[i]
    if x ~= x or x == math.huge or x == -math.huge then return nil, ("entry %d is not finite"):format(i) end
  end
  local tol = MATRIX_ROW_TOL
  if math.abs(out[13]) > tol or math.abs(out[14]) > tol or math.abs(out[15]) > tol or math.abs(out[16] - 1) > tol then
    return nil, "the last row must be 0 0 0 1 (an affine transform)"
  end
  return out
end

-- the file of an OBJ sequence at an integer frame: the run of #s is the frame, zero-padded
local function sequence_path(self, pattern, frame)
  local path = pattern:gsub("#+", function(h) return ("%0" .. #h .. "d"):format(frame) end, 1)
  return path:sub(1, 1) == "/" and path or (self.dir .. "/" .. path)
end

-- a collider of the rig: its mesh (flat vertices) and, for a sequence, the pattern; files are
-- read now for the first frame, later as the frames need them
function Rig:load_collider(k, c)
  local path = ("colliders[%d]"):format(k)
  if c.mesh == nil and c.sequence == nil then fail(self, "%s needs a mesh or a sequence", path) end
  local mesh = c.mesh ~= nil and self:load_mesh(c.mesh, path .. ".mesh") or nil
  local col = { spec = c, path = path }
  if c.sequence ~= nil then
    if not c.sequence:find("#", 1, true) then
      fail(self, "%s.sequence: %q has no #### for the frame number", path, c.sequence)
    end
    col.pattern, col.cache = c.sequence, {}
    local first = self:sequence_frame(col, self.frames[1])
    mesh = mesh or { vertices = first, triangles = col.first_triangles }
  end
  if type(mesh.triangles) ~= "table" or #mesh.triangles == 0 then fail(self, "%s: the mesh has no triangles", path) end
  col.vertices, col.triangles = flat(mesh.vertices), mesh.triangles
  col.n = #col.vertices // 3
  if col.pattern and col.n ~= #col.cache[self.frames[1]] // 3 then
    fail(self, "%s.sequence: frame %d has %d vertices, the mesh %d", path, self.frames[1],
         #col.cache[self.frames[1]] // 3, col.n)
  end
  if type(c.transform) == "table" then
    local m, why_not = flat_matrix(c.transform)
    if not m then fail(self, "%s.transform: %s", path, why_not) end
    col.matrix = m
  end
  if c.rotate ~= nil and (type(c.rotate) ~= "table" or type(c.rotate.axis) ~= "table") then
    fail(self, "%s.rotate must be { axis = {x, y, z}, angle = degrees or curve, center = {x, y, z} }", path)
  end
  col.moves = col.pattern ~= nil or c.transform ~= nil or c.rotate ~= nil or c.translate ~= nil
  return col
end

-- the positions of a sequence's OBJ at an integer frame (the last two read are kept)
function Rig:sequence_frame(col, frame)
  local x = col.cache[frame]
  if x then return x end
  local file = sequence_path(self, col.pattern, frame)
  local ok, m = pcall(meshlib.load_obj, file)
  if not ok then fail(self, "%s.sequence: frame %d: %s", col.path, frame, (tostring(m):gsub("^mesh%.load_obj: ", ""))) end
  x = m.vertices
  if col.n and #x ~= 3 * col.n then
    fail(self, "%s.sequence: %s has %d vertices, the first frame %d (a sequence keeps its topology)", col.path, file,
         #x // 3, col.n)
  end
  col.first_triangles = col.first_triangles or m.triangles
  if col.last_but_one then col.cache[col.last_but_one] = nil end
  col.cache[frame], col.last_but_one, col.last = x, col.last, frame
  return x
end

-- a collider's positions at `frame`: its mesh (or the sequence's frame, linear between two files
-- at a fractional frame), transformed, rotated, then translated
function Rig:collider_pose(col, frame)
  local c = col.spec
  local x = col.vertices
  if col.pattern then
    local f0 = math.floor(frame)
    x = self:sequence_frame(col, f0)
    if frame > f0 then
      local x1, u = self:sequence_frame(col, f0 + 1), frame - f0
      local lerp = {}
      for i = 1, #x do lerp[i] = x[i] + u * (x1[i] - x[i]) end
      x = lerp
    end
  end
  local m = col.matrix
  if type(c.transform) == "function" then
    local why_not
    m, why_not = flat_matrix(c.transform(frame))
    if not m then fail(self, "frame %g: %s.transform: the function returned a bad matrix: %s", frame, col.path, why_not) end
  end
  local tr = sample(self, col.path .. ".translate", c.translate, frame, true)
  local rot, axis, angle, center = c.rotate, nil, nil, nil
  if rot then
    angle = math.rad(sample(self, col.path .. ".rotate.angle", rot.angle, frame) or 0)
    local a = rot.axis
    local l = math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2)
    axis, center = { a[1] / l, a[2] / l, a[3] / l }, rot.center or { 0, 0, 0 }
  end
  if not (m or rot or tr) then return x end
  local out, p = {}, {}
  for i = 1, #x // 3 do
    local px, py, pz = x[3 * i - 2], x[3 * i - 1], x[3 * i]
    if m then
      px, py, pz = m[1] * px + m[2] * py + m[3] * pz + m[4], m[5] * px + m[6] * py + m[7] * pz + m[8],
                   m[9] * px + m[10] * py + m[11] * pz + m[12]
    end
    if rot then
      p[1], p[2], p[3] = px, py, pz
      px, py, pz = rotate(p, axis, angle, center)
    end
    if tr then px, py, pz = px + tr[1], py + tr[2], pz + tr[3] end
    out[3 * i - 2], out[3 * i - 1], out[3 * i] = px, py, pz
  end
  return out
end

-- the colliders of a new simulation, at the pose of `frame`
function Rig:add_colliders(sim, frame)
  local objects = {}
  for k, col in ipairs(self.colliders) do
    local c = col.spec
    local def = { vertices = self:collider_pose(col, frame), triangles = col.triangles, one_sided = c.one_sided,
                  thickness = sample(self, col.path .. ".thickness", c.thickness, frame),
                  friction = sample(self, col.path .. ".friction", c.friction, frame) }
    local ok, obj = pcall(sim.collider, sim, def)
    if not ok then fail(self, "%s: %s", col.path, why(obj)) end
    objects[k] = obj
  end
  self.collider_objects[sim] = objects
end

-- move the colliders to their pose at `frame`; keyed thickness and friction
function Rig:apply_colliders(sim, frame)
  local objects = self.collider_objects[sim]
  if not objects then return end -- a simulation this rig did not create has none of its colliders
  for k, col in ipairs(self.colliders) do
    local c, obj = col.spec, objects[k]
    if col.moves then
      local ok, err = pcall(obj.move, obj, self:collider_pose(col, frame))
      if not ok then fail(self, "frame %g: %s: %s", frame, col.path, why(err)) end
    end
    if (c.thickness ~= nil and type(c.thickness) ~= "number") or (c.friction ~= nil and type(c.friction) ~= "number") then
      local set = { thickness = sample(self, col.path .. ".thickness", c.thickness, frame),
                    friction = sample(self, col.path .. ".friction", c.friction, frame) }
      local ok, err = pcall(obj.set, obj, set)
      if not ok then fail(self, "frame %g: %s: %s", frame, col.path, why(err)) end
    end
  end
end

-- a mesh table, or an OBJ path relative to the rig file
function Rig:load_mesh(mesh, field)
  if type(mesh) == "string" then
    local path = mesh:sub(1, 1) == "/" and mesh or (self.dir .. "/" .. mesh)
    local ok, res = pcall(meshlib.load_obj, path)
    if not ok then fail(self, "%s: %s", field, res) end
    mesh = res
  end
  if type(mesh) ~= "table" or type(mesh.vertices) ~= "table" then
    fail(self, "field '%s' must be a mesh table {vertices, triangles, groups} or an OBJ path", field)
  end
  return mesh
end

-- flesh = { surface = mesh or OBJ path, cells = n, tets = tet file or { vertices, tets, regions } }
function Rig:load_flesh(f)
  if type(f) ~= "table" then fail(self, "field 'flesh' must be a table { surface = ..., tets = ..., cells = ... }") end
  for k in pairs(f) do
    if k ~= "surface" and k ~= "tets" and k ~= "cells" and k ~= "element" then fail(self, "flesh: unknown field '%s'", tostring(k)) end
  end
  self.kind = "flesh"
  if f.surface ~= nil then self.surface = self:load_mesh(f.surface, "flesh.surface") end
  local tets = f.tets
  if type(tets) == "string" then
    local path = tets:sub(1, 1) == "/" and tets or (self.dir .. "/" .. tets)
    local res, msg = core.tet_load(path)
    if not res then fail(self, "flesh.tets: %s", msg) end
    tets = res
  end
  if tets ~= nil and (type(tets) ~= "table" or type(tets.vertices) ~= "table" or type(tets.tets) ~= "table") then
    fail(self, "field 'flesh.tets' must be a tet file path or { vertices = ..., tets = ... }")
  end
  if not tets and not (self.surface and self.surface.triangles) then
    fail(self, "flesh needs tets or a closed surface (with triangles) to fill")
  end
  if f.cells ~= nil and (math.type(f.cells) ~= "integer" or f.cells < 2) then fail(self, "flesh.cells must be an integer >= 2") end
  if f.element ~= nil and f.element ~= "linear" and f.element ~= "quadratic" then
    fail(self, "flesh.element must be \"linear\" or \"quadratic\", got %s", tostring(f.element))
  end
  self.tets, self.cells, self.element = tets, f.cells, f.element
  self.mesh = { vertices = tets and tets.vertices or {}, triangles = nil, groups = {} }
end

-- region materials: material.regions = { [name or id] = { youngs, poisson, density } } against the
-- tet mesh's regions; returns materials and tet_materials for tauform.core.flesh
local function region_materials(self, m)
  if not m.regions then return nil, nil end
  if not self.tets or not self.tets.regions then fail(self, "material.regions needs tets with regions (a tet file)") end
  local names, index, materials, labels = self.tets.region_names or {}, {}, {}, {}
  local by_id = {}
  for id, name in pairs(names) do by_id[name] = id end
  local keys = {} -- in a fixed order, so a re-run builds the same material table
  for key in pairs(m.regions) do keys[#keys + 1] = key end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, key in ipairs(keys) do
    local mat = m.regions[key]
    local id = type(key) == "number" and key or by_id[key]
    if not id then
      local known = {}
      for name in pairs(by_id) do known[#known + 1] = name end
      table.sort(known)
      fail(self, "material.regions: no region '%s' in the tets (named: %s)", tostring(key), table.concat(known, ", "))
    end
    if type(mat) ~= "table" then fail(self, "material.regions.%s must be { youngs =, poisson =, density = }", tostring(key)) end
    if index[id] then fail(self, "material.regions: region %s given twice (by name and by id)", tostring(key)) end
    materials[#materials + 1] = mat
    index[id] = #materials
    labels[#materials] = "material.regions." .. tostring(key)
  end
  local tm = {}
  for t, r in ipairs(self.tets.regions) do tm[t] = index[r] or 0 end
  return materials, tm, labels
end

function Rig:create_flesh(first)
  local spec, m = self.spec, self.spec.material or {}
  local materials, tet_materials, labels = region_materials(self, m)
  local def = { surface = self.surface, cells = self.cells, element = self.element, youngs = m.youngs, poisson = m.poisson, density = m.density,
                pin_stiffness = m.pin_stiffness, solver = spec.solver, materials = materials,
                tet_materials = tet_materials }
  if self.tets then def.vertices, def.tets = self.tets.vertices, self.tets.tets end
  def.tau = sample(self, "tau", spec.tau, first)
  def.kappa = sample(self, "kappa", spec.kappa, first)
  def.gravity = sample(self, "gravity", spec.gravity, first, true)
  local ok, sim = pcall(core.flesh, def)
  if not ok then -- name a bad region material by its region, not by its place in the list
    local function label(k) return labels and labels[tonumber(k)] or "material " .. k end
    local msg = why(sim):gsub("region material (%d+) %(materials%[%d+%]%)", label)
    msg = msg:gsub("materials%[(%d+)%]", label) -- the binding's own checks
    fail(self, "%s", msg)
  end
  self.n = sim:vert_count()
  self.rest = sim:rest_positions()
  self.mesh.vertices = self.rest
  return sim
end

function Rig:create_cloth(first)
  local spec, m = self.spec, self.spec.material or {}
  local def = { vertices = self.mesh.vertices, triangles = self.mesh.triangles, density = m.density,
                total_mass = m.total_mass, masses = m.masses, stretch = m.stretch, poisson = m.poisson,
                pin_stiffness = m.pin_stiffness, bend_model = m.bend_model, bend_poisson = m.bend_poisson,
                cloth_model = m.cloth_model, shear = m.shear, bend_springs = m.bend_springs,
                solver = spec.solver }
  def.tau = sample(self, "tau", spec.tau, first)
  def.kappa = sample(self, "kappa", spec.kappa, first)
  def.gravity = sample(self, "gravity", spec.gravity, first, true)
  local map = type(m.stretch) == "table" and m.stretch
  if map then def.stretch = map.value end
  local ok, sim = pcall(core.cloth, def)
  if not ok then fail(self, "%s", why(sim)) end
  if map and map.groups and next(map.groups) then -- each piece its own fabric (static)
    local ok2, err = pcall(sim.set, sim, { stretch = value_or_map(self, "material.stretch", map, first) })
    if not ok2 then fail(self, "material.stretch: %s", why(err)) end
  end
  return sim
end

-- what a cache stores: the flesh's skin when it has one, else the simulation's vertices
function Rig:output_count(sim)
  local m = self.kind == "flesh" and sim:surface_count() or 0
  if m > 0 then return m, self.surface.triangles end
  return self.n, self.mesh.triangles or sim:triangles() -- a flesh body without a skin: its tet boundary
end

function Rig:output(sim, out)
  if self.kind == "flesh" and sim:surface_count() > 0 then return sim:surface_positions(out) end
  return sim:positions(out)
end

-- response = { levels = {...}, global = pct, groups = { name = {...} or { levels, global } } }:
-- every percentage a number, curve or function (the sum of 100 is checked by the library each
-- frame, which knows the level count)
function Rig:check_response(r)
  if r == nil then return end
  local function list(path, l)
    if type(l) ~= "table" or #l == 0 then fail(self, "%s: expected a list of percentages per level, got %s", path, type(l)) end
    for k, v in pairs(l) do
      if math.type(k) ~= "integer" or k < 1 or k > #l then fail(self, "%s: expected a list, got a key %s", path, tostring(k)) end
      if type(v) ~= "number" and type(v) ~= "function" and not keyframes.is_curve(v) then
        fail(self, "%s[%d]: expected a number, a keyframe curve or a function(frame), got %s", path, k, type(v))
      end
    end
  end
  local function one(path, s)
    if s.levels == nil and s.global == nil then fail(self, "%s: give levels, global or both", path) end
    if s.levels ~= nil then list(path .. ".levels", s.levels) end
    if s.global ~= nil and type(s.global) ~= "number" and type(s.global) ~= "function" and not keyframes.is_curve(s.global) then
      fail(self, "%s.global: expected a number, a keyframe curve or a function(frame), got %s", path, type(s.global))
    end
  end
  one("response", r)
  if r.groups ~= nil and type(r.groups) ~= "table" then fail(self, "response.groups: expected a table { name = levels }") end
  for name, l in pairs(r.groups or {}) do
    if self.kind ~= "flesh" then
      local ok, err = pcall(meshlib.group, self.mesh, name)
      if not ok then fail(self, "response.groups: %s", err) end
    else
      fail(self, "response.groups: flesh has no named vertex groups (give the whole body's levels)")
    end
    local path = "response.groups." .. tostring(name)
    if type(l) ~= "table" then fail(self, "%s: expected a list of percentages or { levels, global }", path) end
    if #l > 0 then list(path, l) else
      for k in pairs(l) do
        if k ~= "levels" and k ~= "global" then fail(self, "%s.%s: unknown field (fields: levels, global)", path, tostring(k)) end
      end
      one(path, l)
    end
  end
end

-- each poke's vertices and weights (summing to 1), from the rest positions and the masses: a push
-- on a region accelerates it evenly (a light vertex, a flesh lattice node mostly outside the
-- skin, takes its small share), shaped by the bump around `at`
function Rig:resolve_pokes(sim)
  local rest, n = self.mesh.vertices, self.n
  local mass = (self.spec.pokes and #self.spec.pokes > 0) and sim:masses() or {}
  self.pokes = {}
  for k, s in ipairs(self.spec.pokes or {}) do
    local path = ("pokes[%d]"):format(k)
    local ids, w = {}, {}
    if s.at then
      local r = s.radius or 0
      local best, bd = nil, math.huge
      for i = 1, n do
        local dx, dy, dz = rest[3 * i - 2] - s.at[1], rest[3 * i - 1] - s.at[2], rest[3 * i] - s.at[3]
        local d2 = dx * dx + dy * dy + dz * dz
        if d2 < bd then best, bd = i, d2 end
        if r > 0 and d2 < r * r then
          ids[#ids + 1], w[#w + 1] = i, (1 - d2 / (r * r)) ^ 2 * mass[i]
        end
      end
      if #ids == 0 then ids, w = { best }, { 1 } end
    else
      if s.group then
        local ok, g = pcall(meshlib.group, self.mesh, s.group)
        if not ok then fail(self, "%s.group: %s", path, g) end
        for _, i in ipairs(g) do ids[#ids + 1] = i end
      elseif s.indices then
        for j, i in ipairs(s.indices) do
          if math.type(i) ~= "integer" or i < 1 or i > n then fail(self, "%s.indices[%d]: %s is not a vertex 1..%d", path, j, tostring(i), n) end
          ids[#ids + 1] = i
        end
      elseif s.select then
        for i = 1, n do
          if s.select(rest[3 * i - 2], rest[3 * i - 1], rest[3 * i]) then ids[#ids + 1] = i end
        end
      else
        fail(self, "%s needs at, group, indices or select", path)
      end
      for j = 1, #ids do w[j] = mass[ids[j]] end
    end
    if #ids == 0 then fail(self, "%s selects no vertex", path) end
    local sum = 0
    for j = 1, #w do sum = sum + w[j] end
    for j = 1, #w do w[j] = w[j] / sum end
    self.pokes[k] = { spec = s, ids = ids, w = w, path = path }
  end
end

-- the pokes' forces for the advance into `frame` (nil when none acts), n vertices
function Rig:poke_forces(frame, n)
  local f, any = nil, false
  for _, p in ipairs(self.pokes or {}) do
    local fr = p.spec.frames
    if fr == nil or (frame >= fr[1] and frame <= fr[2]) then
      local F = sample(self, p.path .. ".force", p.spec.force, frame, true)
      if F and (F[1] ~= 0 or F[2] ~= 0 or F[3] ~= 0) then
        if not f then
          f = {}
          for i = 1, 3 * n do f[i] = 0 end
        end
        for j, i in ipairs(p.ids) do
          for c = 1, 3 do f[3 * i - 3 + c] = f[3 * i - 3 + c] + p.w[j] * F[c] end
        end
        any = true
      end
    end
  end
  return any and f or nil
end

-- the pokes' forces and the response's percentages at `frame`
function Rig:apply_response(sim, frame)
  local spec = self.spec
  if spec.pokes then
    local n = sim:vert_count() -- a torn cloth's copies take no poke
    -- every frame, none acting too: a state loaded into the simulation (a resumed run) may hold
    -- the forces of a poke that has ended
    local ok, err = pcall(sim.set_forces, sim, self:poke_forces(frame, n))
    if not ok then fail(self, "frame %g: pokes: %s", frame, why(err)) end
  end
  local r = spec.response
  if not r then return end
  local count = #sim:response_levels()
  -- the percentages per level: the list from level 0, and global on the last (rigid) level
  local function levels(path, s)
    if #s > 0 then s = { levels = s } end
    local out = {}
    for k, v in ipairs(s.levels or {}) do
      out[k] = sample(self, ("%s.levels[%d]"):format(path, k), v, frame)
      if type(out[k]) ~= "number" then fail(self, "frame %g: %s.levels[%d] is not a number", frame, path, k) end
    end
    if s.global ~= nil then
      local g = sample(self, path .. ".global", s.global, frame)
      if type(g) ~= "number" then fail(self, "frame %g: %s.global is not a number", frame, path) end
      if #out >= count then
        fail(self, "frame %g: %s: %d levels and global, but the body has %d levels (the last is global)",
             frame, path, #out, count)
      end
      for k = #out + 1, count - 1 do out[k] = 0 end
      out[count] = g
    end
    return out
  end
  local sets = { { levels("response", r) } }
  local names = {}
  for name in pairs(r.groups or {}) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    sets[#sets + 1] = { levels("response.groups." .. name, r.groups[name]), self.mesh.groups[name], name }
  end
  -- every frame, unchanged too: a state loaded into the simulation holds its own frame's shares
  for _, s in ipairs(sets) do
    local ok, err = pcall(sim.set_response, sim, s[1], s[2])
    if not ok then
      fail(self, "frame %g: response%s: %s", frame, s[3] and (".groups." .. s[3]) or "", why(err))
    end
  end
end

-- the simulation at the rest mesh, with the rig's values at its first frame and its pins set
function Rig:create()
  local spec = self.spec
  local first = self.frames[1]
  local sim = self.kind == "flesh" and self:create_flesh(first) or self:create_cloth(first)
  -- pins chosen by rest position are resolved now (a generated tet mesh is known only now)
  local rest = self.mesh.vertices
  for _, p in ipairs(self.pins) do
    if p.spec.select then
      p.ids = {}
      for i = 1, self.n do
        if p.spec.select(rest[3 * i - 2], rest[3 * i - 1], rest[3 * i]) then p.ids[#p.ids + 1] = i end
      end
    end
  end
  for k, p in ipairs(self.pins) do
    if #p.ids == 0 then fail(self, "pins[%d] selects no vertex", k) end
  end
  self:resolve_pokes(sim)
  self.pinned_key = nil
  self:set_pins(sim, first)
  -- self-contact opt-out: the listed groups do not collide with each other (static)
  local ex = spec.contact and spec.contact.self_exclude
  if ex then
    local map = {}
    for i = 1, self.n do map[i] = 1 end
    for k, name in ipairs(ex) do
      local g = self.mesh.groups and self.mesh.groups[name]
      if not g then fail(self, "contact.self_exclude[%d]: no vertex group '%s'", k, tostring(name)) end
      for _, i in ipairs(g) do map[i] = 0 end
    end
    local ok, err = pcall(sim.set, sim, { self_contact = map })
    if not ok then fail(self, "contact.self_exclude: %s", why(err)) end
  end
  self:add_colliders(sim, first)
  self:apply(sim, first)
  -- the first frame's pose: pinned vertices start at their first-frame targets (no snap between
  -- the first two frames)
  local idx = self.pinned_idx
  if #idx > 0 then
    local x, t = sim:positions(), self:targets(first)
    for k, i in ipairs(idx) do
      x[3 * i - 2], x[3 * i - 1], x[3 * i] = t[3 * k - 2], t[3 * k - 1], t[3 * k]
    end
    sim:set_state(x)
  end
  if spec.setup then spec.setup(sim, self) end
  return sim
end

-- a pin holds until its release frame (if any): from that frame on its vertices are free
local function pin_active(p, frame)
  return p.spec.release == nil or frame < p.spec.release
end

-- pin the sets active at `frame`, when they differ from those pinned now
function Rig:set_pins(sim, frame)
  local idx, w, key = {}, {}, {}
  for k, p in ipairs(self.pins) do
    if pin_active(p, frame) then
      key[#key + 1] = k
      for _, i in ipairs(p.ids) do idx[#idx + 1] = i; w[#w + 1] = p.weight end
    end
  end
  key = table.concat(key, ",")
  if key == self.pinned_key then return end
  local pok, err = pcall(sim.pin, sim, idx, w)
  if not pok then fail(self, "pins: %s", why(err)) end
  self.pinned_key, self.pinned_idx, self.pin_count = key, idx, #idx
end

-- pin targets at `frame`, flat, of the pins active then
function Rig:targets(frame)
  local rest, out = self.mesh.vertices, {}
  for k, p in ipairs(self.pins) do
    if not pin_active(p, frame) then goto next_pin end
    local s = p.spec
    local custom = s.targets and s.targets(frame, rest, p.ids)
    if custom and #custom ~= 3 * #p.ids then
      fail(self, "pins[%d].targets returned %d numbers for %d vertices", k, #custom, #p.ids)
    end
    local tr = sample(self, ("pins[%d].translate"):format(k), s.translate, frame, true) or { 0, 0, 0 }
    local rot = s.rotate
    local angle = rot and math.rad(sample(self, ("pins[%d].rotate.angle"):format(k), rot.angle, frame) or 0)
    local axis, center
    if rot then
      axis = rot.axis
      local l = math.sqrt(axis[1] ^ 2 + axis[2] ^ 2 + axis[3] ^ 2)
      axis = { axis[1] / l, axis[2] / l, axis[3] / l }
      center = rot.center or { 0, 0, 0 }
    end
    for j, i in ipairs(p.ids) do
      local x, y, z
      if custom then
        x, y, z = custom[3 * j - 2], custom[3 * j - 1], custom[3 * j]
      else
        x, y, z = rest[3 * i - 2], rest[3 * i - 1], rest[3 * i]
        if rot then x, y, z = rotate({ x, y, z }, axis, angle, center) end
        x, y, z = x + tr[1], y + tr[2], z + tr[3]
      end
      out[#out + 1], out[#out + 2], out[#out + 3] = x, y, z
    end
    ::next_pin::
  end
  return out
end

function Rig:apply(sim, frame)
  local spec = self.spec
  local set = {}
  set.tau = sample(self, "tau", spec.tau, frame)
  set.kappa = sample(self, "kappa", spec.kappa, frame)
  set.gravity = sample(self, "gravity", spec.gravity, frame, true)
  set.bend = value_or_map(self, "bend", spec.bend, frame, sim)
  if spec.tear then
    local t = spec.tear
    set.tear_strain = t.groups and value_or_map(self, "tear", { value = t.strain, groups = t.groups }, frame, sim)
                      or sample(self, "tear.strain", t.strain, frame)
  end
  local pl = spec.plastic
  if pl then
    set.plastic_yield = value_or_map(self, "plastic.yield", pl.yield, frame, sim)
    set.plastic_limit = value_or_map(self, "plastic.limit", pl.limit, frame, sim)
    set.plastic_time = sample(self, "plastic.time", pl.time, frame)
    set.bend_yield = value_or_map(self, "plastic.bend_yield", pl.bend_yield, frame, sim)
    set.bend_plastic_limit = value_or_map(self, "plastic.bend_limit", pl.bend_limit, frame, sim)
  end
  local w = spec.wind
  if w then
    set.wind = sample(self, "wind.velocity", w.velocity or { 0, 0, 0 }, frame, true)
    local rho = w.density
    if rho == nil then rho = w.air_density end -- the parameter's own name, accepted too
    set.air_density = sample(self, "wind.density", rho or AIR_DENSITY, frame)
    set.drag = sample(self, "wind.drag", w.drag, frame)
    set.lift = sample(self, "wind.lift", w.lift, frame)
    local t, g = w.turbulence or {}, w.gust or {}
    set.turbulence = sample(self, "wind.turbulence.amplitude", t.amplitude, frame)
    set.turbulence_scale = t.scale
    set.turbulence_time = t.time
    set.turbulence_seed = t.seed
    set.gust = sample(self, "wind.gust.amplitude", g.amplitude, frame)
    set.gust_period = g.period
  end
  local c = spec.contact
  if c then
    set.thickness = sample(self, "contact.thickness", c.thickness, frame)
    set.friction = sample(self, "contact.friction", c.friction, frame)
    set.self_contact = sample(self, "contact.self", c.self, frame)
  end
  local g = spec.ground
  if g then
    set.ground_normal = sample(self, "ground.normal", g.normal or { 0, 0, 1 }, frame, true)
    set.ground_height = sample(self, "ground.height", g.height, frame)
    set.ground_friction = sample(self, "ground.friction", g.friction, frame)
  end
  local ok, err = pcall(sim.set, sim, set)
  if not ok then fail(self, "frame %g: %s", frame, why(err)) end
  -- settle time: from the slowest mode under this frame's loads and stiffness (set just above)
  if spec.settle ~= nil then
    local tau = self:settle_tau(sim, sample(self, "settle", spec.settle, frame), frame)
    sim:set{ tau = tau }
  end
  self:set_pins(sim, frame)
  if self.pin_count and self.pin_count > 0 then
    local pok, perr = pcall(sim.pin_targets, sim, self:targets(frame))
    if not pok then fail(self, "frame %g: pin targets: %s", frame, why(perr)) end
  end
  self:apply_colliders(sim, frame)
  self:apply_response(sim, frame)
  if spec.frame then spec.frame(frame, sim, self) end
end

-- tau for a settle time: the slowest mode (sim:settle_tau) is found once and again only when
-- gravity or the bending, stretch or Young's stiffness it depends on changed by more than 10 %; the
-- conversion itself is the step's decay law (1 + tau dt lambda)^(T/dt) = 100
function Rig:settle_tau(sim, T, frame)
  local dt = 1 / (self.fps * self.substeps)
  if type(T) ~= "number" or T <= dt then fail(self, "frame %g: settle time %s must exceed the step %g s", frame, tostring(T), dt) end
  local spec = self.spec
  local g = keyframes.sample(spec.gravity, frame) or sim:get("gravity")
  local key = { math.sqrt(g[1] ^ 2 + g[2] ^ 2 + g[3] ^ 2), sim:get("bend"), sim:get("stretch"), sim:get("youngs") }
  local function changed()
    if not self.settle_key then return true end
    for k = 1, 4 do
      local a, b = key[k], self.settle_key[k]
      if math.abs(a - b) > SETTLE_RECOMPUTE * math.max(math.abs(a), math.abs(b), 1e-30) then return true end
    end
    return false
  end
  if changed() then
    local tau, lambda_or_msg, code = sim:settle_tau(T, dt)
    if not tau then fail(self, "frame %g: %s (%s)", frame, tostring(lambda_or_msg), tostring(code)) end
    self.lambda, self.settle_key = lambda_or_msg, key
  end
  return (100 ^ (dt / T) - 1) / (dt * self.lambda)
end

M.Rig = Rig
return M
