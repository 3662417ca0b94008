-- SPDX-License-Identifier: MIT
-- Meshes for rigs: a rectangular cloth grid, a disc, and Wavefront OBJ loading with named vertex
-- groups (from `g`/`o` statements, or a companion "name: i j k ..." file), so rigs pin groups by
-- name rather than index lists. A mesh is { vertices = {x1, y1, z1, ...}, triangles = {a, b, c,
-- ...} (1-based), groups = { name = {i, j, ...} } }, the form tauform.cloth accepts.
local M = {}

local function add_group(groups, name, i)
  local g = groups[name]
  if not g then g = {}; groups[name] = g end
  g[#g + 1] = i
end

-- grid{ width = 1, height = 1, nx = 10, ny = 10, origin = {0, 0, 0}, u = {1, 0, 0}, v = {0, 1, 0} }:
-- vertex (i, j), i = 0..nx, j = 0..ny, is number j*(nx+1)+i+1 at origin + i*width/nx*u + j*height/ny*v;
-- groups: row0 (j = 0), rowN (j = ny), col0 (i = 0), colN (i = nx), corners, all
function M.grid(opt)
  opt = opt or {}
  local w, h = opt.width or 1, opt.height or 1
  local nx, ny = opt.nx or 10, opt.ny or 10
  if nx < 1 or ny < 1 or nx % 1 ~= 0 or ny % 1 ~= 0 then error("mesh.grid: nx and ny must be positive integers", 2) end
  local o, u, v = opt.origin or { 0, 0, 0 }, opt.u or { 1, 0, 0 }, opt.v or { 0, 1, 0 }
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
  opt = opt or {}
  local r, rings, seg = opt.radius or 1, opt.rings or 8, opt.segments or 32
  local c = opt.center or { 0, 0, 0 }
  if rings < 1 or seg < 3 then error("mesh.disc: need rings >= 1 and segments >= 3", 2) end
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

-- ellipsoid{ radii = {1, 1, 1}, center = {0, 0, 0}, rings = 12, segments = 24 }: a closed surface
-- with outward triangles (poles on the z axis), the kind tauform.flesh fills with tets;
-- groups: top (north pole), bottom (south pole), all
function M.ellipsoid(opt)
  opt = opt or {}
  local r, c = opt.radii or { 1, 1, 1 }, opt.center or { 0, 0, 0 }
  local rings, seg = opt.rings or 12, opt.segments or 24
  if rings < 2 or seg < 3 then error("mesh.ellipsoid: need rings >= 2 and segments >= 3", 2) end
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

-- "name: 1 2 3 ..." lines (blank lines and # comments allowed) into groups
local function read_group_file(path, groups)
  local f = io.open(path, "r")
  if not f then return false end
  local n = 0
  for line in f:lines() do
    n = n + 1
    local s = line:gsub("#.*$", "")
    if s:match("%S") then
      local name, rest = s:match("^%s*([%w_%.%-]+)%s*:(.*)$")
      if not name then f:close(); error(("%s:%d: expected 'name: index index ...'"):format(path, n), 0) end
      for tok in rest:gmatch("%S+") do
        local i = math.tointeger(tonumber(tok))
        if not i or i < 1 then f:close(); error(("%s:%d: '%s' is not a vertex number"):format(path, n, tok), 0) end
        add_group(groups, name, i)
      end
    end
  end
  f:close()
  return true
end

-- load_obj(path[, { groups = "file" }]): v and f lines (polygons fanned into triangles, v/vt/vn
-- and negative indices accepted); g/o statements name the groups of the vertices their faces use;
-- a companion "<path>.groups" (or opt.groups) adds "name: i j ..." groups. Errors name file:line.
function M.load_obj(path, opt)
  opt = opt or {}
  local f, err = io.open(path, "r")
  if not f then error(("mesh.load_obj: cannot open %s (%s)"):format(path, err), 2) end
  local verts, tris, groups, seen = {}, {}, {}, {}
  local current = {}
  local n = 0
  for line in f:lines() do
    n = n + 1
    local cmd, rest = line:match("^%s*(%S+)%s*(.*)$")
    if cmd == "v" then
      local x, y, z = rest:match("^(%S+)%s+(%S+)%s+(%S+)")
      x, y, z = tonumber(x), tonumber(y), tonumber(z)
      if not (x and y and z) then f:close(); error(("%s:%d: vertex needs three numbers"):format(path, n), 0) end
      verts[#verts + 1], verts[#verts + 2], verts[#verts + 3] = x, y, z
    elseif cmd == "f" then
      local poly = {}
      for tok in rest:gmatch("%S+") do
        local i = math.tointeger(tonumber(tok:match("^(-?%d+)")))
        if not i or i == 0 then f:close(); error(("%s:%d: bad face index '%s'"):format(path, n, tok), 0) end
        if i < 0 then i = #verts // 3 + 1 + i end
        if i < 1 or i > #verts // 3 then f:close(); error(("%s:%d: face index %d out of range 1..%d"):format(path, n, i, #verts // 3), 0) end
        poly[#poly + 1] = i
      end
      if #poly < 3 then f:close(); error(("%s:%d: a face needs at least 3 vertices"):format(path, n), 0) end
      for k = 2, #poly - 1 do
        tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = poly[1], poly[k], poly[k + 1]
      end
      for _, name in ipairs(current) do
        seen[name] = seen[name] or {}
        for _, i in ipairs(poly) do
          if not seen[name][i] then seen[name][i] = true; add_group(groups, name, i) end
        end
      end
    elseif cmd == "g" or cmd == "o" then
      current = {}
      for name in rest:gmatch("%S+") do current[#current + 1] = name end
    end
  end
  f:close()
  if #tris == 0 then error(("%s: no faces"):format(path), 2) end
  local gfile = opt.groups or (path .. ".groups")
  read_group_file(gfile, groups)
  for name, ids in pairs(groups) do
    for _, i in ipairs(ids) do
      if i > #verts // 3 then error(("%s: group '%s' names vertex %d, the mesh has %d"):format(gfile, name, i, #verts // 3), 2) end
    end
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

return M
