-- SPDX-License-Identifier: MIT
-- The Lua module: loads in stock lua5.4, each method's happy path, each misuse message, the
-- nil, message, code convention, and native memory released exactly once.
local tauform = require "tauform"

local function square(n)
  return tauform.mesh.grid{ width = 1, height = 1, nx = n or 4, ny = n or 4 }
end

local function sheet(opt)
  local m = square(opt and opt.n)
  local def = { vertices = m.vertices, triangles = m.triangles, tau = 0.5 }
  for k, v in pairs(opt or {}) do if k ~= "n" then def[k] = v end end
  return tauform.cloth(def), m
end

describe("module", function()
  it("loads in the stock interpreter from package.cpath alone", function()
    -- the directory of the module this process loaded, wherever the build tree is
    local file = package.searchpath("tauform", package.cpath)
    assert.is_truthy(file)
    local cpath = file:gsub("tauform%.so$", "?.so")
    local p = io.popen(("LUA_PATH=';;' LUA_CPATH='%s;;' lua5.4 -e 'local t = require \"tauform\"; io.write(t.version, \" \", type(t.cloth), \" \", type(t.key))' 2>&1"):format(cpath))
    local out = p:read("a")
    p:close()
    assert.are.equal(tauform.version .. " function function", out)
  end)

  it("has a version and the C core", function()
    assert.matches("^%d+%.%d+%.%d+$", tauform.version)
    assert.are.equal("function", type(tauform.core.cloth))
  end)
end)

describe("parameter table", function()
  it("is the library's: every name sim:set takes, with its unit, range and default", function()
    local tauform = require "tauform"
    local P = tauform.core.params
    assert.are.equal("stretch_stiffness", P.stretch.c_name)
    assert.are.equal("N/m", P.stretch.unit)
    assert.is_true(P.stretch.cloth and not P.stretch.flesh)
    assert.are.equal(0, P.kappa.lo); assert.are.equal(1, P.kappa.hi)
    assert.are.same({ 0, 0, -9.81 }, P.gravity.default)
    local grid = tauform.mesh.grid{ nx = 2, ny = 2 }
    local sim <close> = tauform.cloth(grid)
    local springs <close> = tauform.cloth{ vertices = grid.vertices, triangles = grid.triangles, cloth_model = "springs" }
    local only = { membrane = { poisson = true, bend = true, bend_poisson = true, bend_yield = true,
                                bend_plastic_limit = true },
                   springs = { shear = true, bend_springs = true } }
    local n = 0
    for name, p in pairs(P) do
      n = n + 1
      if p.cloth then
        -- every listed parameter is settable under its Lua name, at its default, on the cloth
        -- models it belongs to (and refused by name on the other)
        for model, s in pairs({ membrane = sim, springs = springs }) do
          local other = model == "membrane" and "springs" or "membrane"
          if only[other][name] then
            local ok, err = pcall(s.set, s, { [name] = p.default })
            assert.is_false(ok)
            assert.truthy(tostring(err):find(p.c_name, 1, true), tostring(err))
          else
            s:set{ [name] = p.default }
            assert.are.same(p.default, s:get(name))
          end
        end
      end
    end
    assert.are.equal(36, n)
  end)
end)

