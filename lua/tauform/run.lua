-- SPDX-License-Identifier: MIT
-- tauform.run(rig, { frames = "1-120", fps = 24, substeps = 2, out = "shot.pc2",
--                    preview = "last.png", sheet = "sheet.png", sheet_frames = 6 }): steps a rig's
-- simulation through a frame range and writes a PC2, MDD or OBJ-sequence cache (of a flesh rig's
-- skin), the rest mesh as an OBJ beside a PC2 or MDD cache, a PNG of the last frame and a contact
-- sheet of evenly spaced frames; in a terminal it shows a progress bar with frame, ms/frame and
-- time left.
--
-- Options are checked first, each named in its error ("run: fps must be a positive finite number
-- (got 0)"): frames "FIRST-LAST", "FIRST:LAST", LAST or {first, last} (integers, first <= last),
-- fps > 0, substeps >= 1, format "pc2" | "mdd" | "obj", out / preview / sheet paths, sheet_frames,
-- sheet_columns, sheet_width, sheet_height >= 1, rest_obj (a path, or false for none).
--
-- The rest mesh: "<out without its extension>.obj" unless rest_obj says otherwise: the positions
-- the simulation starts from before any pin moves (the cloth's mesh; a flesh rig's skin, or the
-- tet mesh's rest positions and boundary without a skin), in the cache's vertex order, with its
-- 1-based triangles; importing it and adding a Mesh Cache modifier replays the cache (settings in
-- tauform/cache.lua and in the OBJ's comment). An OBJ sequence has its own faces: it gets none.
--
-- Checkpoints: checkpoint_every = N writes "<out>.checkpoint" every N frames (atomically: through
-- its own .partial), a state snapshot (sim:save_state) with the cache's progress and the frames
-- kept for the contact sheet; resume = true continues a run that was killed (even by kill -9)
-- from its last checkpoint: the same rig, frames, fps and substeps, the cache's .partial cut back
-- to the checkpoint's frames and appended to, and the frames after it simulated again, so the
-- cache ends bit for bit as an uninterrupted run's. A PC2 or OBJ-sequence cache (an MDD is
-- written whole at the end). A rig whose functions keep state of their own between frames (not a
-- function of the frame alone) cannot be resumed exactly: its keys, pins and colliders are
-- applied again from the frame. A run that finishes removes its checkpoint.
--
-- Returns a summary table { first, last, frames, seconds, ms_per_frame, newton_per_frame, out,
-- rest_obj, files = { {path =, what =}, ... }, positions }. When the solver fails it returns nil,
-- message, code, and when the rig raises an error the error propagates; either way the cache is
-- not written under its name: the message ends with where the frames before the failure are
-- ("<out>.partial", a valid cache; see tauform/cache.lua).
local cache = require "tauform.cache"
local rigmod = require "tauform.rig"
local core = require "tauform.core"
local schema = require "tauform.schema"

local M = {}

local function show(v)
  if type(v) == "string" then return ("'%s'"):format(v) end
  if type(v) ~= "number" then return ("a %s"):format(type(v)) end
  if v ~= v then return "NaN" end
  if v == math.huge or v == -math.huge then return v > 0 and "inf" or "-inf" end
  return ("%.17g"):format(v)
end

local function bad(fmt, ...) error("run: " .. fmt:format(...), 0) end

local function int_or_nil(v)
  if math.type(v) == "integer" then return v end
  if type(v) == "number" and v == v and v % 1 == 0 and v > -2 ^ 53 and v < 2 ^ 53 then return math.tointeger(v) end
  return nil
end

-- frames: "a-b", "a:b", "last" or {a, b}; default the rig's {first, last}
function M.parse_frames(r, default)
  local a, b
  if r == nil then
    if type(default) ~= "table" or not int_or_nil(default[1]) or not int_or_nil(default[2]) then
      bad("the rig's frames must be {first, last} integers (got %s)", show(default))
    end
    a, b = default[1], default[2]
  elseif type(r) == "table" then
    a, b = r[1], r[2]
    if #r ~= 2 or not int_or_nil(a) or not int_or_nil(b) then bad("frames must be {first, last} integers") end
  elseif type(r) == "number" then
    b = int_or_nil(r)
    if not b then bad("frames: expected 'FIRST-LAST' (e.g. '1-96'), LAST or {first, last}, got %s", show(r)) end
    if type(default) ~= "table" or not int_or_nil(default[1]) then bad("the rig's frames must be {first, last} integers") end
    a = default[1]
  elseif type(r) == "string" then
    local sa, sb = tostring(r):match("^%s*([+-]?%d+)%s*[-:]%s*([+-]?%d+)%s*$")
    if sa then
      a, b = math.tointeger(tonumber(sa)), math.tointeger(tonumber(sb))
    else
      local single = tostring(r):match("^%s*([+-]?%d+)%s*$")
      if not single then bad("frames: expected 'FIRST-LAST' (e.g. '1-96') or LAST, got %s", show(r)) end
      if type(default) ~= "table" or not int_or_nil(default[1]) then bad("the rig's frames must be {first, last} integers") end
      a, b = default[1], math.tointeger(tonumber(single))
    end
    if not a or not b then bad("frames: %s is out of range", show(r)) end
  else
    bad("frames: expected 'FIRST-LAST' (e.g. '1-96'), LAST or {first, last}, got %s", show(r))
  end
  a, b = int_or_nil(a), int_or_nil(b)
  if b < a then bad("frames: the first frame %d is after the last %d", a, b) end
  return a, b
end

local RUN_OPTIONS, KNOWN = {}, {}
for _, f in ipairs(schema.tables["tauform.run options"]) do
  RUN_OPTIONS[#RUN_OPTIONS + 1], KNOWN[f[1]] = f[1], true
end

local function check_opts(opt)
  if type(opt) ~= "table" then bad("options must be a table") end
  -- an unknown key is a mistake, never a default (the reference lists them: plugin/docs/reference.md)
  for k in pairs(opt) do
    if not KNOWN[k] then
      local near = schema.suggest(k, RUN_OPTIONS)
      bad("unknown option %s%s", show(k), near and (" (did you mean '%s'?)"):format(near) or "")
    end
  end
  if opt.threads ~= nil then
    local i = int_or_nil(opt.threads)
    if not i or i < 0 or i > 256 then bad("threads must be an integer in 0..256 (got %s)", show(opt.threads)) end
  end
  local function number(name, positive_int)
    local v = opt[name]
    if v == nil then return end
    if positive_int then
      local i = int_or_nil(v)
      if not i or i < 1 then bad("%s must be an integer >= 1 (got %s)", name, show(v)) end
    elseif type(v) ~= "number" or v ~= v or v == math.huge or v <= 0 then
      bad("%s must be a positive finite number (got %s)", name, show(v))
    end
  end
  local function path(name, allow_false)
    local v = opt[name]
    if v == nil or (allow_false and v == false) then return end
    if type(v) ~= "string" or v == "" then bad("%s must be a file path (got %s)", name, show(v)) end
  end
  number("fps"); number("substeps", true)
  number("sheet_frames", true); number("sheet_columns", true); number("sheet_width", true); number("sheet_height", true)
  path("out"); path("preview"); path("sheet"); path("rest_obj", true)
  if opt.format ~= nil and opt.format ~= "pc2" and opt.format ~= "mdd" and opt.format ~= "obj" then
    bad("format must be 'pc2', 'mdd' or 'obj' (got %s)", show(opt.format))
  end
  if opt.progress ~= nil and type(opt.progress) ~= "boolean" then bad("progress must be true or false") end
  number("checkpoint_every", true)
  if opt.resume ~= nil and type(opt.resume) ~= "boolean" then bad("resume must be true or false") end
  if (opt.checkpoint_every or opt.resume) and not opt.out then
    bad("%s needs out: the checkpoint goes beside the cache", opt.resume and "resume" or "checkpoint_every")
  end
  local fmt = opt.format or (opt.out and opt.out:match("%.mdd$") and "mdd")
  if (opt.checkpoint_every or opt.resume) and fmt == "mdd" then
    bad("checkpoints need a PC2 or OBJ-sequence cache (an MDD is written whole at the end)")
  end
  if opt.on_frame ~= nil and type(opt.on_frame) ~= "function" then bad("on_frame must be a function(frame, sim, positions)") end
end

local function progress(frame, first, last, t0)
  local done, total = frame - first, last - first
  local elapsed = os.clock() - t0
  local ms = done > 0 and 1000 * elapsed / done or 0
  local left = done > 0 and elapsed / done * (total - done) or 0
  local width = 30
  local fill = total > 0 and math.floor(width * done / total) or width
  io.stderr:write(("\r[%s%s] frame %d/%d  %.1f ms/frame  %.1f s left "):format(
    ("#"):rep(fill), ("."):rep(width - fill), frame, last, ms, left))
  io.stderr:flush()
end

-- the rest positions of what the cache stores, in its vertex order
local function rest_output(rig, sim, count)
  local v
  if rig.kind == "flesh" then
    v = sim:surface_count() > 0 and rig.surface.vertices or sim:rest_positions()
  else
    v = rig.mesh.vertices
  end
  if #v ~= 3 * count then error(("run: the rest mesh has %d vertices, the cache %d"):format(#v // 3, count), 0) end
  return v
end

-- where the rest mesh goes: opt.rest_obj, else "<out without extension>.obj"; nil for none
local function rest_path(opt, format)
  if opt.rest_obj == false or not opt.out or format == "obj" then return nil end
  if opt.rest_obj then return opt.rest_obj end
  local base = opt.out:gsub("%.[%w_]+$", "")
  if not opt.out:match("[^/]%.[%w_]+$") then base = opt.out end
  local p = base .. ".obj"
  if p == opt.out then p = base .. ".rest.obj" end
  return p
end

-- a checkpoint: where the run stands after `frame` and the snapshot of its simulation
local CHECKPOINT = "tauform checkpoint 1\n"

local function write_checkpoint(path, c)
  local parts = { CHECKPOINT, string.pack("<i8i8i8i8dd", c.first, c.frame, c.fps_key, c.cached, c.newton, c.cg),
                  string.pack("<i8", #c.shapes) }
  for _, sh in ipairs(c.shapes) do
    parts[#parts + 1] = string.pack("<i8i8", sh.frame, #sh.pos)
    parts[#parts + 1] = string.pack("<" .. ("d"):rep(#sh.pos), table.unpack(sh.pos))
  end
  parts[#parts + 1] = string.pack("<s8", c.state)
  local tmp = path .. ".partial"
  local f, err = io.open(tmp, "wb")
  if not f then error(("run: cannot write the checkpoint %s (%s)"):format(tmp, err), 0) end
  f:write(table.concat(parts))
  local ok, cerr = f:close()
  if not ok then error(("run: cannot write the checkpoint %s (%s)"):format(tmp, tostring(cerr)), 0) end
  ok, cerr = os.rename(tmp, path)
  if not ok then error(("run: cannot rename %s to %s (%s)"):format(tmp, path, tostring(cerr)), 0) end
end

local function read_checkpoint(path)
  local f = io.open(path, "rb")
  if not f then bad("resume: there is no checkpoint %s (run with checkpoint_every first)", path) end
  local s = f:read("a")
  f:close()
  local ok, c = pcall(function()
    if s:sub(1, #CHECKPOINT) ~= CHECKPOINT then error("not a tauform checkpoint") end
    local c, pos = {}, #CHECKPOINT + 1
    c.first, c.frame, c.fps_key, c.cached, c.newton, c.cg, pos = string.unpack("<i8i8i8i8dd", s, pos)
    local count
    count, pos = string.unpack("<i8", s, pos)
    c.shapes = {}
    for k = 1, count do
      local frame, n
      frame, n, pos = string.unpack("<i8i8", s, pos)
      local v = { string.unpack("<" .. ("d"):rep(n), s, pos) }
      pos = table.remove(v)
      c.shapes[k] = { frame = frame, pos = v }
    end
    c.state, pos = string.unpack("<s8", s, pos)
    if pos ~= #s + 1 then error("trailing bytes") end
    return c
  end)
  if not ok then bad("resume: %s is damaged or not a checkpoint (%s)", path, tostring(c)) end
  return c
end

-- fps and substeps in one integer, so a checkpoint is resumed only with the step it was made with
local function step_key(fps, substeps) return math.floor(fps * 1e6 + 0.5) * 100000 + substeps end

function M.run(rig, opt)
  opt = opt or {}
  check_opts(opt)
  if getmetatable(rig) ~= rigmod.Rig then rig = rigmod.load(rig, opt) end
  if opt.threads ~= nil then
    -- the rig's solver table with the run's thread count (the rig's own table is left as it is)
    local solver = {}
    for k, v in pairs(rig.spec.solver or {}) do solver[k] = v end
    solver.threads = opt.threads
    rig.spec.solver = solver
  end
  local first, last = M.parse_frames(opt.frames, rig.frames)
  local fps = opt.fps or rig.fps
  local substeps = opt.substeps or rig.substeps
  rig.fps, rig.substeps = fps, substeps -- the step the rig's settle times are converted for
  local show_bar = opt.progress
  if show_bar == nil then show_bar = core.isatty("stderr") end
  local sim <close> = rig:create()
  local out_count, out_tris = rig:output_count(sim)
  local format = opt.format or (opt.out and ((opt.out:match("%.mdd$") and "mdd") or (opt.out:match("%.obj$") and "obj") or "pc2"))
  -- a tearing rig's vertex count grows: only an OBJ sequence holds that (each file its own mesh)
  local tears = rig.spec.tear ~= nil
  if tears and opt.out and format ~= "obj" then
    bad("the rig tears (field 'tear'): its vertex count changes, which a %s cache cannot hold; write an OBJ "
        .. "sequence (out = \"%s.obj\")", format:upper(), (opt.out:gsub("%.[%w_]+$", "")))
  end
  if tears and (opt.checkpoint_every or opt.resume) then
    bad("checkpoints of a tearing rig are not supported yet (a torn simulation's snapshot loads only into one torn the same way)")
  end
  local rest_obj = rest_path(opt, format)
  local rest = rest_obj and { table.unpack(rest_output(rig, sim, out_count)) }
  local checkpoint = opt.out and opt.out .. ".checkpoint"
  local resumed = opt.resume and read_checkpoint(checkpoint)
  if resumed then
    if resumed.first ~= first or resumed.fps_key ~= step_key(fps, substeps) or resumed.frame > last then
      bad("resume: %s was made by a run from frame %d with another fps or substeps, or past frame %d",
          checkpoint, resumed.first, last)
    end
    local lok, lerr = pcall(sim.load_state, sim, resumed.state)
    if not lok then bad("resume: %s: %s", checkpoint, tostring(lerr)) end
  end
  local writer = opt.out and cache.open(opt.out, out_count, { start = first, fps = fps, format = format,
                                                             triangles = out_tris,
                                                             resume_frames = resumed and resumed.cached })
  local pos = sim:positions()
  local keep, shapes, kept = {}, {}, {}
  local stats = { newton = resumed and resumed.newton or 0, cg = resumed and resumed.cg or 0 }
  local t0 = os.clock()
  local function save(f)
    write_checkpoint(checkpoint, { first = first, frame = f, fps_key = step_key(fps, substeps), cached = writer.frames,
                                   newton = stats.newton, cg = stats.cg, shapes = kept, state = sim:save_state() })
  end
  local function simulate()
    -- frames kept for the contact sheet: evenly spaced, first and last included
    if opt.sheet then
      local count = math.max(1, math.min(opt.sheet_frames or 6, last - first + 1))
      for k = 0, count - 1 do
        keep[first + math.floor(k * (last - first) / math.max(count - 1, 1) + 0.5)] = true
      end
    end
    local from = first + 1
    if resumed then
      from = resumed.frame + 1
      for _, sh in ipairs(resumed.shapes) do
        kept[#kept + 1] = sh
        shapes[#shapes + 1] = sh.pos
      end
    else
      if writer then writer:write(rig:output(sim)) end
      if opt.on_frame then opt.on_frame(first, sim, pos) end
      if keep[first] then
        kept[#kept + 1] = { frame = first, pos = { table.unpack(pos) } }
        shapes[#shapes + 1] = kept[#kept].pos
      end
      if opt.checkpoint_every then save(first) end
    end
    local out = nil
    for f = from, last do
      rig:apply(sim, f)
      local ok, msg, code = sim:advance(1 / fps, substeps)
      if not ok then return false, ("%s: frame %d: %s"):format(rig.source, f, msg), code end
      sim:positions(pos)
      if tears and writer and sim:topology().changed then writer:retopology(sim:vert_count(), sim:triangles()) end
      if writer then
        out = rig:output(sim, out)
        writer:write(out)
      end
      local st = sim:stats()
      stats.newton = stats.newton + st.newton_iterations
      stats.cg = stats.cg + st.cg_iterations
      if opt.on_frame then opt.on_frame(f, sim, pos) end
      if keep[f] then
        kept[#kept + 1] = { frame = f, pos = { table.unpack(pos) } }
        shapes[#shapes + 1] = kept[#kept].pos
      end
      if opt.checkpoint_every and (f - first) % opt.checkpoint_every == 0 then save(f) end
      if show_bar then progress(f, first, last, t0) end
    end
    return true
  end
  local ok, done, msg, code = pcall(simulate)
  if show_bar then io.stderr:write("\n") end
  if not ok or not done then
    local note = writer and writer:abort()
    local why = ok and msg or tostring(done)
    if note then why = why .. "; " .. note end
    if not ok then error(why, 0) end
    return nil, why, code
  end
  local files = {}
  if writer then
    writer:close()
    -- the cache is complete: its checkpoint has nothing left to resume
    if opt.checkpoint_every or resumed then os.remove(checkpoint) end
    local list = writer:files()
    local what = ("cache (%s, frames %d-%d at %g fps, %d points)"):format(format:upper(), first, last, fps, out_count)
    if #list == 1 then
      files[#files + 1] = { path = list[1], what = what }
    else
      files[#files + 1] = { path = ("%s ... %s"):format(list[1], list[#list]), what = ("%s, %d files"):format(what, #list) }
    end
  end
  if rest_obj then
    cache.write_obj(rest_obj, rest, out_tris, table.concat({
      ("tauform rest mesh of %s: %d vertices in the order of %s, %d triangles"):format(rig.source, out_count, opt.out, #out_tris // 3),
      ("Blender: File > Import > Wavefront (.obj) with Forward Axis Y, Up Axis Z (no axis change);"),
      ("then a Mesh Cache modifier: Format %s, File Path %s, Time Mode Frame, Play Mode Scene,"):format(format:upper(), opt.out),
      ("Frame Start %d (the rig's first frame), Frame Scale 1, Forward Axis Y, Up Axis Z."):format(first),
    }, "\n"))
    files[#files + 1] = { path = rest_obj, what = "rest mesh (OBJ, the cache's vertex order)" }
  end
  local view = opt.view or rig.spec.view
  local cached = opt.out and ("; the cache %s is complete"):format(opt.out) or ""
  if opt.preview then
    local pok, pmsg = sim:render_png(opt.preview, { view = view })
    if not pok then return nil, pmsg .. cached, "TF_E_IO" end
    files[#files + 1] = { path = opt.preview, what = "picture of the last frame (PNG)" }
  end
  if opt.sheet then
    local sok, smsg = sim:render_sheet(opt.sheet, shapes, { view = view, columns = opt.sheet_columns or 3,
                                                           width = opt.sheet_width or 480,
                                                           height = opt.sheet_height or 360, wireframe = false })
    if not sok then return nil, smsg .. cached, "TF_E_IO" end
    files[#files + 1] = { path = opt.sheet, what = ("contact sheet of %d frames (PNG)"):format(#shapes) }
  end
  local seconds = os.clock() - t0
  local frames = last - first
  return { first = first, last = last, frames = frames + 1, seconds = seconds,
           ms_per_frame = frames > 0 and 1000 * seconds / frames or 0, out = opt.out, rest_obj = rest_obj,
           files = files, newton_per_frame = frames > 0 and stats.newton / frames or 0,
           positions = pos }
end

return M
