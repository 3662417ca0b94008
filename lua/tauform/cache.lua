-- SPDX-License-Identifier: MIT
-- Point caches a DCC reads back: PC2 (Blender's Mesh Cache, 3ds Max; little endian), MDD
-- (LightWave, Blender, Houdini; big endian) and OBJ sequences, and the rest mesh as one OBJ.
-- A writer is opened with the vertex count, takes one frame of flat positions {x1, y1, z1, ...}
-- at a time, and is finished by close(). opt.resume_frames = k continues a PC2 or OBJ sequence a
-- killed run left after its first k frames (tauform.run's --resume).
--
-- Atomic: a PC2 or MDD cache is written to "<path>.partial" and renamed to <path> only when
-- close() finishes it, so <path> is either absent, the previous complete cache, or the new
-- complete one, never a truncated one. When a run fails, abort() (or a to-be-closed writer
-- leaving by an error) keeps the partial file, a valid cache of the frames written so far (the
-- PC2 header's count is kept current after every frame) and returns a sentence saying where it is
-- and how many frames it holds, for the error message. An OBJ sequence writes each frame's file
-- whole (through its own .partial); a failed run keeps the frames before the failure.
--
-- PC2 header: start frame = the first frame cached (opt.start, the rig's first frame), sample
-- rate = 1.0. PC2's "sample rate" is the step in frames between samples, not frames per second
-- (the format has no fps field): 1.0 says one sample per frame, which is true at any fps. In
-- Blender's Mesh Cache (Time Mode "Frame", the default) the header's start is not read: set
-- "Frame Start" to the rig's first frame (1 for a rig starting at frame 1) and Frame Scale 1, and
-- scene frame f shows the cache sample of rig frame f. MDD stores one time per sample, in seconds
-- from the first cached frame: k / fps for the k-th sample, k = 0, 1, ...
local M = {}

local Writer = {}
Writer.__index = Writer

local function open(path, level)
  local f, err = io.open(path, "wb")
  if not f then error(("cache: cannot write %s (%s)"):format(path, err), level or 3) end
  return f
end

-- write a file whole through "<path>.partial", then rename it into place
local function write_whole(path, chunks)
  local tmp = path .. ".partial"
  local f = open(tmp, 4)
  for _, c in ipairs(chunks) do f:write(c) end
  local ok, err = f:close()
  if not ok then os.remove(tmp); error(("cache: cannot write %s (%s)"):format(tmp, tostring(err)), 3) end
  ok, err = os.rename(tmp, path)
  if not ok then error(("cache: cannot rename %s to %s (%s)"):format(tmp, path, tostring(err)), 3) end
end

-- PC2: "POINTCACHE2\0", version 1, points, start frame, sample rate, samples; float32 xyz
local function pc2_header(self)
  return string.pack("<c12i4i4ffi4", "POINTCACHE2\0", 1, self.n, self.start, 1.0, self.frames)
end

-- MDD: frames, points; one float32 time per frame; then per frame xyz float32, big endian.
-- The times block sits before the data, so MDD is written in one go at close.
local function mdd_chunks(self)
  local chunks = { string.pack(">i4i4", self.frames, self.n) }
  for k = 0, self.frames - 1 do chunks[#chunks + 1] = string.pack(">f", k / self.fps) end
  chunks[#chunks + 1] = table.concat(self.data)
  return chunks
end

function M.open(path, vert_count, opt)
  opt = opt or {}
  local format = opt.format or (path:match("%.mdd$") and "mdd") or (path:match("%.obj$") and "obj") or "pc2"
  local self = setmetatable({ path = path, n = vert_count, frames = 0, start = opt.start or 1,
                              fps = opt.fps or 24, format = format, triangles = opt.triangles,
                              partial = path .. ".partial" }, Writer)
  if format == "pc2" and opt.resume_frames then
    -- a resumed run (tauform.run's checkpoints): the .partial a killed run left, cut back to the
    -- frames its checkpoint had cached, then appended to
    local keep = opt.resume_frames
    local f = io.open(self.partial, "rb")
    if not f then error(("cache: cannot resume: %s is missing"):format(self.partial), 2) end
    local s = f:read("a")
    f:close()
    local bytes = 32 + 12 * vert_count * keep
    if #s < bytes then
      error(("cache: cannot resume: %s holds %d bytes, its checkpoint needs %d (%d frames)"):format(
        self.partial, #s, bytes, keep), 2)
    end
    self.frames = keep
    self.f = open(self.partial)
    self.f:write(pc2_header(self), s:sub(33, bytes))
    self.f:flush()
  elseif format == "pc2" then
    self.f = open(self.partial)
    self.f:write(pc2_header(self))
  elseif format == "mdd" then
    self.data = {}
  elseif format == "obj" then
    if not self.triangles then error("cache: an OBJ sequence needs the mesh's triangles", 2) end
    self.partial = nil
    self.frames = opt.resume_frames or 0
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

local function obj_chunks(pos, n, tris, comment, vfmt)
  local out = { comment or "" }
  vfmt = vfmt or "v %.9g %.9g %.9g\n" -- float32 precision, like PC2 and MDD
  for i = 1, n do out[#out + 1] = vfmt:format(pos[3 * i - 2], pos[3 * i - 1], pos[3 * i]) end
  for k = 1, #tris, 3 do out[#out + 1] = ("f %d %d %d\n"):format(tris[k], tris[k + 1], tris[k + 2]) end
  return out
end

-- the file frame k (1-based) of an OBJ sequence goes to
function Writer:obj_frame_path(k)
  return self.path:gsub("%.obj$", "") .. ("_%04d.obj"):format(self.start + k - 1)
end

function Writer:write(pos)
  if self.finished then error("cache: the writer is closed", 2) end
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
    write_whole(self:obj_frame_path(self.frames + 1), obj_chunks(pos, self.n, self.triangles))
    self.frames = self.frames + 1
  end
end

-- an OBJ sequence's mesh from the next frame on (a torn cloth's new vertex count and triangles);
-- a PC2 or MDD cache holds one vertex count
function Writer:retopology(vert_count, triangles)
  if self.format ~= "obj" then
    error(("cache: a %s cache cannot change its vertex count (%d to %d): write an OBJ sequence"):format(
      self.format:upper(), self.n, vert_count), 2)
  end
  self.n, self.triangles = vert_count, triangles
end

-- the files a finished writer wrote
function Writer:files()
  if self.format ~= "obj" then return { self.path } end
  local out = {}
  for k = 1, self.frames do out[k] = self:obj_frame_path(k) end
  return out
end

-- finish: the complete cache under its name (renamed from the .partial)
function Writer:close()
  if self.finished then return end
  self.finished = true
  if self.format == "pc2" then
    local ok, err = self.f:close()
    self.f = nil
    if not ok then error(("cache: cannot write %s (%s)"):format(self.partial, tostring(err)), 2) end
    local rok, rerr = os.rename(self.partial, self.path)
    if not rok then error(("cache: cannot rename %s to %s (%s)"):format(self.partial, self.path, tostring(rerr)), 2) end
  elseif self.format == "mdd" then
    write_whole(self.path, mdd_chunks(self))
    self.data = nil
  end
end

-- a failed run: keep what was written under "<path>.partial" (never under <path>) and say so
function Writer:abort()
  if self.finished then return self.note end
  self.finished = true
  local last = self.start + self.frames - 1
  local held = self.frames == 1 and ("frame %d"):format(self.start) or ("frames %d-%d"):format(self.start, last)
  if self.format == "pc2" then
    self.f:close()
    self.f = nil
  elseif self.format == "mdd" and self.frames > 0 then
    local ok, err = pcall(function()
      local f = open(self.partial)
      for _, c in ipairs(mdd_chunks(self)) do f:write(c) end
      f:close()
    end)
    self.data = nil
    if not ok then return ("the cache's %d frames were lost: %s"):format(self.frames, tostring(err)) end
  end
  if self.frames == 0 then
    if self.partial then os.remove(self.partial) end
    self.note = ("no frames were cached; %s was not written"):format(self.path)
  elseif self.format == "obj" then
    self.note = ("the OBJ sequence holds the %d frames before the failure (%s): %s ..."):format(
      self.frames, held, self:obj_frame_path(1))
  else
    self.note = ("%s was not written; %s holds the %d frames before the failure (%s), a valid %s cache"):format(
      self.path, self.partial, self.frames, held, self.format:upper())
  end
  return self.note
end

-- a to-be-closed writer: finished when its scope ends normally, aborted when it ends by an error
function Writer:__close(err)
  if err ~= nil then self:abort() else self:close() end
end

-- write_obj(path, vertices, triangles[, comment]): one OBJ (v lines at full double precision,
-- 1-based triangles, no groups or objects, so an importer keeps the vertex order), written whole
function M.write_obj(path, vertices, triangles, comment)
  if #vertices % 3 ~= 0 then error("cache.write_obj: vertices must be flat {x1, y1, z1, ...}", 2) end
  local head = comment and (comment:gsub("[^\n]+", "# %0"):gsub("\n?$", "\n")) or nil
  write_whole(path, obj_chunks(vertices, #vertices // 3, triangles, head, "v %.17g %.17g %.17g\n"))
end

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