describe("sim", function()
  it("advances, reads back and reuses tables", function()
    local sim, m = sheet()
    sim:pin(m.groups.row0)
    assert.is_true(sim:advance(1 / 24, 2))
    local p = sim:positions()
    assert.are.equal(3 * 25, #p)
    local same = sim:positions(p)
    assert.are.equal(p, same) -- no new table per frame
    assert.are.equal(25, sim:vert_count())
    local x, y, z = sim:position(25)
    assert.are.equal(p[73], x); assert.are.equal(p[74], y); assert.are.equal(p[75], z)
    assert.are.equal(75, #sim:velocities())
    local nrm = sim:normals()
    assert.is_true(math.abs(nrm[1] ^ 2 + nrm[2] ^ 2 + nrm[3] ^ 2 - 1) < 1e-9)
    assert.are.equal(75, #sim:forces())
    assert.are.equal("number", type(sim:energy()))
    local st = sim:stats()
    assert.are.equal(2, st.steps)
    assert.is_true(st.newton_iterations >= 2)
    sim:close()
  end)

  it("sets parameters, maps and pins", function()
    local sim, m = sheet()
    assert.are.equal(sim, sim:set{ tau = 2, kappa = 0.3, gravity = { 0, 0, -1 }, stretch = 2000 })
    assert.are.equal(2, sim:get("tau"))
    assert.are.same({ 0, 0, -1 }, sim:get("gravity"))
    local map = {}
    for i = 1, 25 do map[i] = 1e-4 end
    sim:set{ bend = map }
    assert.is_true(math.abs(sim:get("bend") - 1e-4) < 1e-12)
    sim:pin(m.groups.row0, 1)
    local t = {}
    for k, i in ipairs(m.groups.row0) do
      t[k] = { m.vertices[3 * i - 2], m.vertices[3 * i - 1] + 0.1, m.vertices[3 * i] }
    end
    sim:pin_targets(t)
    assert.is_true(sim:advance(0.04, 4))
    local x = sim:positions()
    assert.is_true(math.abs(x[2] - 0.1) < 1e-9) -- vertex 1 followed its target
    sim:close()
  end)

  it("closes with <close>, close() and the collector, once each", function()
    collectgarbage()
    local base = tauform.native_bytes()
    do
      local sim <close> = sheet()
      assert.is_true(tauform.native_bytes() > base)
    end
    assert.are.equal(base, tauform.native_bytes())
    local s = sheet()
    s:close()
    s:close() -- twice is harmless
    assert.is_true(s:is_closed())
    assert.are.equal(base, tauform.native_bytes())
    do local lost = sheet() end
    collectgarbage(); collectgarbage()
    assert.are.equal(base, tauform.native_bytes())
    assert.matches("closed", tostring(s))
  end)
end)

describe("bending models", function()
  -- a grid bent onto a cylinder of curvature 1/m along its diagonal: the shell stores B c^2 A / 2
  -- in every direction, the hinge about 3x that along this diagonal (physics.md, Bending)
  local function diagonal_cylinder_energy(model)
    local g = tauform.mesh.grid{ nx = 16, ny = 16 }
    local sim <close> = tauform.cloth{ vertices = g.vertices, triangles = g.triangles, bend = 1e-3, stretch = 1e-9,
                                       gravity = { 0, 0, 0 }, bend_model = model, bend_poisson = 0.2 }
    local x, s = {}, math.sqrt(0.5)
    for i = 1, #g.vertices, 3 do
      local u, v = g.vertices[i] - 0.5, g.vertices[i + 1] - 0.5
      local a, b = s * (u + v), s * (v - u)
      local xa = math.sin(a)
      x[i], x[i + 1], x[i + 2] = s * (xa - b), s * (xa + b), 1 - math.cos(a)
    end
    sim:set_state(x)
    return sim:energy() / (0.5 * 1e-3)
  end

  it("shell is isotropic, hinge is not; bend_poisson is a cloth parameter", function()
    assert.is_true(math.abs(diagonal_cylinder_energy("shell") - 1) < 0.01)
    assert.is_true(diagonal_cylinder_energy("hinge") > 2.5)
    local sim <close> = tauform.cloth{ vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 3 } }
    assert.are.equal(0, sim:get("bend_poisson"))
    sim:set{ bend_poisson = 0.3 }
    assert.are.equal(0.3, sim:get("bend_poisson"))
  end)

  it("refuses an unknown model and a Poisson ratio out of range", function()
    local tri = { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 3 } }
    tri.bend_model = "plate"
    assert.has_error(function() tauform.cloth(tri) end,
                     "bad argument #1 to 'tauform.cloth' (bend_model: expected \"shell\" or \"hinge\", got string \"plate\")")
    tri.bend_model, tri.bend_poisson = "shell", 0.7
    local ok, err = pcall(tauform.cloth, tri)
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("bend_poisson", 1, true))
  end)
end)

