-- SPDX-License-Identifier: MIT
-- tauform.run(rig, { frames = "1-120", fps = 24, substeps = 2, out = "shot.pc2",
--                    preview = "last.png", sheet = "sheet.png", sheet_frames = 6 }): steps a rig's
-- simulation through a frame range and writes a PC2, MDD or OBJ-sequence cache (of a flesh rig's
-- skin), a PNG of the last
-- frame and a contact sheet of evenly spaced frames; in a terminal it shows a progress bar with
-- frame, ms/frame and time left. Returns a summary table, or nil,
-- message, code when the solver fails (the cache then holds every frame before the failure).
local cache = require "tauform.cache"
local rigmod = require "tauform.rig"
local core = require "tauform.core"

local M = {}

local function parse_range(r, default)
  if r == nil then return default[1], default[2] end
  if type(r) == "table" then return r[1], r[2] end
  local a, b = tostring(r):match("^%s*(%-?%d+)%s*[-:]%s*(%-?%d+)%s*$")
  if not a then
    local single = math.tointeger(tonumber(r))
    if single then return default[1], single end
    error(("frames: expected 'first-last', got '%s'"):format(tostring(r)), 3)
  end
  return math.tointeger(tonumber(a)), math.tointeger(tonumber(b))
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

function M.run(rig, opt)
  opt = opt or {}
  if getmetatable(rig) ~= rigmod.Rig then rig = rigmod.load(rig, opt) end
  local first, last = parse_range(opt.frames, rig.frames)
  if not first or not last or last < first then error("run: bad frame range", 2) end
  local fps = opt.fps or rig.fps
  local substeps = opt.substeps or rig.substeps
  rig.fps, rig.substeps = fps, substeps -- the step the rig's settle times are converted for
  local show = opt.progress
  if show == nil then show = core.isatty("stderr") end
  local sim <close> = rig:create()
  local out_count, out_tris = rig:output_count(sim)
  local writer <close> = opt.out and cache.open(opt.out, out_count, { start = first, fps = fps, format = opt.format,
                                                                 triangles = out_tris })
  local pos, out = sim:positions(), rig:output(sim)
  if writer then writer:write(out) end
  if opt.on_frame then opt.on_frame(first, sim, pos) end
  -- frames kept for the contact sheet: evenly spaced, first and last included
  local keep, shapes = {}, {}
  if opt.sheet then
    local count = math.max(1, math.min(opt.sheet_frames or 6, last - first + 1))
    for k = 0, count - 1 do
      keep[first + math.floor(k * (last - first) / math.max(count - 1, 1) + 0.5)] = true
    end
    if keep[first] then shapes[#shapes + 1] = { table.unpack(pos) } end
  end
  local t0 = os.clock()
  local stats = { newton = 0, cg = 0 }
  for f = first + 1, last do
    rig:apply(sim, f)
    local ok, msg, code = sim:advance(1 / fps, substeps)
    if not ok then
      if writer then writer:close() end
      if show then io.stderr:write("\n") end
      return nil, ("%s: frame %d: %s"):format(rig.source, f, msg), code
    end
    sim:positions(pos)
    if writer then writer:write(rig:output(sim, out)) end
    local st = sim:stats()
    stats.newton = stats.newton + st.newton_iterations
    stats.cg = stats.cg + st.cg_iterations
    if opt.on_frame then opt.on_frame(f, sim, pos) end
    if keep[f] then shapes[#shapes + 1] = { table.unpack(pos) } end
    if show then progress(f, first, last, t0) end
  end
  if writer then writer:close() end
  if show then io.stderr:write("\n") end
  local view = opt.view or rig.spec.view
  if opt.preview then
    local ok, msg = sim:render_png(opt.preview, { view = view })
    if not ok then return nil, msg, "TF_E_IO" end
  end
  if opt.sheet then
    local ok, msg = sim:render_sheet(opt.sheet, shapes, { view = view, columns = opt.sheet_columns or 3,
                                                           width = opt.sheet_width or 480,
                                                           height = opt.sheet_height or 360, wireframe = false })
    if not ok then return nil, msg, "TF_E_IO" end
  end
  local seconds = os.clock() - t0
  local frames = last - first
  return { first = first, last = last, frames = frames + 1, seconds = seconds,
           ms_per_frame = frames > 0 and 1000 * seconds / frames or 0, out = opt.out,
           newton_per_frame = frames > 0 and stats.newton / frames or 0,
           positions = pos }
end

return M
