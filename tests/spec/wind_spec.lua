-- SPDX-License-Identifier: MIT
-- Wind from rigs: keyed wind reaches the simulation each frame, a smoothly keyed wind changes the
-- force smoothly (no jump in acceleration), bad wind values get clear errors, and the clock the
-- wind follows can be read and restored.
local tauform = require "tauform"

-- a free 0.5 m sheet facing the wind (no gravity); returns the per-frame accelerations of its
-- mean velocity along the wind
local function push(velocity)
  local m = tauform.mesh.grid{ width = 0.5, height = 0.5, nx = 6, ny = 6, u = { 0, 1, 0 }, v = { 0, 0, 1 } }
  local acc, prev = {}, nil
  tauform.run({ mesh = m, fps = 24, frames = { 1, 40 }, material = { density = 0.1, stretch = 1000 },
                tau = 1, gravity = { 0, 0, 0 }, wind = { velocity = velocity, lift = 0 } },
    { progress = false, on_frame = function(f, sim)
      local v, vx = sim:velocities(), 0
      for i = 1, #v, 3 do vx = vx + v[i] end
      vx = vx / (#v // 3)
      if prev then acc[#acc + 1] = (vx - prev) * 24 end
      prev = vx
    end })
  return acc
end

local function max_jump(acc)
  local j = 0
  for i = 2, #acc do j = math.max(j, math.abs(acc[i] - acc[i - 1])) end
  return j
end

describe("wind from rigs", function()
  it("is applied per frame from keys", function()
    local m = tauform.mesh.grid{ nx = 4, ny = 4 }
    local rig = tauform.rig.load{ mesh = m, frames = { 1, 10 },
      wind = { velocity = tauform.key{ { 1, { 0, 0, 0 }, interp = "linear" }, { 11, { 10, 0, 0 } } },
               turbulence = { amplitude = 2, seed = 3 } } }
    local sim <close> = rig:create()
    rig:apply(sim, 6)
    assert.are.same({ 5, 0, 0 }, sim:get("wind"))
    assert.are.equal(1.225, sim:get("air_density"))
    assert.are.equal(3, sim:get("turbulence_seed"))
  end)

  it("changes the force smoothly between smooth keys", function()
    local smooth = push(tauform.key{ { 1, { 0, 0, 0 } }, { 10, { 0, 0, 0 } }, { 30, { 5, 0, 0 } } })
    local step = push(tauform.key{ { 1, { 0, 0, 0 }, interp = "constant" }, { 20, { 5, 0, 0 } } })
    local peak = 0
    for _, a in ipairs(smooth) do peak = math.max(peak, math.abs(a)) end
    print(("\nwind push: peak acceleration %.3f m/s^2, largest change per frame %.3f (smooth key), %.3f (step key)")
          :format(peak, max_jump(smooth), max_jump(step)))
    assert.is_true(peak > 0.5)                     -- the wind does push
    assert.is_true(max_jump(smooth) < 0.5 * peak)   -- builds up over several frames
    assert.is_true(max_jump(step) > 10 * max_jump(smooth)) -- a step key jolts the cloth
  end)

  it("rejects bad wind values with a clear message", function()
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    assert.has_error(function() tauform.rig.load{ mesh = m, wind = 3 } end,
                     "rig: wind: expected a table {velocity, density, air_density, drag, ...}, got number 3")
    local rig = tauform.rig.load{ mesh = m, wind = { velocity = { 1, 0, 0 }, density = -1 } }
    local ok, err = pcall(rig.create, rig)
    assert.is_false(ok)
    assert.matches("air_density must be >= 0", err)
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles }
    ok, err = pcall(sim.set, sim, { wind = { 0, 0 / 0, 0 } })
    assert.is_false(ok)
    assert.matches("wind must be finite", err)
  end)

  it("keeps the clock a restored state needs", function()
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles }
    assert.are.equal(0, sim:get("time"))
    sim:advance(0.5, 2)
    assert.is_true(math.abs(sim:get("time") - 0.5) < 1e-15)
    sim:set{ time = 41.5 } -- a cached frame of a shot that starts at frame 1000
    assert.are.equal(41.5, sim:get("time"))
    assert.has_error(function() sim:set{ time = 1 / 0 } end)
  end)
end)
