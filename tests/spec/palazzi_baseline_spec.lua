-- SPDX-License-Identifier: MIT
-- The Palazzi (1993) displacement-constraints baseline (examples/palazzi/displacement.lua): its
-- constraint solver, the multilevel restriction and prolongation, and the behaviour the thesis's
-- figures show (a corner kick staying local or turning the mesh whole; a bounce off the floor).
-- Pure Lua: no C library. Run from the repository root.
local D = dofile("examples/palazzi/displacement.lua")

local SIZE, MASS = 2.0, 1.44

local function kick(step)
  return step == 1 and { { row = 0, col = 0, force = { 0, 2.0, 0 } } } or nil
end

local mean_point, radii, bend = D.mean_point, D.radii, D.shape_change

-- the kicked mesh after `steps` 0.2 s steps: its points and how far it bent on the way
local function kicked(pct, steps, opt)
  local o = { size = SIZE, mass = MASS, pct = pct }
  for k, v in pairs(opt or {}) do o[k] = v end
  local mesh = D.mesh(o)
  local p0 = D.points(mesh)
  local r0, most = radii(p0), 0
  for step = 1, steps do
    D.step(mesh, 0.2, { forces = kick(step) })
    most = math.max(most, bend(D.points(mesh), r0))
  end
  return mesh, p0, most
end

local corner_deviation = D.deviation

