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

  it("refuses plasticity on a membrane and a misspelt rig field", function()
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    local ok, err = pcall(tauform.cloth, { vertices = m.vertices, triangles = m.triangles, plastic_limit = 0.2 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("plastic_limit", 1, true) and tostring(err):find("spring", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, { mesh = m, plastic = { limt = 0.2 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("plastic.limt", 1, true) and tostring(err):find("limit", 1, true), tostring(err))
  end)
end)
