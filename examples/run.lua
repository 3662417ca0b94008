-- SPDX-License-Identifier: MIT
-- Run any rig headlessly:
--   lua5.4 examples/run.lua examples/cape/cape.lua --frames 1-96 --out cape.pc2 [--substeps N]
--                          [--fps F] [--format pc2|mdd|obj] [--quiet]
-- Finds the library next to this checkout (build/lua/tauform.so and lua/), the one LUA_CPATH
-- names, or an installed one.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/.."
dofile(root .. "/examples/checkout.lua")(root)

local usage = [[
usage: lua5.4 examples/run.lua RIG.lua [--frames FIRST-LAST] [--out FILE] [--substeps N]
                                       [--fps F] [--format pc2|mdd|obj] [--preview FILE.png]
                                       [--sheet FILE.png] [--sheet-size WxH] [--quiet]
  --frames    frame range, default the rig's
  --out       cache to write: .pc2 (default format), .mdd, or .obj (one file per frame)
  --substeps  solver steps per frame, default the rig's
  --fps       frames per second, default the rig's (24)
  --preview   PNG picture of the last frame
  --sheet     PNG contact sheet of six evenly spaced frames
  --sheet-size WxH  tile size of the contact sheet, default 480x360
  --quiet     no progress bar]]

local rigpath, opt = nil, { progress = nil }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function value()
    i = i + 1
    if arg[i] == nil then io.stderr:write(("run.lua: %s needs a value\n%s\n"):format(a, usage)); os.exit(2) end
    return arg[i]
  end
  if a == "-h" or a == "--help" then print(usage); os.exit(0)
  elseif a == "--frames" then opt.frames = value()
  elseif a == "--out" then opt.out = value()
  elseif a == "--substeps" then opt.substeps = math.tointeger(tonumber(value()))
  elseif a == "--fps" then opt.fps = tonumber(value())
  elseif a == "--format" then opt.format = value()
  elseif a == "--preview" then opt.preview = value()
  elseif a == "--sheet" then opt.sheet = value()
  elseif a == "--sheet-size" then
    local w, h = value():match("^(%d+)x(%d+)$")
    if not w then io.stderr:write("run.lua: --sheet-size wants WxH, e.g. 240x180\n"); os.exit(2) end
    opt.sheet_width, opt.sheet_height = tonumber(w), tonumber(h)
  elseif a == "--quiet" then opt.progress = false
  elseif a:sub(1, 2) == "--" then io.stderr:write(("run.lua: unknown option %s\n%s\n"):format(a, usage)); os.exit(2)
  elseif rigpath then io.stderr:write("run.lua: one rig at a time\n"); os.exit(2)
  else rigpath = a end
  i = i + 1
end
if not rigpath then io.stderr:write(usage .. "\n"); os.exit(2) end

local tauform = require "tauform"
local ok, res, msg = pcall(tauform.run, rigpath, opt)
if not ok then io.stderr:write("run.lua: " .. tostring(res) .. "\n"); os.exit(1) end
if not res then io.stderr:write("run.lua: " .. tostring(msg) .. "\n"); os.exit(1) end
print(("%s: frames %d-%d, %.2f ms/frame, %.1f Newton iterations/frame%s"):format(rigpath, res.first, res.last,
      res.ms_per_frame, res.newton_per_frame, res.out and (" -> " .. res.out) or ""))
for _, png in ipairs({ opt.preview, opt.sheet }) do print("picture: " .. png) end
