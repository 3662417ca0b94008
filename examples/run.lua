-- SPDX-License-Identifier: MIT
-- Run any rig headlessly:
--   lua5.4 examples/run.lua examples/cape/cape.lua --frames 1-96 --out cape.pc2 [--substeps N]
--                          [--fps F] [--format pc2|mdd|obj] [--no-rest-obj] [--quiet]
--                          [--checkpoint-every N] [--resume]
-- Every option's value is checked here, and a bad one named ("--frames wants FIRST-LAST ...").
-- Prints each file written (the cache, the rest-mesh OBJ beside it, pictures) unless --quiet.
-- Finds the library next to this checkout (build/lua/tauform.so and lua/), the one LUA_CPATH
-- names, or an installed one.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/.."
dofile(root .. "/examples/checkout.lua")(root)

local usage = [[
usage: lua5.4 examples/run.lua RIG.lua [--frames FIRST-LAST] [--out FILE] [--substeps N]
                                       [--fps F] [--format pc2|mdd|obj] [--preview FILE.png]
                                       [--sheet FILE.png] [--sheet-size WxH] [--no-rest-obj] [--quiet]
                                       [--checkpoint-every N] [--resume] [--threads N]
  --frames    frame range FIRST-LAST (e.g. 1-96) or LAST, integers; default the rig's
  --out       cache to write: .pc2 (default format), .mdd, or .obj (one file per frame); written
              as FILE.partial and renamed when the run finishes (a failed run keeps the .partial)
  --substeps  solver steps per frame (an integer >= 1), default the rig's
  --threads   threads of the simulation (0: every core), default the rig's solver.threads (0);
              the cache is bitwise the same for every count
  --fps       frames per second (> 0), default the rig's (24)
  --format    pc2, mdd or obj, default from the --out extension
  --preview   PNG picture of the last frame
  --sheet     PNG contact sheet of six evenly spaced frames
  --sheet-size WxH  tile size of the contact sheet, default 480x360
  --no-rest-obj  no rest mesh: by default a PC2 or MDD cache gets FILE-without-extension.obj, the
              rest mesh in the cache's vertex order (import it, add a Mesh Cache modifier)
  --quiet     no progress bar, and no list of the files written
  --checkpoint-every N  every N frames a snapshot of the run goes to FILE.checkpoint (PC2 or OBJ)
  --resume    continue a run that was stopped or killed from its FILE.checkpoint, with the same
              rig and options: the cache ends bit for bit as an uninterrupted run's]]

local function fail(fmt, ...)
  io.stderr:write(("run.lua: " .. fmt .. "\n"):format(...))
  os.exit(2)
end

local rigpath, opt, quiet = nil, { progress = nil }, false
local i = 1
while i <= #arg do
  local a = arg[i]
  local function value()
    i = i + 1
    if arg[i] == nil then fail("%s needs a value\n%s", a, usage) end
    return arg[i]
  end
  local function integer(v, min)
    local n = v:match("^%s*%+?%d+%s*$") and math.tointeger(tonumber(v))
    if not n or n < min then fail("%s wants an integer >= %d, got '%s'", a, min, v) end
    return n
  end
  if a == "-h" or a == "--help" then print(usage); os.exit(0)
  elseif a == "--frames" then
    local v = value()
    local f1, f2 = v:match("^%s*([+-]?%d+)%s*[-:]%s*([+-]?%d+)%s*$")
    if not f1 and not v:match("^%s*[+-]?%d+%s*$") then
      fail("--frames wants FIRST-LAST (e.g. 1-96) or LAST, integers, got '%s'", v)
    end
    if f1 and tonumber(f2) < tonumber(f1) then fail("--frames %s: the first frame %s is after the last %s", v, f1, f2) end
    opt.frames = v
  elseif a == "--out" then opt.out = value()
  elseif a == "--substeps" then opt.substeps = integer(value(), 1)
  elseif a == "--threads" then opt.threads = integer(value(), 0)
  elseif a == "--fps" then
    local v = value()
    local n = tonumber(v)
    if not n or not v:match("^%s*[%d.]+[eE]?[+-]?%d*%s*$") or n ~= n or n <= 0 or n == math.huge then
      fail("--fps wants a positive number of frames per second, got '%s'", v)
    end
    opt.fps = n
  elseif a == "--format" then
    opt.format = value()
    if opt.format ~= "pc2" and opt.format ~= "mdd" and opt.format ~= "obj" then
      fail("--format wants pc2, mdd or obj, got '%s'", opt.format)
    end
  elseif a == "--preview" then opt.preview = value()
  elseif a == "--sheet" then opt.sheet = value()
  elseif a == "--sheet-size" then
    local v = value()
    local w, h = v:match("^(%d+)x(%d+)$")
    w, h = math.tointeger(tonumber(w)), math.tointeger(tonumber(h))
    if not w or w < 1 or h < 1 then fail("--sheet-size wants WxH in pixels, e.g. 240x180, got '%s'", v) end
    opt.sheet_width, opt.sheet_height = w, h
  elseif a == "--no-rest-obj" then opt.rest_obj = false
  elseif a == "--quiet" then opt.progress = false; quiet = true
  elseif a == "--checkpoint-every" then opt.checkpoint_every = integer(value(), 1)
  elseif a == "--resume" then opt.resume = true
  elseif a:sub(1, 1) == "-" and a ~= "-" then fail("unknown option %s\n%s", a, usage)
  elseif rigpath then fail("one rig at a time (got %s and %s)", rigpath, a)
  else rigpath = a end
  i = i + 1
end
if not rigpath then io.stderr:write(usage .. "\n"); os.exit(2) end
for _, k in ipairs({ "out", "preview", "sheet" }) do
  if opt[k] == "" then fail("--%s wants a file name", k) end
end

local tauform = require "tauform"
local ok, res, msg = pcall(tauform.run, rigpath, opt)
if not ok then io.stderr:write("run.lua: " .. tostring(res) .. "\n"); os.exit(1) end
if not res then io.stderr:write("run.lua: " .. tostring(msg) .. "\n"); os.exit(1) end
if not quiet then
  print(("%s: frames %d-%d, %.2f ms/frame, %.1f Newton iterations/frame"):format(rigpath, res.first, res.last,
        res.ms_per_frame, res.newton_per_frame))
  for _, f in ipairs(res.files) do print(("wrote %s: %s"):format(f.what, f.path)) end
  if res.rest_obj then
    print(("Blender: import %s (Forward Y, Up Z), add a Mesh Cache modifier: format %s, %s, Frame Start %d"):format(
          res.rest_obj, (opt.format or (res.out:match("%.mdd$") and "mdd") or "pc2"):upper(), res.out, res.first))
  end
end
