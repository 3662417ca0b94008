-- SPDX-License-Identifier: MIT
-- The response (Palazzi's multilevel force distribution) from Lua and rigs: the levels and their
-- sizes, external forces, percentages for the whole body and a group, errors that name what was
-- wrong, and a rig whose poke dents a hanging sheet locally and moves it as a whole globally.
local tauform = require "tauform"

-- a 2 m sheet hanging in the x-z plane, 8 x 8 cells (Palazzi's 9 x 9 mesh), its top row held
local function sheet()
  return tauform.mesh.grid{ width = 2, height = 2, nx = 8, ny = 8, u = { 1, 0, 0 }, v = { 0, 0, 1 } }
end

-- the rig: poke the bottom-right corner along y for frames 25..30, response `levels`
local function poke_rig(levels, extra)
  local spec = { mesh = sheet(), material = { density = 0.2, stretch = 500 }, tau = 0.2,
                 fps = 50, frames = { 1, 36 }, pins = { { group = "rowN" } },
                 pokes = { { at = { 2, 0, 0 }, force = { 0, 0.2, 0 }, frames = { 25, 30 } } },
                 response = { levels = levels } }
  for k, v in pairs(extra or {}) do spec[k] = v end
  return tauform.rig.load(spec)
end

-- run a rig frame by frame; the corner's displacement less the sheet's mean over the poke
local function corner_less_mean(rig)
  local sim = rig:create()
  local before
  for f = rig.frames[1] + 1, rig.frames[2] do
    rig:apply(sim, f)
    assert(sim:advance(1 / rig.fps, rig.substeps))
    if f == 24 then before = sim:positions() end
  end
  local x, n = sim:positions(), sim:vert_count()
  local m = { 0, 0, 0 }
  for i = 1, n do for c = 1, 3 do m[c] = m[c] + (x[3 * i - 3 + c] - before[3 * i - 3 + c]) / n end end
  local d = 0
  for c = 1, 3 do d = d + (x[9 - 3 + c] - before[9 - 3 + c] - m[c]) ^ 2 end
  sim:close()
  return math.sqrt(d)
end

describe("response", function()
  it("lists the levels in metres and shares forces by percentages", function()
    local m = sheet()
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, gravity = { 0, 0, 0 } }
    assert.are.same({ 0, 0.5, 1, 2 }, sim:response_levels())
    assert.are.same({ 100, 0, 0, 0 }, sim:response(1))
    sim:set_response({ 0, 0, 0, 100 })
    sim:set_response({ 50, 50 }, { 1, 2 })
    assert.are.same({ 50, 50, 0, 0 }, sim:response(2))
    assert.are.same({ 0, 0, 0, 100 }, sim:response(3))
    -- a force at one corner moves the whole free sheet (100 % rigid there: vertex 81): its middle
    -- goes along, the opposite corner back (the sheet turns: a rigid push with the torque)
    local f = {}
    for i = 1, 3 * 81 do f[i] = 0 end
    f[3 * 81 - 1] = 0.1
    sim:set_forces(f)
    assert(sim:advance(0.02, 1))
    local v = sim:velocities()
    assert.is_true(v[3 * 41 - 1] > 0 and v[2] < 0, "the middle moves along, the far corner back")
    sim:set_forces(nil)
  end)

  it("refuses bad percentages and forces by name", function()
    local m = sheet()
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles }
    local function err(fn, ...)
      local ok, e = pcall(fn, sim, ...)
      assert.is_false(ok)
      return tostring(e)
    end
    assert.truthy(err(sim.set_response, { 50, 40 }):find("sum to 90 %", 1, true))
    assert.truthy(err(sim.set_response, { 120, -20 }):find("level 1's percentage 120", 1, true))
    assert.truthy(err(sim.set_response, { 100, 0, 0, 0, 0 }):find("5 percentages, but this simulation's response has 4 levels", 1, true))
    assert.truthy(err(sim.set_response, { 100, "x" }):find("percent[2] is not a number", 1, true))
    assert.truthy(err(sim.set_response, { 100 }, { 82 }):find("vertices", 1, true))
    local f = {}
    for i = 1, 3 * 81 do f[i] = 0 end
    f[5] = 0 / 0
    assert.truthy(err(sim.set_forces, f):find("vertex 2's force", 1, true))
    assert.truthy(err(sim.set_forces, { 1, 2, 3 }):find("one force per vertex", 1, true))
    assert.are.same({ 100, 0, 0, 0 }, sim:response(1))
  end)

  it("dents the sheet locally and moves it as a whole globally, in a rig", function()
    local loc = corner_less_mean(poke_rig({ 100 }))
    local mid = corner_less_mean(poke_rig({ 50, 0, 0, 50 }))
    local glob = corner_less_mean(poke_rig({ 0, 0, 0, tauform.key{ { 1, 100 }, { 36, 100 } } }))
    -- global names the last level whatever the count: the same run
    local spec_global = tauform.rig.load{ mesh = sheet(), material = { density = 0.2, stretch = 500 }, tau = 0.2,
      fps = 50, frames = { 1, 36 }, pins = { { group = "rowN" } },
      pokes = { { at = { 2, 0, 0 }, force = { 0, 0.2, 0 }, frames = { 25, 30 } } }, response = { global = 100 } }
    assert.are.equal(glob, corner_less_mean(spec_global))
    assert.is_true(loc > mid and mid > glob, ("%g %g %g"):format(loc, mid, glob))
    assert.is_true(glob < 0.3 * loc, ("local %g, global %g"):format(loc, glob))
  end)

  it("names a rig's mistakes with their path", function()
    local function load_err(extra)
      local ok, e = pcall(poke_rig, { 100 }, extra)
      assert.is_false(ok)
      return tostring(e)
    end
    assert.truthy(load_err({ response = { level = { 100 } } }):find("response.level: unknown field (did you mean 'levels'?)", 1, true))
    assert.truthy(load_err({ pokes = { { at = { 0, 0, 0 }, forse = { 0, 1, 0 } } } }):find("pokes[1].forse: unknown field", 1, true))
    assert.truthy(load_err({ response = { levels = { 100 }, groups = { bely = { 100 } } } }):find("response.groups", 1, true))
    assert.truthy(load_err({ response = { levels = { 100, "a" } } }):find("response.levels[2]", 1, true))
    assert.truthy(load_err({ response = { groups = { row0 = { global = 50, lvls = {} } }, global = 1 } }):find("lvls: unknown field", 1, true))
    -- a sum that is not 100 is found at the frame it happens, named
    local rig = poke_rig({ 50, tauform.key{ { 1, 50 }, { 10, 40 } } })
    local sim = rig:create()
    local ok, e = pcall(function() for f = 2, 12 do rig:apply(sim, f); sim:advance(0.02, 1) end end)
    sim:close()
    assert.is_false(ok)
    assert.truthy(tostring(e):find("frame 2: response: ", 1, true) and tostring(e):find("sum to", 1, true), tostring(e))
  end)
end)
