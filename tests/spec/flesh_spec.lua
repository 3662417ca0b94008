-- SPDX-License-Identifier: MIT
-- Flesh from Lua: tauform.flesh from a closed surface (filled) or from tets (a tet file with named
-- regions mapped to materials), the skin's positions, misuse messages, and flesh rigs: the belly
-- example jiggles while its bone bounces and settles once it stops, its cache holds the skin.
local tauform = require "tauform"

local tmpname = require("support").tmpname

local function write(path, s)
  local f = assert(io.open(path, "w"))
  f:write(s)
  f:close()
end

local function blob(opt)
  local def = { surface = tauform.mesh.ellipsoid{ radii = { 0.2, 0.15, 0.1 }, rings = 8, segments = 16 },
                cells = 6, youngs = 2e4, poisson = 0.45, tau = 0.2 }
  for k, v in pairs(opt or {}) do def[k] = v end
  return tauform.flesh(def)
end

describe("flesh", function()
  it("takes the quadratic tet: the host's vertices, the skin and the mass as with the linear one", function()
    local lin <close> = blob()
    local quad <close> = blob{ element = "quadratic" }
    local a, b = lin:info(), quad:info()
    assert.are.equal("linear", a.element)
    assert.are.equal("quadratic", b.element)
    assert.are.equal(a.vertices, a.nodes)
    assert.is_true(b.nodes > 4 * b.vertices) -- one more node per edge, the simulation's own
    assert.are.equal(lin:vert_count(), quad:vert_count())
    assert.is_true(math.abs(a.mass - b.mass) < 1e-9 * a.mass)
    local sl, sq = lin:surface_positions(), quad:surface_positions()
    for i = 1, #sl do assert.is_true(math.abs(sl[i] - sq[i]) < 1e-12) end -- the same skin at rest
    assert.is_true(quad:advance(0.1, 2))
    assert.has_error(function() blob{ element = "cubic" } end)
  end)

  it("fills a closed surface and returns it as the skin", function()
    local body <close> = blob()
    local info = body:info()
    assert.are.equal(0, info.inverted_rest)
    assert.is_true(info.tets > 100)
    -- the mass is the surface's enclosed volume times the density (not the bigger lattice's)
    local m, vol = tauform.mesh.ellipsoid{ radii = { 0.2, 0.15, 0.1 }, rings = 8, segments = 16 }, 0
    local p, t = m.vertices, m.triangles
    for k = 1, #t, 3 do
      local a, b, c = 3 * t[k] - 2, 3 * t[k + 1] - 2, 3 * t[k + 2] - 2
      vol = vol + (p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) + p[a + 1] * (p[b + 2] * p[c] - p[b] * p[c + 2])
                   + p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c])) / 6
    end
    assert.is_true(math.abs(info.mass - 1000 * vol) < 1e-9 * info.mass)
    assert.is_true(info.rest_volume > 1.2 * vol) -- the lattice sticks out; its tets are weighted by what is inside
    assert.are.equal(2 + 16 * 7, body:surface_count())
    local s = body:surface_positions()
    local want = tauform.mesh.ellipsoid{ radii = { 0.2, 0.15, 0.1 }, rings = 8, segments = 16 }.vertices
    for k = 1, #want do assert.is_true(math.abs(s[k] - want[k]) < 1e-12) end
    -- falls freely and undeformed: the skin moves as g t^2 / 2 (the discrete parabola)
    assert.is_true(body:advance(0.25, 5))
    local s2 = body:surface_positions(s)
    assert.are.equal(s, s2)
    local dz = -9.81 * 0.05 ^ 2 * 5 * 6 / 2
    for i = 1, #want // 3 do assert.is_true(math.abs(s[3 * i] - (want[3 * i] + dz)) < 1e-9) end
  end)

  it("refuses what flesh does not have, naming it", function()
    local body <close> = blob()
    assert.has_error(function() body:set{ stretch = 10 } end)
    local ok, err = pcall(body.set, body, { tau = 0.5, bend = 1e-3 })
    assert.is_false(ok)
    assert.matches("bend_stiffness is a cloth parameter", err)
    assert.are.equal(0.2, body:get("tau")) -- nothing applied
    ok, err = pcall(body.set, body, { poisson = 0.5 })
    assert.matches("below 0.5", err)
    body:set{ youngs = 5e4, poisson = 0.49 }
    assert.are.equal(5e4, body:get("youngs"))
    ok, err = pcall(tauform.flesh, { surface = { vertices = { 0, 0, 0 } } })
    assert.matches("triangles", err)
    ok, err = pcall(tauform.flesh, { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, tets = { { 1, 2, 3, 5 } } })
    assert.matches("tets: index 5 out of range 1..4", err)
    local cloth <close> = tauform.cloth{ vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, triangles = { 1, 2, 3 } }
    assert.has_error(function() cloth:surface_positions() end, "surface_positions: this simulation has no embedded surface")
  end)

  it("reads tet files and maps named regions to materials", function()
    local path = tmpname(".msh")
    write(path, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n3 11 \"fat\"\n3 12 \"muscle\"\n"
                .. "$EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n"
                .. "$Elements\n2\n1 4 2 11 1 1 2 3 4\n2 4 2 12 1 2 3 4 5\n$EndElements\n")
    local m = assert(tauform.tet_load(path))
    assert.are.same({ 11, 12 }, m.regions)
    assert.are.same({ [11] = "fat", [12] = "muscle" }, m.region_names)
    assert.are.same({ 1, 2, 3, 4, 2, 3, 4, 5 }, m.tets)
    local rig = tauform.rig.load({ flesh = { tets = m }, frames = { 1, 2 },
                                   material = { density = 900, regions = { muscle = { youngs = 1e6, density = 1100 } } } })
    local sim <close> = rig:create()
    assert.is_true(math.abs(sim:info().mass - (900 / 6 + 1100 / 3)) < 1e-9)
    local bad = tauform.rig.load({ flesh = { tets = m }, material = { regions = { bone = {} } } })
    assert.has_error(function() bad:create() end, "rig: material.regions: no region 'bone' in the tets (named: fat, muscle)")
    -- one region named twice, a bad region material named by its region
    local twice = tauform.rig.load({ flesh = { tets = m }, material = { regions = { muscle = {}, [12] = {} } } })
    assert.has_error(function() twice:create() end, "rig: material.regions: region muscle given twice (by name and by id)")
    local soft = tauform.rig.load({ flesh = { tets = m }, material = { regions = { fat = { youngs = -1 } } } })
    local ok, err = pcall(soft.create, soft)
    assert.is_false(ok)
    assert.matches("material.regions.fat: youngs_modulus must be > 0", err, 1, true)
    -- a wrong type is found when the rig loads, by the schema
    ok, err = pcall(tauform.rig.load, { flesh = { tets = m }, material = { regions = { fat = { youngs = "stiff" } } } })
    assert.is_false(ok)
    assert.are.equal('rig: material.regions.fat.youngs: expected a number, got string "stiff"', err)
    -- a numeric string converts, as every other number field does
    local sim = tauform.flesh({ vertices = m.vertices, tets = m.tets, materials = { { youngs = "2e5" } } })
    sim:close()
    -- the same through tauform.flesh: 1-based names
    ok, err = pcall(tauform.flesh, { vertices = m.vertices, tets = m.tets, materials = { { youngs = "stiff" } } })
    assert.matches('materials[1].youngs: expected a number, got string "stiff"', err, 1, true)
    ok, err = pcall(tauform.flesh, { vertices = m.vertices, tets = m.tets, materials = { {} }, tet_materials = { 1, 2 } })
    assert.matches("tet_materials[2] = 2 but there are 1 materials", err, 1, true)
    ok, err = pcall(tauform.flesh, { vertices = m.vertices, tets = { { 1, 2, 3, 4 }, 2, 3, 4, 5 } })
    assert.matches("tets[2] must be a table of 4 indices", err, 1, true)
    local nothing, msg, code = tauform.tet_load(path .. ".missing.msh")
    assert.is_nil(nothing)
    assert.matches("cannot open", msg)
    assert.are.equal("TF_E_IO", code)
    os.remove(path)
  end)

  it("gives its tet boundary as triangles, wound outward, for a body without a skin", function()
    local body <close> = tauform.flesh{ vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, tets = { 1, 2, 3, 4 } }
    local t, x = body:triangles(), body:positions()
    assert.are.equal(12, #t)
    local vol = 0
    for k = 1, #t, 3 do
      local a, b, c = 3 * t[k] - 2, 3 * t[k + 1] - 2, 3 * t[k + 2] - 2
      vol = vol + (x[a] * (x[b + 1] * x[c + 2] - x[b + 2] * x[c + 1]) + x[a + 1] * (x[b + 2] * x[c] - x[b] * x[c + 2])
                   + x[a + 2] * (x[b] * x[c + 1] - x[b + 1] * x[c])) / 6
    end
    assert.is_true(math.abs(vol - 1 / 6) < 1e-15) -- outward: the enclosed volume is positive
    -- so an OBJ-sequence cache of such a rig has faces
    local dir = tmpname("")
    local rig = tauform.rig.load({ flesh = { tets = { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, tets = { 1, 2, 3, 4 } } },
                                   frames = { 1, 2 } })
    tauform.run(rig, { out = dir .. ".obj", progress = false })
    local f = assert(io.open(dir .. "_0002.obj"))
    local text = f:read("a")
    f:close()
    assert.are.equal(4, select(2, text:gsub("\nf ", "")))
    os.remove(dir .. "_0001.obj")
    os.remove(dir .. "_0002.obj")
  end)

  it("refuses a surface wound inward", function()
    local skin = tauform.mesh.ellipsoid{ radii = { 0.1, 0.1, 0.1 }, rings = 6, segments = 12 }
    local t = skin.triangles
    for k = 1, #t, 3 do t[k + 1], t[k + 2] = t[k + 2], t[k + 1] end
    local ok, err = pcall(tauform.flesh, { surface = skin })
    assert.is_false(ok)
    assert.matches("the surface is wound inward; flip its triangles", err, 1, true)
  end)

  it("flesh rigs name their mistakes", function()
    local skin = tauform.mesh.ellipsoid{ radii = { 0.1, 0.1, 0.1 }, rings = 6, segments = 12 }
    assert.has_error(function() tauform.rig.load({ flesh = { surface = skin }, bend = 1e-3 }) end,
                     "rig: field 'bend' is a cloth parameter: flesh has no hinges")
    assert.has_error(function() tauform.rig.load({ flesh = { surface = skin }, pins = { { group = "top" } } }) end,
                     "rig: pins[1]: flesh pins choose vertices with select or indices")
    assert.has_error(function() tauform.rig.load({ flesh = { skin = skin } }) end,
                     "rig: flesh.skin: unknown field (fields: surface, cells, tets, element)")
    assert.has_error(function() tauform.rig.load({ flesh = { surface = skin, cels = 4 } }) end,
                     "rig: flesh.cels: unknown field (did you mean 'cells'?)")
    local rig = tauform.rig.load({ flesh = { surface = skin, cells = 4 }, pins = { { select = function() return false end } } })
    assert.has_error(function() rig:create() end, "rig: pins[1] selects no vertex")
  end)

  it("the belly jiggles while the bone bounces and settles once it stops", function()
    local rig = tauform.rig.load("examples/flesh/belly.lua")
    local path = tmpname(".pc2")
    local front, speed = {}, {}
    local res = assert(tauform.run(rig, { out = path, progress = false, on_frame = function(f, sim)
      -- the front of the belly (largest y) relative to the bone, and the skin's largest speed
      local v, x, best, top = sim:velocities(), sim:positions(), -1e9, 0
      for i = 1, #x // 3 do if x[3 * i - 1] > best then best, top = x[3 * i - 1], x[3 * i] end end
      local vmax = 0
      for i = 1, #v // 3 do vmax = math.max(vmax, math.sqrt(v[3 * i - 2] ^ 2 + v[3 * i - 1] ^ 2 + v[3 * i] ^ 2)) end
      front[f], speed[f] = top, vmax
    end }))
    -- jiggle: while bouncing the flesh moves at least as fast as the bone (bob 4 cm per 1/4 s)
    local peak = 0
    for f = 2, 55 do peak = math.max(peak, speed[f]) end
    -- settle: 1 s after the stop the flesh is still
    print(("\nbelly: peak skin speed while bouncing %.3f m/s; at frames 60, 72, 96: %.2e, %.2e, %.2e m/s"):format(
      peak, speed[60], speed[72], speed[96]))
    assert.is_true(peak > 0.16)
    assert.is_true(speed[72] < 1e-3 * peak and speed[96] < 1e-3 * peak)
    -- the cache holds the skin: 2 + 32 * 15 vertices, 96 frames
    local f = assert(io.open(path, "rb"))
    local header = f:read(32)
    f:close()
    local _, _, count, _, _, frames = string.unpack("<c12i4i4ffi4", header)
    assert.are.equal(2 + 32 * 15, count)
    assert.are.equal(96, frames)
    assert.are.equal(96, res.frames)
    os.remove(path)
  end)
end)
