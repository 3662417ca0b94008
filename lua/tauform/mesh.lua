-- SPDX-License-Identifier: MIT
-- Meshes for rigs: a rectangular cloth grid, a disc, an ellipsoid, and Wavefront OBJ loading with
-- named vertex groups (from `g`/`o` statements, or a companion "name: i j k ..." file), so rigs pin
-- groups by name rather than index lists. A mesh is { vertices = {x1, y1, z1, ...}, triangles =
-- {a, b, c, ...} (1-based), groups = { name = {i, j, ...} } }, the form tauform.cloth accepts.
--
-- The helpers refuse, by name, counts that are not integers in range and sizes or coordinates
-- that are not finite numbers ("mesh.disc: rings must be an integer >= 1 (got NaN)").
--
-- OBJ reading (load_obj), decided once here:
--   * vertices: `v x y z` with optional w or r g b after it; every field must be a finite decimal
--     number ("shirt.obj:3: vertex coordinate 1e400 is not a finite number");
--   * faces: `f` with 3 or more corners, each `v`, `v/vt`, `v//vn` or `v/vt/vn`; v is an integer,
--     1-based, or negative counting back from the last vertex read so far (-1 is the last one);
--     0, a non-integer, an index out of range or a corner used twice in a face is refused with
--     file:line. Polygons with more than 3 corners are triangulated as a fan from their first
--     corner (1 2 3 4 -> 1 2 3, 1 3 4): right for the convex, planar quads and n-gons modelling
--     tools write; a concave polygon must be triangulated before export;
--   * groups are sets of vertices in order of first appearance: a vertex named by several faces
--     of a `g` group, or by both a `g` group and the companion file, is listed once.
local M = {}

-- groups are sets: `seen[name][i]` remembers the members, so a vertex joins a group once, at its
-- first appearance
local function add_group(groups, name, i, seen)
  local g = groups[name]
  if not g then g = {}; groups[name] = g end
  if seen then
    local s = seen[name]
    if not s then
      s = {}
      for _, j in ipairs(g) do s[j] = true end
      seen[name] = s
    end
    if s[i] then return end
    s[i] = true
  end
  g[#g + 1] = i
end

-- a number as a message shows it: NaN and infinities spelled out, the rest with %.17g
local function show(v)
  if type(v) ~= "number" then return ("a %s"):format(type(v)) end
  if v ~= v then return "NaN" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return ("%.17g"):format(v)
end

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- checked options of the helpers (fn names the helper in the messages)
local MAX_VERTICES = 1 << 24 -- float32 positions and 32-bit indices in the library: far beyond any cloth

local function count(fn, name, v, default, min)
  if v == nil then return default end
  local i = math.type(v) == "integer" and v or (finite(v) and math.tointeger(v))
  if not i or i < min or i > MAX_VERTICES then
    error(("mesh.%s: %s must be an integer >= %d (got %s)"):format(fn, name, min, show(v)), 3)
  end
  return i
end

local function size(fn, name, v, default)
  if v == nil then return default end
  if not finite(v) or v <= 0 then error(("mesh.%s: %s must be a positive finite number (got %s)"):format(fn, name, show(v)), 3) end
  return v
end

local function vec3(fn, name, v, default, positive)
  if v == nil then return default end
  if type(v) ~= "table" or #v ~= 3 then error(("mesh.%s: %s must be {x, y, z}"):format(fn, name), 3) end
  for k = 1, 3 do
    if not finite(v[k]) or (positive and v[k] <= 0) then
      error(("mesh.%s: %s[%d] must be a %sfinite number (got %s)"):format(fn, name, k, positive and "positive " or "", show(v[k])), 3)
    end
  end
  return v
end

-- the helper's options checked against the one schema (tauform.schema: unknown keys with a
-- suggestion, types, bounds); the checks below are what a schema cannot say (finite sizes,
-- vertex counts, parallel axes)
local function options(fn, opt)
  if opt == nil then return {} end
  local msg = require("tauform.schema").validate("tauform.mesh." .. fn, opt)
  if msg then error(("bad argument #1 to 'tauform.mesh.%s' (%s)"):format(fn, msg), 3) end
  return opt
end

