-- SPDX-License-Identifier: MIT
-- Point caches a DCC reads back: PC2 (Blender's Mesh Cache, 3ds Max; little endian), MDD
-- (LightWave, Blender, Houdini; big endian) and OBJ sequences. A writer is opened with the vertex
-- count, takes one frame of flat positions {x1, y1, z1, ...} at a time, and keeps its header
-- valid after every frame, so an interrupted farm job still leaves a readable cache.
local M = {}

local Writer = {}
Writer.__index = Writer

local function open(path)
  local f, err = io.open(path, "wb")
  if not f then error(("cache: cannot write %s (%s)"):format(path, err), 3) end
  return f
end

-- PC2: "POINTCACHE2\0", version 1, points, start frame, sample rate, samples; float32 xyz
local function pc2_header(self)
  return string.pack("<c12i4i4ffi4", "POINTCACHE2\0", 1, self.n, self.start, 1.0, self.frames)
end

-- MDD: frames, points; one float32 time per frame; then per frame xyz float32, big endian.
-- The times block sits before the data, so MDD is written in one go at close.
function M.open(path, vert_count, opt)
  opt = opt or {}
  local format = opt.format or (path:match("%.mdd$") and "mdd") or (path:match("%.obj$") and "obj") or "pc2"
  local self = setmetatable({ path = path, n = vert_count, frames = 0, start = opt.start or 1,
                              fps = opt.fps or 24, format = format, triangles = opt.triangles }, Writer)
  if format == "pc2" then
    self.f = open(path)
    self.f:write(pc2_header(self))
  elseif format == "mdd" then
    self.data = {}
  elseif format == "obj" then
    if not self.triangles then error("cache: an OBJ sequence needs the mesh's triangles", 2) end
  else
    error(("cache: unknown format '%s' (pc2, mdd or obj)"):format(tostring(format)), 2)
  end
  return self
end

local function pack_frame(fmt, pos, n)
  local parts = {}
  for i = 1, n do
    parts[i] = string.pack(fmt, pos[3 * i - 2], pos[3 * i - 1], pos[3 * i])
  end
  return table.concat(parts)
end

function Writer:write(pos)
  if #pos ~= 3 * self.n then error(("cache: frame has %d numbers, expected %d"):format(#pos, 3 * self.n), 2) end
  if self.format == "pc2" then
    self.f:write(pack_frame("<fff", pos, self.n))
    self.frames = self.frames + 1
    self.f:seek("set", 0)
    self.f:write(pc2_header(self))
    self.f:seek("end", 0)
    self.f:flush()
  elseif self.format == "mdd" then
    self.data[#self.data + 1] = pack_frame(">fff", pos, self.n)
    self.frames = self.frames + 1
  else
    local name = self.path:gsub("%.obj$", "") .. ("_%04d.obj"):format(self.start + self.frames)
    local f = open(name)
    for i = 1, self.n do f:write(("v %.9g %.9g %.9g\n"):format(pos[3 * i - 2], pos[3 * i - 1], pos[3 * i])) end
    local t = self.triangles
    for k = 1, #t, 3 do f:write(("f %d %d %d\n"):format(t[k], t[k + 1], t[k + 2])) end
    f:close()
    self.frames = self.frames + 1
  end
end

function Writer:close()
  if self.format == "pc2" and self.f then
    self.f:close()
    self.f = nil
  elseif self.format == "mdd" and self.data then
    local f = open(self.path)
    f:write(string.pack(">i4i4", self.frames, self.n))
    for k = 0, self.frames - 1 do f:write(string.pack(">f", k / self.fps)) end
    f:write(table.concat(self.data))
    f:close()
    self.data = nil
  end
end
Writer.__close = Writer.close

-- read a PC2 file back: { points, start, rate, frames = { {x1, y1, z1, ...}, ... } }
function M.read_pc2(path)
  local f = io.open(path, "rb")
  if not f then error("cache: cannot read " .. path, 2) end
  local s = f:read("a")
  f:close()
  local sig, ver, n, start, rate, count, pos = string.unpack("<c12i4i4ffi4", s)
  if sig ~= "POINTCACHE2\0" or ver ~= 1 then error(path .. ": not a PC2 file", 2) end
  if #s ~= 32 + 12 * n * count then error(("%s: %d bytes, header says %d"):format(path, #s, 32 + 12 * n * count), 2) end
  local frames = {}
  for k = 1, count do
    local fr = {}
    for i = 1, 3 * n do fr[i], pos = string.unpack("<f", s, pos) end
    frames[k] = fr
  end
  return { points = n, start = start, rate = rate, frames = frames }
end

return M
