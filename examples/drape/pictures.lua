-- SPDX-License-Identifier: MIT
-- A contact sheet of a rig's cache with its colliders drawn in (run.lua's --sheet draws the
-- simulated mesh alone): six evenly spaced frames of the cache, each with the rig's colliders at
-- that frame's pose (rig:collider_pose), through the library's own rasterizer.
--   lua5.4 examples/run.lua examples/drape/tablecloth.lua --out tablecloth.pc2
--   lua5.4 examples/drape/pictures.lua examples/drape/tablecloth.lua tablecloth.pc2 tablecloth.png [240x180]
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
dofile(here .. "/../checkout.lua")(here .. "/../..")
local tauform = require "tauform"

local rigpath, pc2, png, size = arg[1], arg[2], arg[3], arg[4] or "240x180"
if not (rigpath and pc2 and png) then
  io.stderr:write("usage: lua5.4 examples/drape/pictures.lua RIG.lua CACHE.pc2 OUT.png [WxH]\n")
  os.exit(2)
end
local width, height = size:match("^(%d+)x(%d+)$")
width, height = tonumber(width), tonumber(height)

local rig = tauform.rig.load(rigpath)
local cache = tauform.cache.read_pc2(pc2)
local cloth = rig.mesh
assert(cache.points == #cloth.vertices // 3, "the cache is not this rig's mesh")

-- one display mesh: the cloth, then every collider
local vertices, triangles = {}, {}
for _, x in ipairs(cloth.vertices) do vertices[#vertices + 1] = x end
for _, t in ipairs(cloth.triangles) do triangles[#triangles + 1] = t end
for _, col in ipairs(rig.colliders) do
  local base = #vertices // 3
  for _, x in ipairs(col.vertices) do vertices[#vertices + 1] = x end
  for _, t in ipairs(col.triangles) do triangles[#triangles + 1] = base + t end
end
local display <close> = tauform.cloth{ vertices = vertices, triangles = triangles }

-- six frames, first and last included
local count, frames = #cache.frames, {}
for k = 0, 5 do frames[#frames + 1] = 1 + math.floor(k * (count - 1) / 5 + 0.5) end
local shapes = {}
for _, k in ipairs(frames) do
  local frame = cache.start + (k - 1)
  local shape = {}
  for i, x in ipairs(cache.frames[k]) do shape[i] = x end
  for _, col in ipairs(rig.colliders) do
    for _, x in ipairs(rig:collider_pose(col, frame)) do shape[#shape + 1] = x end
  end
  shapes[#shapes + 1] = shape
end
assert(display:render_sheet(png, shapes, { view = rig.spec.view, columns = 3, width = width, height = height,
                                            wireframe = false, pins = false }))
print(("wrote %s: frames %s of %s with %d collider(s)"):format(png, table.concat(frames, ", "), pc2, #rig.colliders))