local function too_many(fn, verts, what)
  if verts > MAX_VERTICES then error(("mesh.%s: %s make %d vertices, more than %d"):format(fn, what, verts, MAX_VERTICES), 3) end
end

-- grid{ width = 1, height = 1, nx = 10, ny = 10, origin = {0, 0, 0}, u = {1, 0, 0}, v = {0, 1, 0} }:
-- vertex (i, j), i = 0..nx, j = 0..ny, is number j*(nx+1)+i+1 at origin + i*width/nx*u + j*height/ny*v;
-- groups: row0 (j = 0), rowN (j = ny), col0 (i = 0), colN (i = nx), corners, all
function M.grid(opt)
  opt = options("grid", opt)
  local w, h = size("grid", "width", opt.width, 1), size("grid", "height", opt.height, 1)
  local nx, ny = count("grid", "nx", opt.nx, 10, 1), count("grid", "ny", opt.ny, 10, 1)
  too_many("grid", (nx + 1) * (ny + 1), ("nx = %d and ny = %d"):format(nx, ny))
  local o = vec3("grid", "origin", opt.origin, { 0, 0, 0 })
  local u, v = vec3("grid", "u", opt.u, { 1, 0, 0 }), vec3("grid", "v", opt.v, { 0, 1, 0 })
  local cx, cy, cz = u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3], u[1] * v[2] - u[2] * v[1]
  if cx * cx + cy * cy + cz * cz == 0 then error("mesh.grid: u and v must be non-zero and not parallel", 2) end
  local verts, tris, groups = {}, {}, {}
  for j = 0, ny do
    for i = 0, nx do
      local a, b = w * i / nx, h * j / ny
      for k = 1, 3 do verts[#verts + 1] = o[k] + a * u[k] + b * v[k] end
      local id = j * (nx + 1) + i + 1
      add_group(groups, "all", id)
      if j == 0 then add_group(groups, "row0", id) end
      if j == ny then add_group(groups, "rowN", id) end
      if i == 0 then add_group(groups, "col0", id) end
      if i == nx then add_group(groups, "colN", id) end
      if (i == 0 or i == nx) and (j == 0 or j == ny) then add_group(groups, "corners", id) end
    end
  end
  for j = 0, ny - 1 do
    for i = 0, nx - 1 do
      local a = j * (nx + 1) + i + 1
      local b, c, d = a + 1, a + nx + 2, a + nx + 1
      for _, t in ipairs({ a, b, c, a, c, d }) do tris[#tris + 1] = t end
    end
  end
  return { vertices = verts, triangles = tris, groups = groups }
end

-- disc{ radius = 1, rings = 8, segments = 32, center = {0, 0, 0} } in the x-y plane;
-- groups: center, rim, all
function M.disc(opt)
  opt = options("disc", opt)
  local r = size("disc", "radius", opt.radius, 1)
  local rings, seg = count("disc", "rings", opt.rings, 8, 1), count("disc", "segments", opt.segments, 32, 3)
  too_many("disc", 1 + rings * seg, ("rings = %d and segments = %d"):format(rings, seg))
  local c = vec3("disc", "center", opt.center, { 0, 0, 0 })
  local verts, tris, groups = { c[1], c[2], c[3] }, {}, { center = { 1 }, rim = {}, all = { 1 } }
  for ring = 1, rings do
    for s = 0, seg - 1 do
      local a = 2 * math.pi * s / seg
      local rr = r * ring / rings
      verts[#verts + 1] = c[1] + rr * math.cos(a)
      verts[#verts + 1] = c[2] + rr * math.sin(a)
      verts[#verts + 1] = c[3]
      local id = #verts // 3
      groups.all[#groups.all + 1] = id
      if ring == rings then groups.rim[#groups.rim + 1] = id end
    end
  end
  local function id(ring, s) return 1 + (ring - 1) * seg + (s % seg) + 1 end
  for s = 0, seg - 1 do
    for _, t in ipairs({ 1, id(1, s), id(1, s + 1) }) do tris[#tris + 1] = t end
  end
  for ring = 1, rings - 1 do
    for s = 0, seg - 1 do
      local a, b, cc, d = id(ring, s), id(ring + 1, s), id(ring + 1, s + 1), id(ring, s + 1)
      for _, t in ipairs({ a, b, cc, a, cc, d }) do tris[#tris + 1] = t end
    end
  end
  return { vertices = verts, triangles = tris, groups = groups }
end

-- box{ lo = {-0.5, -0.5, -0.5}, hi = {0.5, 0.5, 0.5} }: a closed box with outward triangles, the
-- kind a one-sided collider wants; corner 1 + x + 2y + 4z (x, y, z 0 at lo, 1 at hi), two triangles
-- per face counter-clockwise seen from outside; groups: bottom (z = lo), top (z = hi), all
function M.box(opt)
  opt = options("box", opt)
  local lo = vec3("box", "lo", opt.lo, { -0.5, -0.5, -0.5 })
  local hi = vec3("box", "hi", opt.hi, { 0.5, 0.5, 0.5 })
  for a = 1, 3 do
    if not (hi[a] > lo[a]) then
      error(("bad argument #1 to 'tauform.mesh.box' (hi[%d] = %s must be larger than lo[%d] = %s)"):format(a, show(hi[a]), a, show(lo[a])), 2)
    end
  end
  local v = {}
  for k = 0, 7 do
    v[#v + 1] = (k & 1) == 0 and lo[1] or hi[1]
    v[#v + 1] = (k & 2) == 0 and lo[2] or hi[2]
    v[#v + 1] = (k & 4) == 0 and lo[3] or hi[3]
  end
  local t = { 1, 3, 4, 1, 4, 2,  5, 6, 8, 5, 8, 7,  1, 2, 6, 1, 6, 5,
              3, 7, 8, 3, 8, 4,  1, 5, 7, 1, 7, 3,  2, 4, 8, 2, 8, 6 }
  return { vertices = v, triangles = t, groups = { bottom = { 1, 2, 3, 4 }, top = { 5, 6, 7, 8 }, all = { 1, 2, 3, 4, 5, 6, 7, 8 } } }
end

-- ellipsoid{ radii = {1, 1, 1}, center = {0, 0, 0}, rings = 12, segments = 24 }: a closed surface
-- with outward triangles (poles on the z axis), the kind tauform.flesh fills with tets;
-- groups: top (north pole), bottom (south pole), all
function M.ellipsoid(opt)
  opt = options("ellipsoid", opt)
  local r = vec3("ellipsoid", "radii", opt.radii, { 1, 1, 1 }, true)
  local c = vec3("ellipsoid", "center", opt.center, { 0, 0, 0 })
  local rings, seg = count("ellipsoid", "rings", opt.rings, 12, 2), count("ellipsoid", "segments", opt.segments, 24, 3)
  too_many("ellipsoid", 2 + (rings - 1) * seg, ("rings = %d and segments = %d"):format(rings, seg))
  local verts = { c[1], c[2], c[3] - r[3], c[1], c[2], c[3] + r[3] }
  for j = 1, rings - 1 do
    local th = math.pi * j / rings - math.pi / 2
    for i = 0, seg - 1 do
      local ph = 2 * math.pi * i / seg
      verts[#verts + 1] = c[1] + r[1] * math.cos(th) * math.cos(ph)
      verts[#verts + 1] = c[2] + r[2] * math.cos(th) * math.sin(ph)
      verts[#verts + 1] = c[3] + r[3] * math.sin(th)
    end
  end
  local function id(j, i) return 3 + (j - 1) * seg + (i % seg) end
  local tris = {}
  local function tri(a, b, d) tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = a, b, d end
  for i = 0, seg - 1 do
    tri(1, id(1, i + 1), id(1, i))
    tri(2, id(rings - 1, i), id(rings - 1, i + 1))
  end
  for j = 1, rings - 2 do
    for i = 0, seg - 1 do
      tri(id(j, i), id(j, i + 1), id(j + 1, i + 1))
      tri(id(j, i), id(j + 1, i + 1), id(j + 1, i))
    end
  end
  local all = {}
  for i = 1, #verts // 3 do all[i] = i end
  return { vertices = verts, triangles = tris, groups = { bottom = { 1 }, top = { 2 }, all = all } }
end

-- a decimal number as OBJ writes one (no hex, no "inf"/"nan"): the value, or nil
local function decimal(tok)
  if not (tok:match("^[+-]?%d+%.?%d*$") or tok:match("^[+-]?%.%d+$") or tok:match("^[+-]?%d+%.?%d*[eE][+-]?%d+$")
          or tok:match("^[+-]?%.%d+[eE][+-]?%d+$")) then
    return nil
  end
  return tonumber(tok)
end

-- "name: 1 2 3 ..." lines (blank lines and # comments allowed) into groups; false when the file
-- does not exist
local function read_group_file(path, groups, seen, nverts)
  local f = io.open(path, "r")
  if not f then return false end
  local n = 0
  local function fail(fmt, ...) f:close(); error(("%s:%d: " .. fmt):format(path, n, ...), 0) end
  for line in f:lines() do
    n = n + 1
    local s = line:gsub("#.*$", "")
    if s:match("%S") then
      local name, rest = s:match("^%s*([%w_%.%-]+)%s*:(.*)$")
      if not name then fail("expected 'name: index index ...'") end
      for tok in rest:gmatch("%S+") do
        local i = tok:match("^%+?%d+$") and math.tointeger(tonumber(tok))
        if not i or i < 1 then fail("'%s' is not a vertex number (1, 2, ...)", tok) end
        if i > nverts then fail("group '%s' names vertex %d, the mesh has %d", name, i, nverts) end
        add_group(groups, name, i, seen)
      end
    end
  end
  f:close()
  return true
end

-- load_obj(path[, { groups = "file" }]): v and f lines, g/o statements naming the groups of the
-- vertices their faces use, and a companion "<path>.groups" (or opt.groups, which must exist)
-- adding "name: i j ..." groups; the rules are in this file's header. Errors name file:line.
function M.load_obj(path, opt)
  if opt ~= nil then
    local msg = require("tauform.schema").validate("tauform.mesh.load_obj options", opt)
    if msg then error(("bad argument #2 to 'tauform.mesh.load_obj' (%s)"):format(msg), 2) end
  end
  opt = opt or {}
  local f, err = io.open(path, "r")
  if not f then error(("mesh.load_obj: cannot open %s (%s)"):format(path, err), 2) end
  local verts, tris, groups, seen = {}, {}, {}, {}
  local current = {}
  local n = 0
  local function fail(fmt, ...) f:close(); error(("%s:%d: " .. fmt):format(path, n, ...), 0) end
  for line in f:lines() do
    n = n + 1
    local cmd, rest = line:match("^%s*(%S+)%s*(.*)$")
    rest = rest and rest:gsub("%s*#.*$", "")
    if cmd == "v" then
      local fields = {}
      for tok in rest:gmatch("%S+") do fields[#fields + 1] = tok end
      if #fields < 3 then fail("vertex needs three numbers") end
      if #fields ~= 3 and #fields ~= 4 and #fields ~= 6 then
        fail("vertex has %d numbers (x y z, x y z w or x y z r g b)", #fields)
      end
      for k, tok in ipairs(fields) do
        local what = k <= 3 and "vertex coordinate" or (#fields == 4 and "vertex weight" or "vertex colour")
        local x = decimal(tok)
        if not x then
          local low = tok:lower()
          if low:match("^[+-]?inf") or low:match("^[+-]?nan") then fail("%s %s is not a finite number", what, tok) end
          if tonumber(tok) then fail("%s '%s' is not a decimal number", what, tok) end
          fail("%s '%s' is not a number", what, tok)
        end
        if not finite(x) then fail("%s %s is not a finite number", what, tok) end
        if k <= 3 then verts[#verts + 1] = x end
      end
    elseif cmd == "f" then
      local poly, used = {}, {}
      local nv = #verts // 3
      for tok in rest:gmatch("%S+") do
        local vi, vt, vn = tok:match("^([^/]*)/?([^/]*)/?([^/]*)$")
        if not vi or not vi:match("^[+-]?%d+$") then fail("bad face index '%s' (expected an integer vertex number)", tok) end
        for _, part in ipairs({ vt, vn }) do
          if part ~= "" and not part:match("^[+-]?%d+$") then fail("bad face index '%s' (texture and normal indices are integers)", tok) end
        end
        local i = math.tointeger(tonumber(vi))
        if not i then fail("face index %s is too large", vi) end
        if i == 0 then fail("face index 0: OBJ vertex numbers start at 1 (negative ones count back from the last vertex)") end
        if i < 0 then
          if -i > nv then fail("face index %d reaches before the first vertex (%d read so far)", i, nv) end
          i = nv + 1 + i
        end
        if i > nv then fail("face index %d out of range 1..%d", i, nv) end
        if used[i] then fail("face uses vertex %d twice", i) end
        used[i] = true
        poly[#poly + 1] = i
      end
      if #poly < 3 then fail("a face needs at least 3 vertices") end
      for k = 2, #poly - 1 do -- a fan from the first corner
        tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = poly[1], poly[k], poly[k + 1]
      end
      for _, name in ipairs(current) do
        for _, i in ipairs(poly) do add_group(groups, name, i, seen) end
      end
    elseif cmd == "g" or cmd == "o" then
      current = {}
      for name in rest:gmatch("%S+") do current[#current + 1] = name end
    end
  end
  f:close()
  if #tris == 0 then error(("%s: no faces"):format(path), 2) end
  local gfile = opt.groups or (path .. ".groups")
  if not read_group_file(gfile, groups, seen, #verts // 3) and opt.groups then
    error(("mesh.load_obj: cannot open the group file %s"):format(gfile), 2)
  end
  return { vertices = verts, triangles = tris, groups = groups }
end

-- vertex list of a group (error naming the known groups when missing)
function M.group(mesh, name)
  local g = mesh.groups and mesh.groups[name]
  if not g then
    local names = {}
    for k in pairs(mesh.groups or {}) do names[#names + 1] = k end
    table.sort(names)
    error(("no vertex group '%s' (groups: %s)"):format(tostring(name), table.concat(names, ", ")), 2)
  end
  return g
end

function M.vert_count(mesh) return #mesh.vertices // 3 end

-- One mesh of several pieces, for layered garments that must not cross each other (a shirt and
-- a jacket): one simulation with self-contact keeps its pieces apart, while two simulations do
-- not see each other. Pieces keep their own vertex order, one after another; each piece's groups
-- come as "<name>.<group>" and the piece as a group "<name>" (names: optional, "1", "2", ...).
function M.merge(meshes, names)
  if type(meshes) ~= "table" or #meshes == 0 then
    error("tauform.mesh.merge: expected a list of meshes {vertices, triangles, groups}", 2)
  end
  if names ~= nil and (type(names) ~= "table" or #names ~= #meshes) then
    error(("tauform.mesh.merge: names must list one name per mesh (%d)"):format(#meshes), 2)
  end
  local verts, tris, groups = {}, {}, {}
  for k, m in ipairs(meshes) do
    if type(m) ~= "table" or type(m.vertices) ~= "table" or type(m.triangles) ~= "table" then
      error(("tauform.mesh.merge: meshes[%d] is not a mesh {vertices, triangles}"):format(k), 2)
    end
    local name = names and tostring(names[k]) or tostring(k)
    if groups[name] then error(("tauform.mesh.merge: two pieces named '%s'"):format(name), 2) end
    local base = #verts // 3
    for _, x in ipairs(m.vertices) do -- flat {x, y, z, ...} or nested {{x, y, z}, ...}
      if type(x) == "table" then
        for c = 1, 3 do verts[#verts + 1] = x[c] end
      else
        verts[#verts + 1] = x
      end
    end
    for _, t in ipairs(m.triangles) do
      if type(t) == "table" then
        for c = 1, 3 do tris[#tris + 1] = t[c] + base end
      else
        tris[#tris + 1] = t + base
      end
    end
    local all = {}
    for i = 1, #verts // 3 - base do all[i] = base + i end
    groups[name] = all
    for g, list in pairs(m.groups or {}) do
      local out = {}
      for j, i in ipairs(list) do out[j] = base + i end
      groups[name .. "." .. g] = out
    end
  end
  return { vertices = verts, triangles = tris, groups = groups }
end

return M
