-- SPDX-License-Identifier: MIT
-- The frame-range runner (tauform.run and examples/run.lua): options checked and named, NaN keys
-- refused at the key, caches written atomically (a failed run leaves "<out>.partial", never a
-- truncated <out>), the list of files it prints, the PC2 header's start frame, and the rest-mesh
-- OBJ beside the cache reading back as the simulation's rest positions and triangles.
local tauform = require "tauform"

local tmpname = require("support").tmpname

local function write(path, s)
  local f = assert(io.open(path, "w"))
  f:write(s)
  f:close()
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function grid_rig(extra)
  local m = tauform.mesh.grid{ width = 1, height = 1, nx = 6, ny = 6, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
  local r = { mesh = m, fps = 24, frames = { 1, 12 }, substeps = 1, material = { stretch = 2000 },
              tau = 0.5, pins = { { group = "row0" } } }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end

-- examples/run.lua with this build's module: stdout, stderr, exit code
local root = "."
local module_dir = package.searchpath("tauform", package.cpath):match("^(.*)/[^/]*$")
local function run_cli(args)
  local err = tmpname(".err")
  local cmd = ("LUA_CPATH='%s/?.so;;' lua5.4 %s/examples/run.lua %s 2>%s"):format(module_dir, root, args, err)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(err, "r")
  local e = f and f:read("a") or ""
  if f then f:close() end
  os.remove(err)
  return out, e, code
end

describe("runner options", function()
  it("refuses a NaN or infinite key by name, before any simulation", function()
    assert.has_error(function() tauform.key{ { 1, 0.5 }, { 60, 0 / 0 } } end, "keyframes: key 2: value is NaN")
    local path = tmpname(".lua")
    write(path, "local tauform = require 'tauform'\n" ..
                "return { mesh = tauform.mesh.grid{ nx = 2, ny = 2 }, tau = tauform.key{ { 1, 0.5 }, { 60, 0/0 } } }\n")
    local ok, err = pcall(tauform.run, path, { progress = false })
    os.remove(path)
    assert.is_false(ok)
    assert.matches("key 2: value is NaN", err, 1, true)
  end)

  it("names a bad option of tauform.run", function()
    local rig = grid_rig()
    local function err_of(opt)
      local ok, err = pcall(tauform.run, rig, opt)
      assert.is_false(ok)
      return err
    end
    assert.are.equal("run: frames: expected 'FIRST-LAST' (e.g. '1-96') or LAST, got '1..96'", err_of{ frames = "1..96" })
    assert.are.equal("run: frames: the first frame 9 is after the last 2", err_of{ frames = "9-2" })
    assert.are.equal("run: frames must be {first, last} integers", err_of{ frames = { 1, 2.5 } })
    assert.are.equal("run: frames: expected 'FIRST-LAST' (e.g. '1-96'), LAST or {first, last}, got 2.5", err_of{ frames = 2.5 })
    assert.are.equal(3, tauform.run(rig, { frames = 3.0, progress = false }).last) -- LAST, from the rig's first
    assert.are.equal("run: fps must be a positive finite number (got 0)", err_of{ fps = 0 })
    assert.are.equal("run: fps must be a positive finite number (got NaN)", err_of{ fps = 0 / 0 })
    assert.are.equal("run: substeps must be an integer >= 1 (got 1.5)", err_of{ substeps = 1.5 })
    assert.are.equal("run: format must be 'pc2', 'mdd' or 'obj' (got 'fbx')", err_of{ format = "fbx" })
    assert.are.equal("run: sheet_frames must be an integer >= 1 (got 0)", err_of{ sheet_frames = 0 })
    assert.are.equal("run: out must be a file path (got 3)", err_of{ out = 3 })
  end)

  it("refuses an unknown option, naming the one it meant", function()
    local ok, err = pcall(tauform.run, "./examples/cape/cape.lua", { frame = "1-2", progress = false })
    assert.is_false(ok)
    assert.are.equal("run: unknown option 'frame' (did you mean 'frames'?)", err)
  end)

  it("names every bad command-line argument of examples/run.lua", function()
    local rig = root .. "/examples/cape/cape.lua"
    local cases = {
      { "--frames 1..96", "run.lua: --frames wants FIRST-LAST (e.g. 1-96) or LAST, integers, got '1..96'" },
      { "--frames 9-2", "run.lua: --frames 9-2: the first frame 9 is after the last 2" },
      { "--fps 0", "run.lua: --fps wants a positive number of frames per second, got '0'" },
      { "--fps nan", "run.lua: --fps wants a positive number of frames per second, got 'nan'" },
      { "--substeps 1.5", "run.lua: --substeps wants an integer >= 1, got '1.5'" },
      { "--format fbx", "run.lua: --format wants pc2, mdd or obj, got 'fbx'" },
      { "--sheet-size 0x3", "run.lua: --sheet-size wants WxH in pixels, e.g. 240x180, got '0x3'" },
      { "--frames", "run.lua: --frames needs a value" },
      { "--wobble", "run.lua: unknown option --wobble" },
    }
    for _, c in ipairs(cases) do
      local out, err, code = run_cli(rig .. " " .. c[1])
      assert.are.equal(2, code, c[1])
      assert.are.equal("", out)
      assert.are.equal(c[2], err:match("^[^\n]*"), c[1])
    end
  end)
end)

describe("runner caches", function()
  it("a rig that errors at frame 10 leaves no truncated file under the final name", function()
    local out = tmpname(".pc2")
    local function boom(f) if f == 10 then error("boom at frame 10", 0) end end
    local ok, err = pcall(tauform.run, grid_rig{ frame = boom }, { out = out, progress = false })
    assert.is_false(ok)
    assert.are.equal(("boom at frame 10; %s was not written; %s.partial holds the 9 frames before the failure (frames 1-9), a valid PC2 cache"):format(out, out), err)
    assert.is_false(exists(out))
    assert.is_false(exists(out:gsub("%.pc2$", ".obj"))) -- nor a rest mesh for a cache that is not there
    local pc2 = tauform.cache.read_pc2(out .. ".partial")
    assert.are.equal(9, #pc2.frames)
    -- a complete cache already under the name is left as it was, never truncated
    assert.is_truthy(tauform.run(grid_rig(), { frames = "1-3", out = out, progress = false }))
    assert.is_false(exists(out .. ".partial")) -- renamed into place
    ok = pcall(tauform.run, grid_rig{ frame = boom }, { out = out, progress = false })
    assert.is_false(ok)
    assert.are.equal(3, #tauform.cache.read_pc2(out).frames)
    assert.are.equal(9, #tauform.cache.read_pc2(out .. ".partial").frames)
    os.remove(out); os.remove(out .. ".partial"); os.remove(out:gsub("%.pc2$", ".obj"))
  end)

  it("an MDD cache is atomic too", function()
    local out = tmpname(".mdd")
    local ok, err = pcall(tauform.run, grid_rig{ frame = function(f) if f == 4 then error("stop", 0) end end },
                          { out = out, progress = false })
    assert.is_false(ok)
    assert.matches("holds the 3 frames before the failure (frames 1-3), a valid MDD cache", err, 1, true)
    assert.is_false(exists(out))
    local f = assert(io.open(out .. ".partial", "rb"))
    local frames, points = string.unpack(">i4i4", f:read("a"))
    f:close()
    assert.are.equal(3, frames); assert.are.equal(49, points)
    os.remove(out .. ".partial")
  end)

  it("writes the PC2 header's start frame as the rig's first frame, one sample per frame", function()
    local out = tmpname(".pc2")
    local res = tauform.run(grid_rig{ frames = { 5, 8 } }, { out = out, progress = false })
    local pc2 = tauform.cache.read_pc2(out)
    assert.are.equal(5, pc2.start)
    assert.are.equal(1, pc2.rate)
    assert.are.equal(4, #pc2.frames)
    assert.are.equal(5, res.first)
    os.remove(out); os.remove(res.rest_obj)
  end)

  it("writes the rest mesh beside the cache, reading back as the sim's rest positions and triangles", function()
    local out = tmpname(".pc2")
    -- the pins start moved at the first frame, so the first cached frame is not the rest pose
    local rig = grid_rig{ pins = { { group = "row0", translate = { 0.1, 0, 0.2 } } } }
    local res = tauform.run(rig, { frames = "1-4", out = out, progress = false })
    assert.are.equal(out:gsub("%.pc2$", ".obj"), res.rest_obj)
    local m = tauform.mesh.load_obj(res.rest_obj)
    assert.are.same(rig.mesh.vertices, m.vertices) -- exactly: written with 17 digits
    assert.are.same(rig.mesh.triangles, m.triangles)
    local pc2 = tauform.cache.read_pc2(out)
    assert.are.equal(#m.vertices // 3, pc2.points)
    assert.is_true(math.abs(pc2.frames[1][1] - (m.vertices[1] + 0.1)) < 1e-6) -- the cache's first frame: pinned, moved
    assert.are.same({ { path = out, what = "cache (PC2, frames 1-4 at 24 fps, 49 points)" },
                      { path = res.rest_obj, what = "rest mesh (OBJ, the cache's vertex order)" } }, res.files)
    os.remove(out); os.remove(res.rest_obj)
    -- a path of one's own, or none
    local rest = tmpname(".obj")
    res = tauform.run(grid_rig(), { frames = "1-2", out = out, rest_obj = rest, progress = false })
    assert.are.equal(rest, res.rest_obj)
    assert.is_true(exists(rest))
    os.remove(rest)
    res = tauform.run(grid_rig(), { frames = "1-2", out = out, rest_obj = false, progress = false })
    assert.is_nil(res.rest_obj)
    assert.is_false(exists(out:gsub("%.pc2$", ".obj")))
    os.remove(out)
  end)

  it("a flesh rig's rest mesh is its skin at rest, in the cache's order", function()
    local out = tmpname(".pc2")
    local skin = tauform.mesh.ellipsoid{ radii = { 0.1, 0.1, 0.1 }, center = { 0, 0, 1 }, rings = 6, segments = 12 }
    local rig = { flesh = { surface = skin, cells = 3 }, frames = { 1, 3 }, material = { youngs = 3e4, poisson = 0.4 },
                  tau = 0.1, pins = { { select = function(_, _, z) return z > 1.05 end } } }
    local res = tauform.run(rig, { out = out, progress = false })
    local m = tauform.mesh.load_obj(res.rest_obj)
    assert.are.same(skin.vertices, m.vertices)
    assert.are.same(skin.triangles, m.triangles)
    assert.are.equal(#skin.vertices // 3, tauform.cache.read_pc2(out).points)
    os.remove(out); os.remove(res.rest_obj)
  end)

  it("examples/run.lua prints every file it wrote, and nothing with --quiet", function()
    local out = tmpname(".pc2")
    local sheet = tmpname(".png")
    local rig = root .. "/examples/cape/cape.lua"
    local stdout, err, code = run_cli(("%s --frames 1-3 --out %s --sheet %s --sheet-size 60x45"):format(rig, out, sheet))
    assert.are.equal(0, code, err)
    local obj = out:gsub("%.pc2$", ".obj")
    local want = {
      "wrote cache (PC2, frames 1-3 at 24 fps, 850 points): " .. out,
      "wrote rest mesh (OBJ, the cache's vertex order): " .. obj,
      "wrote contact sheet of 3 frames (PNG): " .. sheet,
    }
    for _, line in ipairs(want) do assert.is_truthy(stdout:find(line, 1, true), stdout) end
    assert.is_truthy(stdout:find("Mesh Cache modifier: format PC2, " .. out .. ", Frame Start 1", 1, true), stdout)
    for _, p in ipairs({ out, obj, sheet }) do assert.is_true(exists(p), p); os.remove(p) end
    stdout, err, code = run_cli(("%s --frames 1-2 --out %s --quiet"):format(rig, out))
    assert.are.equal(0, code, err)
    assert.are.equal("", stdout)
    assert.are.equal("", err)
    os.remove(out); os.remove(obj)
  end)
end)
