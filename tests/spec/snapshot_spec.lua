-- SPDX-License-Identifier: MIT
-- State snapshots from Lua (sim:save_state / sim:load_state) and the runner's checkpoints: a
-- string saved halfway and loaded into a new simulation continues bit for bit; a foreign or
-- damaged string is refused by name and changes nothing; a run killed mid-way (os.exit in the
-- middle of a frame loop, and examples/run.lua killed with SIGKILL) resumes from its checkpoint to
-- a cache equal, byte for byte, to an uninterrupted run's.
local tauform = require "tauform"

local tmpname = require("support").tmpname

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- a sheet hanging from its top row, the row swinging faster and faster
local function swing(m)
  local sim = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, tau = 0.2, density = 0.1 }
  local top = {}
  for i = 1, 9 do top[i] = i end
  sim:pin(top)
  return sim, top
end

local function frame(sim, m, top, f)
  local t = {}
  for k, i in ipairs(top) do
    t[3 * k - 2] = m.vertices[3 * i - 2] + 0.1 * math.sin(0.01 * f * f)
    t[3 * k - 1], t[3 * k] = m.vertices[3 * i - 1], m.vertices[3 * i]
  end
  sim:pin_targets(t)
  assert(sim:advance(1 / 24, 1))
end

describe("sim:save_state / sim:load_state", function()
  local m = tauform.mesh.grid{ width = 1, height = 1, nx = 8, ny = 8 }

  it("continues a run bit for bit in a new simulation", function()
    local a, top = swing(m)
    local b = swing(m)
    for f = 1, 20 do frame(a, m, top, f) end
    local s = a:save_state()
    assert.are.equal("string", type(s))
    assert.is_true(#s > 81 * 3 * 8)
    b:load_state(s)
    for f = 21, 40 do frame(a, m, top, f); frame(b, m, top, f) end
    assert.are.same(a:positions(), b:positions())
    assert.are.same(a:velocities(), b:velocities())
  end)

  it("refuses a foreign or damaged string by name and changes nothing", function()
    local a, top = swing(m)
    for f = 1, 5 do frame(a, m, top, f) end
    local s, x = a:save_state(), a:positions()
    local other = tauform.cloth{ vertices = tauform.mesh.grid{ width = 1, height = 1, nx = 4, ny = 4 }.vertices,
                                 triangles = tauform.mesh.grid{ width = 1, height = 1, nx = 4, ny = 4 }.triangles }
    local cases = {
      { s:sub(1, #s - 1), "truncated" },
      { s:sub(1, #s // 2 - 1) .. string.char((s:byte(#s // 2) + 1) % 256) .. s:sub(#s // 2 + 1), "damaged" },
      { ("x"):rep(#s), "not a tauform state snapshot" },
      { other:save_state(), "vertices" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(a.load_state, a, c[1])
      assert.is_false(ok)
      assert.matches(c[2], err, 1, true)
      assert.matches("load_state", err, 1, true)
      assert.are.same(x, a:positions())
    end
    assert.has_error(function() a:load_state(42) end)
  end)
end)

describe("checkpoints", function()
  local module_dir = package.searchpath("tauform", package.cpath):match("^(.*)/[^/]*$")
  -- a small rig with what a resume must carry: moving hard pins (their carrier's low-passed
  -- changes), soft pins, keyed tau and wind with turbulence (the clock), a poke that ends at the
  -- checkpoint (the loaded forces must be taken off) and a response
  local rig = tmpname(".lua")
  local f = assert(io.open(rig, "w"))
  f:write([[
local tauform = require "tauform"
local key = tauform.key
return {
  mesh = tauform.mesh.grid{ width = 1, height = 1, nx = 10, ny = 10, v = { 0, 0, -1 } },
  material = { density = 0.2, stretch = 2000 },
  fps = 24, frames = { 1, 120 }, substeps = 1,
  tau = key{ { 1, 0.2 }, { 60, 0.2 }, { 90, 0.5 } },
  wind = { velocity = { 1, 2, 0 }, turbulence = { amplitude = 0.5 } },
  pins = { { group = "row0", translate = function(fr) return { 0.2 * math.sin(0.002 * fr * fr), 0, 0 } end },
           { indices = { 60 }, weight = 0.5 } },
  pokes = { { at = { 0.5, 0, -0.5 }, radius = 0.3, force = { 0, 0.5, 0 }, frames = { 35, 41 } } },
  response = { levels = { function(fr) return fr < 30 and 50 or fr < 42 and 20 or 50 end },
               global = function(fr) return fr < 30 and 50 or fr < 42 and 80 or 50 end },
}
]])
  f:close()

  it("resume a run that died mid-way to the same cache, byte for byte", function()
    local full, cut = tmpname(".pc2"), tmpname(".pc2")
    assert.is_truthy(tauform.run(rig, { frames = "1-60", out = full, progress = false }))
    -- a process that dies at frame 43 (os.exit: no cleanup, like a crash) after checkpoint 41
    local code = ([[local t = require "tauform"
      t.run(%q, { frames = "1-60", out = %q, progress = false, checkpoint_every = 10,
                  on_frame = function(f) if f == 43 then os.exit(9) end end })]]):format(rig, cut)
    local ok = os.execute(("LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' lua5.4 -e %q")
                          :format(module_dir, code))
    assert.is_falsy(ok)
    assert.is_nil(read(cut))
    assert.is_truthy(read(cut .. ".checkpoint"))
    local res = assert(tauform.run(rig, { frames = "1-60", out = cut, progress = false, checkpoint_every = 10,
                                          resume = true }))
    assert.are.equal(60, res.frames)
    assert.are.equal(read(full), read(cut))
    assert.is_nil(read(cut .. ".checkpoint")) -- the finished run removed it
    -- what resume refuses: no checkpoint at all, and an MDD cache
    local nok, nerr = pcall(tauform.run, rig, { frames = "1-60", out = tmpname(".pc2"), progress = false,
                                               resume = true })
    assert.is_false(nok)
    assert.matches("resume: there is no checkpoint", nerr, 1, true)
    local sok, serr = pcall(tauform.run, rig, { frames = "1-60", out = tmpname(".mdd"), progress = false,
                                               checkpoint_every = 5 })
    assert.is_false(sok)
    assert.matches("PC2 or OBJ", serr, 1, true)
    for _, p in ipairs({ full, cut, (full:gsub("%.pc2$", ".obj")), (cut:gsub("%.pc2$", ".obj")) }) do os.remove(p) end
  end)

  it("resume examples/run.lua after kill -9", function()
    local full, cut = tmpname(".pc2"), tmpname(".pc2")
    local env = ("LUA_CPATH='%s/?.so;;'"):format(module_dir)
    assert.is_true(os.execute(("%s lua5.4 examples/run.lua %s --out %s --quiet"):format(env, rig, full)))
    -- started in the background, killed once it has cached 50 of its 120 frames (a checkpoint
    -- every 25 is on disk by then)
    local frame_bytes, header = 121 * 12, 32
    local script = ([[%s lua5.4 examples/run.lua %s --out %s --quiet --checkpoint-every 25 &
      pid=$!
      for i in $(seq 1 1200); do
        if [ $(stat -c %%s %s.partial 2>/dev/null || echo 0) -gt %d ]; then break; fi
        sleep 0.02
      done
      { kill -9 $pid; wait $pid; } 2>/dev/null; exit 0]]):format(env, rig, cut, cut, header + 50 * frame_bytes)
    assert.is_true(os.execute(script))
    assert.is_nil(read(cut))
    assert.is_truthy(read(cut .. ".checkpoint"))
    assert.is_true(os.execute(("%s lua5.4 examples/run.lua %s --out %s --quiet --checkpoint-every 25 --resume")
                              :format(env, rig, cut)))
    assert.are.equal(read(full), read(cut))
    for _, p in ipairs({ full, cut, (full:gsub("%.pc2$", ".obj")), (cut:gsub("%.pc2$", ".obj")) }) do os.remove(p) end
  end)
end)