describe("misuse", function()
  local sim, m
  before_each(function() sim, m = sheet() end)
  after_each(function() sim:close() end)

  local function raises(pattern, f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok)
    assert.matches(pattern, err)
  end

  it("names the argument and the method", function()
    raises("bad argument #1 to 'advance' %(dt must be positive%)", function() sim:advance(-1) end)
    raises("bad argument #2 to 'advance' %(substeps must be in 1..10000%)", function() sim:advance(0.1, 0) end)
    raises("bad argument #1 to 'set' %(unknown parameter 'foo'%)", function() sim:set{ foo = 1 } end)
    raises("bad argument #1 to 'set' %(tau must be > 0", function() sim:set{ tau = -1 } end)
    raises("bad argument #1 to 'set' %('gravity' must be {x, y, z}%)", function() sim:set{ gravity = 3 } end)
    raises("bad argument #1 to 'pin' %(indices: index 99 out of range 1..25%)", function() sim:pin{ 1, 99 } end)
    raises("bad argument #1 to 'pin' %(tf_sim_set_pins: vertex 1 is pinned twice %(indices%[2%]%)", function() sim:pin{ 1, 1 } end)
    raises("bad argument #1 to 'pin_targets' %(tf_sim_set_pin_targets: count is 1 but 0", function() sim:pin_targets{ { 0, 0, 0 } } end)
    raises("bad argument #1 to 'positions' %(table expected, got number%)", function() sim:positions(5) end)
    raises("bad argument #1 to 'get' %(unknown parameter 'x'%)", function() sim:get("x") end)
  end)

  it("rejects bad meshes with the library's message", function()
    raises("bad argument #1 to '[%w.]*cloth' %(field 'vertices' %(a table%) is required%)", tauform.cloth, {})
    raises("bad argument #1 to '[%w.]*cloth' %(triangles: index 7 out of range 1..3%)", tauform.cloth,
           { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 7 } })
    raises("degenerate", tauform.cloth, { vertices = { 0, 0, 0, 1, 0, 0, 2, 0, 0 }, triangles = { 1, 2, 3 } })
    -- the library's messages number vertices and triangles from 1, as Lua does
    local quad = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 }
    raises("triangle 2 repeats a vertex %(2 2 4%)", tauform.cloth, { vertices = quad, triangles = { 1, 2, 3, 2, 2, 4 } })
    raises("triangle 2 duplicates triangle 1", tauform.cloth, { vertices = quad, triangles = { 1, 2, 3, 1, 3, 2 } })
    quad[11] = 0 / 0
    raises("vertex 4 has a non%-finite position", tauform.cloth, { vertices = quad, triangles = { 1, 2, 3, 2, 4, 3 } })
    raises("tau must be > 0", tauform.cloth, { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 3 }, tau = 0 })
    raises("integrator", tauform.cloth, { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 3 }, integrator = "rk4" })
  end)

  it("refuses a closed simulation", function()
    sim:close()
    raises("calling 'advance' on bad self %(simulation is closed%)", function() sim:advance(0.1) end)
  end)

  it("leaves the simulation unchanged when a set fails", function()
    sim:set{ tau = 0.7 }
    assert.is_false(pcall(sim.set, sim, { tau = 2, kappa = 7 }))
    assert.are.equal(0.7, sim:get("tau"))
    assert.are.equal(0, sim:get("kappa"))
  end)
end)

describe("run-time failures", function()
  it("return nil, message, status name and keep the state", function()
    local m = square(6)
    local sim = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, integrator = "strain_rate", stretch = 1e6 }
    sim:pin(m.groups.row0)
    local x = sim:positions()
    x[3 * 30] = 0.2
    sim:set_state(x)
    local ok, msg, code
    local before
    for _ = 1, 200 do
      before = sim:positions()
      ok, msg, code = sim:advance(0.04)
      if not ok then break end
    end
    assert.is_nil(ok)
    assert.matches("rolled back", msg)
    assert.are.equal("TF_E_NOT_CONVERGED", code)
    assert.are.same(before, sim:positions())
    sim:close()
  end)
end)

describe("critical damping", function()
  it("reproduces Table 4.2 of the thesis", function()
    local phi, psi = tauform.critical_damping(3, 1, 1, 1)
    assert.is_true(math.abs(phi - 0.053134) < 1e-6 and math.abs(psi - 0.22508) < 1e-5)
    local p2, s2, note = tauform.critical_damping(1, 1, 1, 1)
    assert.are.equal(0, p2)
    assert.matches("lambda < 2 mu", note)
  end)
end)
