-- SPDX-License-Identifier: MIT
-- Spring cloth from Lua and rigs: cloth_model = "springs" with its shear and bend_springs
-- stiffness, in the constructor and in a rig's material; a misspelt model, or a field of the
-- other model, is refused by name.
local tauform = require "tauform"

local function sheet(extra)
  local m = tauform.mesh.grid{ width = 1, height = 1, nx = 10, ny = 10, origin = { 0, 0, 1 },
                               u = { 1, 0, 0 }, v = { 0, 0, -1 } }
  local def = { vertices = m.vertices, triangles = m.triangles, density = 0.1, tau = 5 }
  for k, v in pairs(extra) do def[k] = v end
  return m, def
end

-- the middle of the bottom edge after hanging for 2 s, m
local function hang(extra)
  local m, def = sheet(extra)
  local sim <close> = tauform.cloth(def)
  sim:pin(m.groups.row0)
  for _ = 1, 48 do assert(sim:advance(1 / 24, 1)) end
  local x = sim:positions()
  return x[3 * (10 * 11 + 6)]
end

describe("spring cloth", function()
  it("hangs on its structural springs: the sheet lengthens rho g L^2 / (2 k)", function()
    local z = hang{ cloth_model = "springs", stretch = 50, shear = 0, bend_springs = 0 }
    local want = 0.1 * 9.81 / (2 * 50)
    assert.is_true(math.abs((-z) - want) < 0.01 * want, ("lengthened %.4f m, want %.4f"):format(-z, want))
    -- stiffer springs: less
    local z2 = hang{ cloth_model = "springs", stretch = 100, shear = 0, bend_springs = 0 }
    assert.is_true(math.abs((-z2) - want / 2) < 0.01 * want)
  end)

  it("takes its parameters as keyable sim parameters", function()
    local _, def = sheet{ cloth_model = "springs", shear = 50, bend_springs = 2 }
    local sim <close> = tauform.cloth(def)
    assert.are.equal(50, sim:get("shear"))
    sim:set{ shear = 80, bend_springs = 4 }
    assert.are.equal(80, sim:get("shear"))
    assert.are.equal(4, sim:get("bend_springs"))
    local ok, err = pcall(sim.set, sim, { poisson = 0.2 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("poisson", 1, true) and tostring(err):find("spring", 1, true), tostring(err))
  end)

  it("refuses a misspelt model and the other model's fields", function()
    local _, def = sheet{ cloth_model = "spring" }
    local ok, err = pcall(tauform.cloth, def)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("cloth_model", 1, true), tostring(err))
    _, def = sheet{ shear = 50 } -- a membrane has no shear springs
    ok, err = pcall(tauform.cloth, def)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("shear", 1, true), tostring(err))
    _, def = sheet{ cloth_model = "springs", bend = 1e-4 }
    ok, err = pcall(tauform.cloth, def)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bend", 1, true), tostring(err))
  end)

  it("comes from a rig's material, checked with the table's path", function()
    local function rig(material)
      return {
        mesh = tauform.mesh.grid{ nx = 8, ny = 8, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } },
        material = material, frames = { 1, 6 }, tau = 2,
        pins = { { group = "row0" } },
      }
    end
    local res = tauform.run(rig{ density = 0.1, cloth_model = "springs", stretch = 200, shear = 80, bend_springs = 5 },
                            { frames = "1-6", progress = false })
    assert.are.equal(6, res.frames)
    local ok, err = pcall(tauform.rig.load, rig{ cloth_model = "sprigs" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("material.cloth_model", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, rig{ cloth_model = "springs", sheer = 3 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("material.sheer", 1, true) and tostring(err):find("shear", 1, true), tostring(err))
  end)
end)

describe("spring cloth plasticity", function()
  -- a 1 m strip of structural springs held at 1.3x between its end columns for 1 s, then let go
  -- at its far end: its length after 3 s
  local function strip(opts, rig_plastic)
    opts = opts or {}
    local m = tauform.mesh.grid{ width = 1, height = 0.1, nx = 10, ny = 1 }
    local stretched = {}
    for i, v in ipairs(m.vertices) do stretched[i] = (i % 3 == 1) and 1.3 * v or v end
    local def = { vertices = m.vertices, triangles = m.triangles, cloth_model = "springs", stretch = 100, shear = 0,
                  bend_springs = 0, gravity = { 0, 0, 0 }, tau = 5 }
    for k, v in pairs(opts) do def[k] = v end
    local sim, rig
    if rig_plastic then
      rig = tauform.rig.load{ mesh = m, material = { cloth_model = "springs", stretch = 100, shear = 0, bend_springs = 0 },
                              gravity = { 0, 0, 0 }, tau = 5, plastic = rig_plastic, frames = { 1, 96 } }
      sim = rig:create()
    else
      sim = tauform.cloth(def)
    end
    sim:set_state(stretched)
    local ends = { 1, 11, 12, 22 }
    sim:pin(ends)
    for f = 1, 24 do
      if rig then rig:apply(sim, f) end
      assert(sim:advance(1 / 24, 1))
    end
    sim:pin({ 1, 12 })
    for f = 25, 96 do
      if rig then rig:apply(sim, f) end
      assert(sim:advance(1 / 24, 1))
    end
    local x = sim:positions()
    sim:close()
    return x[3 * 11 - 2] - x[1], x[3 * 6 - 2] - x[1]
  end

  it("keeps a stretch past the elastic limit, up to the plastic limit", function()
    local len = strip{ plastic_yield = 0.05, plastic_limit = 0.2 }
    assert.is_true(math.abs(len - 1.2) < 2e-3, ("length %.4f"):format(len))
    len = strip{ plastic_yield = 0.05, plastic_limit = 0.5 }
    assert.is_true(math.abs(len - 1.3 / 1.05) < 2e-3, ("length %.4f"):format(len))
    len = strip{ plastic_yield = 0.05 } -- no plastic limit: elastic
    assert.is_true(math.abs(len - 1.0) < 1e-3, ("length %.4f"):format(len))
  end)

  it("takes a rig's plastic table with per-group limits", function()
    -- only the far half (colN's neighbourhood by a select-free group: the last column) may yield
    local len, mid = strip(nil, { yield = 0.02, limit = { value = 0, groups = { colN = 0.5 } } })
    -- the springs touching the last column take the mean of their ends' limits (0.25 horizontal)
    assert.is_true(math.abs(len - (0.9 + 0.1 * 1.25)) < 2e-3, ("length %.4f"):format(len))
    assert.is_true(math.abs(mid - 0.5) < 1e-3)
  end)

  it("refuses bending plasticity on spring cloth and a misspelt rig field", function()
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    local ok, err = pcall(tauform.cloth, { vertices = m.vertices, triangles = m.triangles, cloth_model = "springs",
                                           bend_yield = 5 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bend_yield", 1, true) and tostring(err):find("membrane", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, { mesh = m, plastic = { limt = 0.2 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("plastic.limt", 1, true) and tostring(err):find("limit", 1, true), tostring(err))
  end)
end)

describe("membrane and flesh plasticity", function()
  it("keeps a membrane strip's stretch as the springs do", function()
    local m = tauform.mesh.grid{ width = 1, height = 0.1, nx = 10, ny = 1 }
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, stretch = 100, poisson = 0,
                                       gravity = { 0, 0, 0 }, tau = 5, plastic_yield = 0.05, plastic_limit = 0.2 }
    local stretched = {}
    for i, v in ipairs(m.vertices) do stretched[i] = (i % 3 == 1) and 1.3 * v or v end
    sim:set_state(stretched)
    sim:pin({ 1, 11, 12, 22 })
    for _ = 1, 24 do assert(sim:advance(1 / 24, 1)) end
    sim:pin({ 1, 12 })
    for _ = 1, 72 do assert(sim:advance(1 / 24, 1)) end
    local x = sim:positions()
    assert.is_true(math.abs(x[3 * 11 - 2] - x[1] - 1.2) < 2e-3, ("length %.4f"):format(x[3 * 11 - 2] - x[1]))
  end)

  -- a cube of side 0.1 m in n^3 cells, each cut into Kuhn's six tets
  local function cube_tets(n)
    local v, t = {}, {}
    local function id(i, j, k) return 1 + i + (n + 1) * (j + (n + 1) * k) end
    for k = 0, n do for j = 0, n do for i = 0, n do
      v[#v + 1], v[#v + 2], v[#v + 3] = 0.1 * i / n, 0.1 * j / n, 0.1 * k / n
    end end end
    local kuhn = { { 0, 1, 3, 7 }, { 0, 1, 5, 7 }, { 0, 2, 3, 7 }, { 0, 2, 6, 7 }, { 0, 4, 5, 7 }, { 0, 4, 6, 7 } }
    for k = 0, n - 1 do for j = 0, n - 1 do for i = 0, n - 1 do
      for _, c in ipairs(kuhn) do
        for _, b in ipairs(c) do t[#t + 1] = id(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)) end
      end
    end end end
    return { vertices = v, tets = t }
  end

  it("keeps a flesh rig's squash, and a per-vertex plastic limit", function()
    -- a 0.1 m cube squashed to 0.7 at constant volume, held there by every vertex for 0.5 s, let
    -- go: with the rig's plastic table it keeps 0.7 e^0.05 of its height; with the plastic limit
    -- mapped to 0 on its left half (sim:set with one value per vertex) that half springs back
    local function squash(plastic, map)
      local rig = tauform.rig.load{ flesh = { tets = cube_tets(4) }, gravity = { 0, 0, 0 }, tau = 0.05,
                                    plastic = plastic, frames = { 1, 60 } }
      local sim = rig:create()
      local x, all = sim:positions(), {}
      local a = 1 / math.sqrt(0.7)
      local lmap = {}
      for i = 1, #x // 3 do
        lmap[i] = x[3 * i - 2] < 0.05 - 1e-9 and 0 or 0.5
        x[3 * i - 2], x[3 * i - 1], x[3 * i] = a * x[3 * i - 2], a * x[3 * i - 1], 0.7 * x[3 * i]
        all[i] = i
      end
      sim:set_state(x)
      sim:pin(all)
      for f = 1, 60 do
        rig:apply(sim, f)
        if map then sim:set{ plastic_limit = lmap } end
        if f == 13 then sim:pin({}) end
        assert(sim:advance(1 / 24, 1))
      end
      local y = sim:positions()
      sim:close()
      return y
    end
    -- the top face's mean height above the bottom's, over the vertices with x (at rest) on one side
    local function height(y, left)
      local m = cube_tets(4).vertices
      local top, bottom, nt, nb = 0, 0, 0, 0
      for i = 1, #m // 3 do
        if (m[3 * i - 2] < 0.05 - 1e-9) == left then
          if m[3 * i] > 0.1 - 1e-9 then top, nt = top + y[3 * i], nt + 1 end
          if m[3 * i] < 1e-9 then bottom, nb = bottom + y[3 * i], nb + 1 end
        end
      end
      return top / nt - bottom / nb
    end
    local want = 0.1 * 0.7 * math.exp(0.05)
    local y = squash{ yield = 0.05, limit = 0.5 }
    assert.is_true(math.abs(height(y, true) / want - 1) < 0.01, ("height %.5f, want %.5f"):format(height(y, true), want))
    y = squash({ yield = 0.05, limit = 0.5 }, true)
    local l, r = height(y, true), height(y, false)
    print(("mapped plastic limit: left half %.5f m high (elastic), right half %.5f"):format(l, r))
    assert.is_true(l > 0.09 and r < 0.085, ("left %.5f, right %.5f"):format(l, r))
    local ok, err = pcall(tauform.rig.load, { flesh = { tets = cube_tets(1) }, plastic = { yeild = 0.05 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("plastic.yeild", 1, true) and tostring(err):find("yield", 1, true), tostring(err))
  end)
end)
