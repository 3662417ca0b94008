-- SPDX-License-Identifier: MIT
-- plugin/docs/reference.md is generated from lua/tauform/schema.lua: the file must be what the
-- generator produces now, every parameter of the library's table must appear in it, and every
-- field the schema lists must be accepted by the real function it documents.
local tauform = require "tauform"
local schema = tauform.schema

local root = debug.getinfo(1, "S").source:match("^@(.*)/tests/spec/[^/]*$") or "."

local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- the schema's field names of a table, sorted
local function fields(name)
  local out = {}
  for _, f in ipairs(schema.tables[name]) do out[#out + 1] = f[1] end
  table.sort(out)
  return out
end

-- the union of the keys of several tables
local function union(...)
  local u = {}
  for _, t in ipairs({ ... }) do for k in pairs(t) do u[k] = true end end
  return keys(u)
end

describe("reference", function()
  it("is what schema.markdown() produces (regenerate: see the top of plugin/docs/reference.md)", function()
    local f = assert(io.open(root .. "/plugin/docs/reference.md", "r"))
    local text = f:read("a")
    f:close()
    assert.are.equal(schema.markdown(), text)
  end)

  it("lists every parameter of the library's table", function()
    local md = schema.markdown()
    for name, p in pairs(tauform.core.params) do
      assert.is_truthy(md:find("| `" .. name .. "` | `" .. p.c_name .. "` |", 1, true), name)
    end
  end)

  it("lists every table the checks use, and each in the document", function()
    local md = schema.markdown()
    for name in pairs(schema.tables) do
      assert.is_truthy(md:find("\n### " .. name .. "\n", 1, true), name)
    end
  end)
end)

describe("every documented field is accepted", function()
  local P = tauform.core.params
  local grid = tauform.mesh.grid{ nx = 2, ny = 2 }

  it("by tauform.cloth", function()
    local def = { vertices = grid.vertices, triangles = grid.triangles, groups = grid.groups, density = 0.2,
                  integrator = "tau", bend_model = "hinge", solver = { max_newton = 5, max_cg = 50, tolerance = 1e-3, abs_tolerance = 1e-8, threads = 2 } }
    -- the spring model's own parameters go to a spring cloth (c below): a membrane refuses them
    -- (and the shell's plasticity to a cloth with the shell bending, a below: def has the hinge)
    local elsewhere = { shear = true, bend_springs = true, plastic_yield = true, plastic_limit = true,
                        bend_yield = true, bend_plastic_limit = true, plastic_time = true }
    for name, p in pairs(P) do if p.cloth and not elsewhere[name] then def[name] = p.default end end
    local a = { vertices = grid.vertices, triangles = grid.triangles, total_mass = 1, bend_yield = 5,
                bend_plastic_limit = 20, plastic_time = 0.1 }
    local b = { vertices = grid.vertices, triangles = grid.triangles, masses = {} }
    for i = 1, #grid.vertices // 3 do b.masses[i] = 0.01 end
    local c = { vertices = grid.vertices, triangles = grid.triangles, cloth_model = "springs", shear = 50, bend_springs = 3,
                plastic_yield = 0.05, plastic_limit = 0.2, plastic_time = 0.5 }
    assert.are.same(fields("tauform.cloth"), union(def, a, b, c))
    for _, d in ipairs({ def, a, b, c }) do tauform.cloth(d):close() end
    assert.are.same(fields("solver"), keys(def.solver))
    -- a field only the Lua layer sets reaches the simulation
    local sim <close> = tauform.cloth{ vertices = grid.vertices, triangles = grid.triangles, wind = { 3, 0, 0 }, drag = 1 }
    assert.are.same({ 3, 0, 0 }, sim:get("wind"))
  end)

  it("by tauform.flesh", function()
    local cube = assert(tauform.tet_load(root .. "/examples/bench/meshes/cube3.node"))
    local tm = {}
    for t = 1, #cube.tets // 4 do tm[t] = t % 2 end
    local def = { vertices = cube.vertices, tets = cube.tets, regions = cube.regions, region_names = cube.region_names,
                  density = 900, materials = { { youngs = 1e5, poisson = 0.4, density = 1100 } }, tet_materials = tm,
                  surface = tauform.mesh.ellipsoid{ radii = { 0.2, 0.2, 0.2 }, center = { 0, 0, 0.5 }, rings = 4, segments = 6 },
                  solver = { max_newton = 5 } }
    for name, p in pairs(P) do if p.flesh then def[name] = p.default end end
    local filled = { surface = def.surface, cells = 3, element = "linear" }
    assert.are.same(fields("tauform.flesh"), union(def, filled))
    assert.are.same(fields("flesh.materials[i]"), keys(def.materials[1]))
    tauform.flesh(def):close()
    tauform.flesh(filled):close()
  end)

  it("by the render methods", function()
    local sim <close> = tauform.cloth(grid)
    local opt = { width = 40, height = 30, view = { 1, -1, 1 }, eye = { 2, -2, 2 }, target = { 0.5, 0.5, 0 },
                  up = { 0, 0, 1 }, fov = 40, wireframe = false, pins = false, columns = 2 }
    assert.are.same(fields("render options"), keys(opt))
    local path = os.tmpname()
    assert.is_true(sim:render_png(path, opt))
    assert.is_true(sim:render_sheet(path, { sim:positions(), sim:positions() }, opt))
    os.remove(path)
  end)

  it("by sim:collider and collider:set", function()
    local sim <close> = tauform.cloth(grid)
    local plate = tauform.mesh.grid{ nx = 1, ny = 1, origin = { 0, 0, -1 } }
    local def = { vertices = plate.vertices, triangles = plate.triangles, groups = plate.groups, thickness = 0.002,
                  friction = 0.4, one_sided = false }
    assert.are.same(fields("sim:collider"), keys(def))
    local c = sim:collider(def)
    local set = { thickness = 0.003, friction = 0.2 }
    assert.are.same(fields("collider:set"), keys(set))
    assert.are.equal(c, c:set(set))
  end)

  it("by the mesh helpers", function()
    local all = {
      ["tauform.mesh.grid"] = { width = 2, height = 1, nx = 3, ny = 2, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } },
      ["tauform.mesh.disc"] = { radius = 0.5, rings = 2, segments = 6, center = { 0, 0, 1 } },
      ["tauform.mesh.ellipsoid"] = { radii = { 1, 2, 3 }, center = { 0, 0, 1 }, rings = 4, segments = 6 },
    }
    for name, opt in pairs(all) do
      assert.are.same(fields(name), keys(opt))
      local m = tauform.mesh[name:match("[^.]+$")](opt)
      for _, g in ipairs(schema.tables[name].groups) do assert.is_truthy(m.groups[g], name .. " " .. g) end
      assert.are.same(schema.tables[name].groups, (function()
        local s = keys(m.groups)
        local order = {}
        for _, g in ipairs(schema.tables[name].groups) do order[#order + 1] = g end
        table.sort(order)
        assert.are.same(order, s)
        return schema.tables[name].groups
      end)())
    end
    local obj, groups = os.tmpname(), os.tmpname()
    local f = io.open(obj, "w"); f:write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"); f:close()
    f = io.open(groups, "w"); f:write("tip: 3\n"); f:close()
    local opt = { groups = groups }
    assert.are.same(fields("tauform.mesh.load_obj options"), keys(opt))
    assert.are.same({ 3 }, tauform.mesh.load_obj(obj, opt).groups.tip)
    os.remove(obj); os.remove(groups)
  end)

  it("by rigs, and by tauform.run", function()
    local key = tauform.key
    local m = tauform.mesh.grid{ nx = 3, ny = 3, origin = { 0, 0, 1 }, v = { 0, 0, -1 } }
    local rotate = { axis = { 0, 0, 1 }, angle = key{ { 1, 0 }, { 3, 10 } }, center = { 0, 0, 1 } }
    local pin = { group = "row0", weight = 1, translate = { 0, 0.01, 0 }, rotate = rotate }
    local turbulence = { amplitude = 0.5, scale = 1, time = 0.5, seed = 3 }
    local gust = { amplitude = 0.2, period = 2 }
    local wind = { velocity = { 2, 0, 0 }, density = 1.2, drag = 1.2, lift = 0.6, turbulence = turbulence, gust = gust }
    local material = { density = 0.2, stretch = 2000, poisson = 0.3, pin_stiffness = 500, bend_model = "shell",
                       bend_poisson = 0.2 }
    local bend = { value = 1e-5, groups = { row0 = 1e-4 } }
    local cloth = { mesh = m, material = material, fps = 24, frames = { 1, 3 }, substeps = 1, tau = 0.5, kappa = 0.1,
                    gravity = { 0, 0, -9.81 }, bend = bend, pins = { pin, { indices = { 16 }, weight = 0.5, release = 3 },
                    { select = function(x, _, z) return x > 0.99 and z > 0.5 and z < 0.9 end, targets = function(_, rest, ids)
                        local out = {}
                        for _, i in ipairs(ids) do for c = 1, 3 do out[#out + 1] = rest[3 * i - 3 + c] end end
                        return out
                      end } },
                    wind = wind, solver = { max_newton = 4 }, view = { 1, 1, 1 }, frame = function() end,
                    setup = function() end, name = "all fields" }
    -- contact: the cloth's thickness and friction, a ground, a moving plate and an OBJ sequence
    local contact = { thickness = 0.003, friction = key{ { 1, 0.3 }, { 3, 0.5 } }, self = function(f) return f < 3 and 1 or 0 end,
                      self_exclude = { "row0" } }
    local ground = { normal = { 0, 0, 1 }, height = -1, friction = 0.4 }
    local seq = os.tmpname()
    for f = 1, 3 do
      local file = assert(io.open(("%s_%04d.obj"):format(seq, f), "w"))
      file:write(("v 2 2 %g\nv 3 2 %g\nv 2 3 %g\nf 1 2 3\n"):format(f / 10, f / 10, f / 10))
      file:close()
    end
    local plate = { mesh = tauform.mesh.grid{ nx = 1, ny = 1, origin = { 0, 0, -0.5 } }, thickness = 0.002,
                    friction = function(f) return 0.1 * f end, one_sided = false,
                    transform = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 },
                    rotate = { axis = { 0, 0, 1 }, angle = 5 }, translate = key{ { 1, { 0, 0, 0 } }, { 3, { 0, 0, 0.1 } } } }
    local body = { sequence = seq .. "_####.obj" }
    cloth.contact, cloth.ground, cloth.colliders = contact, ground, { plate, body }
    local settled = { mesh = m, settle = 1, pins = { { group = "row0" } }, wind = { velocity = { 1, 0, 0 }, air_density = 1.0 },
                      material = { total_mass = 0.1 } }
    local massed = { mesh = m, material = { masses = {} } }
    for i = 1, 16 do massed.material.masses[i] = 0.01 end
    local skin = tauform.mesh.ellipsoid{ radii = { 0.1, 0.1, 0.1 }, rings = 4, segments = 6 }
    local cube = assert(tauform.tet_load(root .. "/examples/bench/meshes/cube3.node"))
    local flesh = { flesh = { surface = tauform.mesh.ellipsoid{ radii = { 0.2, 0.2, 0.2 }, center = { 0, 0, 0.5 }, rings = 4,
                                                                 segments = 6 }, tets = cube },
                    material = { youngs = 2e4, poisson = 0.45, density = 1000, pin_stiffness = 800,
                                 regions = { [1] = { youngs = 3e4, poisson = 0.4, density = 1100 } } },
                    frames = { 1, 2 } }
    local filled = { flesh = { surface = skin, cells = 3, element = "linear" }, frames = { 1, 2 } }
    local yield_map, limit_map = { value = 0.05, groups = { row0 = 0.1 } }, { value = 0, groups = { row0 = 0.2 } }
    local plastic = { yield = yield_map, limit = limit_map, time = 0.5 }
    local sprung = { mesh = m, material = { cloth_model = "springs", shear = 50, bend_springs = 3 }, plastic = plastic }
    local creased = { mesh = m, plastic = { bend_yield = 5, bend_limit = 40, time = 0.2 } }
    local bend_limit_map = { value = 20, groups = { row0 = 40 } }
    local creased_mapped = { mesh = m, plastic = { bend_yield = { value = 5 }, bend_limit = bend_limit_map } }
    local torn = { mesh = m, tear = { strain = 0.5, groups = { row0 = 0.2 } } }
    local poke_at = { at = { 0.5, 0, 0.5 }, radius = 0.3, force = key{ { 1, { 0, 1, 0 } }, { 3, { 0, 0, 0 } } }, frames = { 1, 2 } }
    local poke_group = { group = "row0", force = { 0, 0.1, 0 } }
    local poke_idx = { indices = { 6 }, force = function() return { 0, 0, 0.1 } end }
    local poke_sel = { select = function(x) return x > 0.9 end, force = { 0.1, 0, 0 } }
    local response = { levels = { key{ { 1, 50 }, { 3, 50 } } }, global = function() return 50 end, -- 2 levels
                       groups = { row0 = { 100 }, col0 = { levels = { 20 }, global = 80 } } }
    local poked = { mesh = m, pokes = { poke_at, poke_group, poke_idx, poke_sel }, response = response }
    assert.are.same(fields("rig.plastic"), union(plastic, creased.plastic))
    assert.are.same(fields("rig.plastic.yield"), keys(yield_map))
    assert.are.same(fields("rig.plastic.limit"), keys(limit_map))
    assert.are.same(fields("rig.plastic.bend_limit"), keys(bend_limit_map))
    assert.are.same(fields("rig.tear"), keys(torn.tear))
    assert.are.same(fields("rig.pokes[i]"), union(poke_at, poke_group, poke_idx, poke_sel))
    assert.are.same(fields("rig.response"), keys(response))
    assert.are.same(fields("rig"), union(cloth, settled, flesh, sprung, creased, torn, poked))
    assert.are.same(fields("rig.material (cloth)"), union(material, settled.material, massed.material, sprung.material))
    assert.are.same(fields("rig.material (flesh)"), keys(flesh.material))
    assert.are.same(fields("rig.material.regions[name]"), keys(flesh.material.regions[1]))
    assert.are.same(fields("rig.flesh"), union(flesh.flesh, filled.flesh))
    assert.are.same(fields("rig.bend"), keys(bend))
    assert.are.same(fields("rig.pins[i]"), union(pin, cloth.pins[2], cloth.pins[3]))
    assert.are.same(fields("rig.pins[i].rotate"), keys(rotate))
    assert.are.same(fields("rig.wind"), union(wind, settled.wind))
    assert.are.same(fields("rig.wind.turbulence"), keys(turbulence))
    assert.are.same(fields("rig.wind.gust"), keys(gust))
    assert.are.same(fields("rig.contact"), keys(contact))
    assert.are.same(fields("rig.ground"), keys(ground))
    assert.are.same(fields("rig.colliders[i]"), union(plate, body))
    for _, spec in ipairs({ cloth, settled, massed, sprung, creased, creased_mapped, torn, poked, flesh, filled }) do
      local rig = tauform.rig.load(spec)
      local sim <close> = rig:create()
      rig:apply(sim, 2)
    end
    for f = 1, 3 do os.remove(("%s_%04d.obj"):format(seq, f)) end
    os.remove(seq)
    local dir = os.tmpname()
    local opt = { frames = "1-2", fps = 24, substeps = 1, out = dir .. ".pc2", format = "pc2", preview = dir .. ".png",
                  sheet = dir .. "-sheet.png", sheet_frames = 2, sheet_columns = 2, sheet_width = 40, sheet_height = 30,
                  view = { 1, 1, 1 }, progress = false, on_frame = function() end, name = "run options",
                  checkpoint_every = 1, resume = false, rest_obj = dir .. "-rest.obj", threads = 2 }
    assert.are.same(fields("tauform.run options"), keys(opt))
    assert.is_truthy(tauform.run(settled, opt))
    for _, p in ipairs({ dir, dir .. ".pc2", dir .. ".png", dir .. "-sheet.png", dir .. "-rest.obj" }) do os.remove(p) end
  end)
end)