describe("palazzi displacement constraints", function()
  it("closes the endpoint gaps of a scrambled mesh below the error; segments stay rigid", function()
    local mesh = D.mesh{ size = SIZE, mass = MASS }
    local level = mesh.levels[1]
    local lengths = {}
    math.randomseed(7)
    for i, s in ipairs(level.segs) do
      lengths[i] = 2 * s.h
      s.gx, s.gy, s.gz = s.gx + 0.04 * (math.random() - 0.5), s.gy + 0.08 * (math.random() - 0.5),
                         s.gz + 0.04 * (math.random() - 0.5)
    end
    local tol = mesh.opt.error * mesh.L
    assert.is_true(D.max_gap(level) > 10 * tol)
    local its, gap, ok = D.solve(mesh, level)
    assert.is_true(ok)
    assert.is_true(its > 1)
    assert.is_true(gap <= tol)
    assert.is_true(D.max_gap(level) <= tol)
    for i, s in ipairs(level.segs) do assert.near(lengths[i], 2 * s.h, 1e-12) end
  end)

  it("gives every level the same mass and shares a point force so that nothing is lost", function()
    local pct = { 40, 30, 20, 10 }
    local mesh = D.mesh{ size = SIZE, mass = MASS, pct = pct }
    local levels = D.levels(mesh)
    local counts = { 144, 40, 12, 6 }        -- grid edges; the 2x2 level has two cross segments
    for k, l in ipairs(levels) do
      assert.equal(counts[k], l.segments)
      assert.near(MASS, l.mass, 1e-12)
    end
    local F0 = {}
    for i = 1, 81 do F0[i] = { 0, 0, 0 } end
    F0[1] = { 0, 3, 0 }                      -- corner (0,0): coincides on every level
    F0[2 * 9 + 5 + 1] = { 1, -2, 0.5 }       -- (2,5): between coarse points
    F0[7 * 9 + 3 + 1] = { 0, 4, -1 }         -- (7,3): between four coarse points
    local F = D.restrict_forces(mesh, F0)
    local total, want = { 0, 0, 0 }, { 1, 5, -0.5 }
    for k, list in ipairs(F) do
      local sum = { 0, 0, 0 }
      for _, f in ipairs(list) do
        for a = 1, 3 do sum[a] = sum[a] + f[a] end
      end
      for a = 1, 3 do
        assert.near(want[a], sum[a], 1e-12)   -- each level sees the whole force
        total[a] = total[a] + pct[k] / 100 * sum[a]
      end
    end
    for a = 1, 3 do assert.near(want[a], total[a], 1e-12) end
    -- (7,3) on level 1 lies between (3,1), (3,2), (4,1), (4,2): a quarter each
    assert.near(1, F[2][3 * 5 + 1 + 1][2], 1e-12)
    assert.near(1, F[2][4 * 5 + 2 + 1][2], 1e-12)
  end)

  it("keeps the mesh's shape when all the force is global, bends it when all is local", function()
    local _, _, global = kicked({ 0, 0, 0, 100 }, 10)
    local _, _, loc = kicked({ 100, 0, 0, 0 }, 10)
    assert.is_true(loc > 0.2)
    assert.is_true(global < 0.01)
    assert.is_true(global < 0.05 * loc)
  end)

  it("moves the kicked corner less apart from the mesh as the global share grows", function()
    local last = math.huge
    for g = 0, 100, 25 do
      local mesh, p0 = kicked({ 100 - g, 0, 0, g }, 10)
      local dev = corner_deviation(D.points(mesh), p0)
      assert.is_true(dev < last, ("%d%% global: %.3f after %.3f"):format(g, dev, last))
      last = dev
    end
    assert.is_true(last < 0.6)
  end)

  it("leaves a mesh untouched by levels that carry nothing (prolongation with offsets)", function()
    local a = kicked({ 100, 0, 0, 0 }, 5)
    local b = kicked({ 100, 0, 0, 0 }, 5, { multilevel = false })
    local pa, pb = D.points(a), D.points(b)
    for i = 1, #pa do assert.near(pb[i], pa[i], 1e-9) end
  end)

  it("lets interpolation wipe the local detail each step while offsets keep it", function()
    local _, _, offset = kicked({ 50, 0, 0, 50 }, 10)
    local m, p0 = kicked({ 50, 0, 0, 50 }, 10, { prolongation = "interpolate" })
    local now = bend(D.points(m), radii(p0))
    assert.is_true(now < 0.5 * offset)
  end)

  it("carries its centre of mass along a straight line in free flight", function()
    for _, pct in ipairs({ { 100, 0, 0, 0 }, { 50, 0, 0, 50 }, { 25, 25, 25, 25 } }) do
      local mesh = D.mesh{ size = SIZE, mass = MASS, pct = pct }
      local v = { 0.3, 0.1, -0.2 }
      D.set_motion(mesh, v, { 0.2, 0.1, 0.3 })
      local c0, p0 = D.momentum(mesh, 0)
      for step = 1, 30 do
        D.step(mesh, 0.1)
        local c = D.momentum(mesh, 0)
        for a = 1, 3 do assert.near(c0[a] + v[a] * step * 0.1, c[a], 2e-3) end
      end
      local _, p = D.momentum(mesh, 0)       -- level 0 keeps its share of the momentum
      for a = 1, 3 do assert.near(p0[a], p[a], 1e-6) end
    end
  end)

  it("bounces off the floor: falling turns to rising, the spin reverses, little sinking", function()
    local mesh = D.mesh{ size = SIZE, mass = MASS, pct = { 0, 0, 0, 100 }, height = 1.5,
                         gravity = 0.3, floor = 0, bounce = 0.1 }
    local w = 0.15 * math.sqrt(0.5)
    D.set_motion(mesh, { 0, 0, 0 }, { w, 0, -w })  -- corner (8,8) heads down first
    local heights, lowest, touched = {}, math.huge, nil
    for step = 1, 80 do
      local _, deepest = D.step(mesh, 0.1)
      if deepest > 0 and not touched then touched = step end
      local p = D.points(mesh)
      heights[step] = mean_point(p)[2]
      for i = 2, #p, 3 do lowest = math.min(lowest, p[i]) end
    end
    assert.is_truthy(touched)
    assert.is_true(heights[touched] < heights[touched - 1])   -- coming down
    assert.is_true(heights[80] > heights[79])                 -- going up again
    assert.is_true(heights[80] > 0.8)
    assert.is_true(lowest > -0.35)
    -- the tilt of the diagonal (0,0)->(8,8): clockwise before, counter-clockwise after
    local function tilt()
      local a, b = { D.point(mesh, 0, 0) }, { D.point(mesh, 8, 8) }
      return math.atan(b[2] - a[2], ((b[1] - a[1]) + (b[3] - a[3])) * math.sqrt(0.5))
    end
    local t0 = tilt()
    D.step(mesh, 0.1)
    assert.is_true(tilt() > t0)
  end)
end)
