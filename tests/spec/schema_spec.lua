-- SPDX-License-Identifier: MIT
-- The schema checks of every nested table (issue 14, item 7): a misspelled field anywhere in a
-- rig, a constructor or an option table is an error naming its path and the closest valid name,
-- a wrong type names what is expected, and correct tables run as before without per-frame cost.
local tauform = require "tauform"
local schema = tauform.schema

local root = debug.getinfo(1, "S").source:match("^@(.*)/tests/spec/[^/]*$") or "."

local function grid() return tauform.mesh.grid{ nx = 4, ny = 4, origin = { 0, 0, 1 }, v = { 0, 0, -1 } } end

local function rig(extra)
  local r = { mesh = grid(), frames = { 1, 3 }, material = { stretch = 2000 }, pins = { { group = "row0" } } }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end

local function load_error(spec)
  local ok, err = pcall(tauform.rig.load, spec, { name = "rig.lua" })
  assert.is_false(ok)
  return err
end

describe("schema", function()
  it("names the path and the closest field of a misspelled rig field", function()
    assert.are.equal("rig.lua: material.strech: unknown field (did you mean 'stretch'?)",
                     load_error(rig{ material = { strech = 4000 } }))
    assert.are.equal("rig.lua: pins[1].weigth: unknown field (did you mean 'weight'?)",
                     load_error(rig{ pins = { { group = "row0", weigth = 0.5 } } }))
    assert.are.equal("rig.lua: pins[2].transalte: unknown field (did you mean 'translate'?)",
                     load_error(rig{ pins = { { group = "row0" }, { indices = { 25 }, transalte = { 0, 1, 0 } } } }))
    assert.are.equal("rig.lua: wind.velocty: unknown field (did you mean 'velocity'?)",
                     load_error(rig{ wind = { velocty = { 5, 0, 0 } } }))
    assert.are.equal("rig.lua: wind.turbulance: unknown field (did you mean 'turbulence'?)",
                     load_error(rig{ wind = { velocity = { 5, 0, 0 }, turbulance = { amplitude = 1 } } }))
    assert.are.equal("rig.lua: wind.turbulence.amplitud: unknown field (did you mean 'amplitude'?)",
                     load_error(rig{ wind = { turbulence = { amplitud = 1 } } }))
    assert.are.equal("rig.lua: bend.grups: unknown field (did you mean 'groups'?)",
                     load_error(rig{ bend = { value = 1e-5, grups = { row0 = 1e-3 } } }))
    assert.are.equal("rig.lua: pins[1].rotate.angel: unknown field (did you mean 'angle'?)",
                     load_error(rig{ pins = { { group = "row0", rotate = { axis = { 0, 0, 1 }, angel = 10 } } } }))
    assert.are.equal("rig.lua: kapa: unknown field (did you mean 'kappa'?)", load_error(rig{ kapa = 0.5 }))
    assert.are.equal("rig.lua: stretch: unknown field here (it belongs in material.stretch)",
                     load_error(rig{ stretch = 4000 }))
    assert.are.equal("rig.lua: material.stretch_stiffness: unknown field (did you mean 'stretch'? the C name "
                     .. "stretch_stiffness is 'stretch' in Lua)", load_error(rig{ material = { stretch_stiffness = 1 } }))
  end)

  it("names the expected type", function()
    assert.are.equal('rig.lua: solver: expected a table {max_newton, max_cg, tolerance, abs_tolerance, ...}, got string "x"',
                     load_error(rig{ solver = "x" }))
    assert.are.equal("rig.lua: solver.max_newton: expected a whole number, got number 2.5",
                     load_error(rig{ solver = { max_newton = 2.5 } }))
    assert.are.equal('rig.lua: frames: expected {first, last} (two frame numbers), got string "1-96"',
                     load_error(rig{ frames = "1-96" }))
    assert.are.equal("rig.lua: frames: expected {first, last} (two frame numbers), got {96, 1}",
                     load_error(rig{ frames = { 96, 1 } }))
    assert.are.equal("rig.lua: pins[1].translate: a keyframe curve of numbers where {x, y, z} values are expected",
                     load_error(rig{ pins = { { group = "row0", translate = tauform.key{ { 1, 0 }, { 2, 1 } } } } }))
    assert.are.equal("rig.lua: gravity: expected {x, y, z}, a keyframe curve or a function(frame), got number -9.81",
                     load_error(rig{ gravity = -9.81 }))
    assert.are.equal("rig.lua: pins[1].weight: must be a number in (0, 1], got 2",
                     load_error(rig{ pins = { { group = "row0", weight = 2 } } }))
  end)

  it("names the rig file for substeps = 0 before anything runs", function()
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write("return { mesh = require('tauform').mesh.grid{ nx = 2, ny = 2 }, substeps = 0 }\n")
    f:close()
    local ok, err = pcall(tauform.run, path, { progress = false })
    os.remove(path)
    assert.is_false(ok)
    assert.are.equal(path .. ": substeps: must be a whole number >= 1, got 0", err)
  end)

  it("checks a keyed function's result every frame", function()
    local r = tauform.rig.load(rig{ tau = function(f) return f < 3 and 0.5 or "slow" end }, { name = "rig.lua" })
    local sim <close> = r:create()
    r:apply(sim, 2)
    local ok, err = pcall(r.apply, r, sim, 3)
    assert.is_false(ok)
    assert.are.equal('rig.lua: frame 3: tau: the function returned string "slow", expected a number', err)
  end)

  it("checks the constructors, pointing C names at the Lua names", function()
    local m = grid()
    local ok, err = pcall(tauform.cloth, { vertices = m.vertices, triangles = m.triangles, stretch_stiffness = 7777 })
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'tauform.cloth' (stretch_stiffness: unknown field (did you mean 'stretch'? "
                   .. "the C name stretch_stiffness is 'stretch' in Lua))", err, 1, true)
    ok, err = pcall(tauform.cloth, { vertices = m.vertices, triangles = m.triangles, solver = { max_newtn = 3 } })
    assert.matches("solver.max_newtn: unknown field (did you mean 'max_newton'?)", err, 1, true)
    ok, err = pcall(tauform.flesh, { surface = tauform.mesh.ellipsoid{}, youngs_modulus = 1e4 })
    assert.matches("youngs_modulus: unknown field (did you mean 'youngs'? the C name youngs_modulus is 'youngs' in Lua)",
                   err, 1, true)
    ok, err = pcall(tauform.flesh, { surface = tauform.mesh.ellipsoid{}, materials = { { yougs = 1e4 } } })
    assert.matches("materials[1].yougs: unknown field (did you mean 'youngs'?)", err, 1, true)
    -- the Lua name works, and so does a parameter the C constructor does not read itself
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, stretch = 7777, wind = { 1, 2, 3 } }
    assert.are.equal(7777, sim:get("stretch"))
    assert.are.same({ 1, 2, 3 }, sim:get("wind"))
  end)

  it("checks the method and mesh helper option tables", function()
    local sim <close> = tauform.cloth(grid())
    local ok, err = pcall(function() sim:render_png("/tmp/never.png", { widht = 10 }) end)
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'render_png' (widht: unknown field (did you mean 'width'?))", err, 1, true)
    ok, err = pcall(function() tauform.mesh.grid{ nx = 2, nz = 3 } end)
    assert.matches("bad argument #1 to 'tauform.mesh.grid' (nz: unknown field (did you mean 'nx'?))", err, 1, true)
    ok, err = pcall(function() tauform.mesh.ellipsoid{ radius = 1 } end)
    assert.matches("radius: unknown field (did you mean 'radii'?)", err, 1, true)
  end)

  it("accepts the wind's air_density as the parameter name of wind.density, but not both", function()
    local r = tauform.rig.load(rig{ wind = { velocity = { 1, 0, 0 }, air_density = 1.0 } })
    local sim <close> = r:create()
    assert.are.equal(1.0, sim:get("air_density"))
    assert.are.equal("rig.lua: wind.air_density: give air_density or density, not both (the same field)",
                     load_error(rig{ wind = { density = 1, air_density = 1 } }))
  end)

  it("runs every example rig", function()
    for _, name in ipairs({ "cape/cape", "flag/flag", "flesh/belly", "young/example1", "young/example2" }) do
      local r = tauform.rig.load(root .. "/examples/" .. name .. ".lua")
      local sim <close> = r:create()
      r:apply(sim, r.frames[1] + 1)
      assert.is_true(sim:advance(1 / r.fps, r.substeps))
    end
  end)

  it("checks a static table once, not every frame, and quickly", function()
    local calls, validate = 0, schema.validate
    schema.validate = function(...) calls = calls + 1; return validate(...) end
    local loaded, applied
    local ok, err = pcall(function()
      local r = tauform.rig.load(root .. "/examples/cape/cape.lua")
      local sim <close> = r:create()
      loaded = calls
      for f = 2, 6 do r:apply(sim, f) end
      applied = calls - loaded
    end)
    schema.validate = validate
    assert.is_true(ok, err)
    assert.are.equal(2, loaded) -- the cape's mesh.grid options and the rig
    assert.are.equal(0, applied)
    -- the whole cape rig (a 25 x 34 grid) checked 200 times: well under a millisecond each
    local spec = dofile(root .. "/examples/cape/cape.lua")
    local t0 = os.clock()
    for _ = 1, 200 do assert.is_nil(schema.validate("rig", spec)) end
    assert.is_true((os.clock() - t0) / 200 < 1e-3)
  end)

  it("suggests by edit distance, transpositions counting one", function()
    assert.are.equal(1, schema.distance("weigth", "weight"))
    assert.are.equal("translate", schema.suggest("transalte", { "targets", "translate", "rotate" }))
    assert.is_nil(schema.suggest("zzz", { "tau", "kappa" }))
  end)
end)
