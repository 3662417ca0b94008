-- SPDX-License-Identifier: MIT
-- Contact in Lua (ABI 1.5, issue 16): sim:collider and its methods, the contact parameters, and
-- rigs with colliders, a ground and a contact table. Misuse is a Lua error naming the argument
-- and what is wrong; a collider keeps its simulation alive, and after sim:close() its methods
-- raise; a plate moved up under a resting sheet carries it; a rig's collider and ground tables
-- are checked like every rig table.
local tauform = require "tauform"
local core = tauform.core

local function raises(fn, expected)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error with: " .. expected)
  assert.is_truthy(tostring(err):find(expected, 1, true), ("expected %q in: %s"):format(expected, tostring(err)))
end

-- a horizontal square plate at height z: 9 vertices, 8 triangles, normals up
local function plate(z, half)
  half = half or 1
  return tauform.mesh.grid{ width = 2 * half, height = 2 * half, nx = 2, ny = 2, origin = { -half, -half, z } }
end

-- a closed box with outward triangles (a collider for one_sided contact)
local function box(lo, hi) return tauform.mesh.box{ lo = lo, hi = hi } end

local function sheet(z)
  local m = tauform.mesh.grid{ width = 0.5, height = 0.5, nx = 8, ny = 8, origin = { -0.25, -0.25, z } }
  return tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = 0.2, stretch = 2000, bend = 1e-5,
                        tau = 0.2 }
end

local function lying(n, first) return setmetatable({ first }, { __len = function() return n end }) end

local IDENTITY = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }

describe("sim:collider", function()
  it("tauform.mesh.box is a closed box with outward triangles, and checks its corners", function()
    local b = tauform.mesh.box{ lo = { -1, -2, 0.5 }, hi = { 2, 1, 1.5 } }
    assert.are.equal(24, #b.vertices)
    assert.are.equal(36, #b.triangles)
    -- signed volume of the closed surface: positive when every triangle faces out
    local vol = 0
    for t = 1, #b.triangles, 3 do
      local p = {}
      for k = 0, 2 do
        local i = 3 * (b.triangles[t + k] - 1)
        p[k + 1] = { b.vertices[i + 1], b.vertices[i + 2], b.vertices[i + 3] }
      end
      local a, c, d = p[1], p[2], p[3]
      vol = vol + (a[1] * (c[2] * d[3] - c[3] * d[2]) - a[2] * (c[1] * d[3] - c[3] * d[1]) + a[3] * (c[1] * d[2] - c[2] * d[1])) / 6
    end
    assert.is_true(math.abs(vol - 3 * 3 * 1) < 1e-12)
    assert.are.same({ 5, 6, 7, 8 }, b.groups.top)
    local ok, err = pcall(tauform.mesh.box, { lo = { 0, 0, 1 }, hi = { 1, 1, 1 } })
    assert.is_false(ok)
    assert.matches("hi%[3%] = 1 must be larger than lo%[3%] = 1", err)
    ok, err = pcall(tauform.mesh.box, { low = { 0, 0, 0 } })
    assert.is_false(ok)
    assert.matches("low: unknown field", err)
  end)

  it("adds a collider with 1-based triangles, moves, transforms and sets it", function()
    local sim <close> = sheet(1)
    local p = plate(0)
    assert.are.equal(0, sim:collider_count())
    local c = sim:collider{ vertices = p.vertices, triangles = p.triangles, thickness = 0.004, friction = 0.2 }
    sim:collider(box({ 2, 2, 0 }, { 3, 3, 1 }))
    local d = sim:collider(tauform.mesh.grid{ nx = 1, ny = 1 })
    assert.are.equal(3, sim:collider_count())
    assert.are.equal(1, c:id())
    assert.are.equal(3, d:id())
    assert.are.equal(9, c:vert_count())
    assert.matches("^tauform.collider 1 %(9 vertices%)$", tostring(c))
    -- nested positions, flat positions, a flat matrix and 4 rows of 4: each returns the collider
    local nested = {}
    for i = 1, 9 do nested[i] = { p.vertices[3 * i - 2], p.vertices[3 * i - 1], p.vertices[3 * i] + 0.01 } end
    assert.are.equal(c, c:move(nested))
    assert.are.equal(c, c:move(p.vertices))
    assert.are.equal(c, c:transform(IDENTITY))
    assert.are.equal(c, c:transform{ { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0.02 }, { 0, 0, 0, 1 } })
    assert.are.equal(c, c:set{ friction = 0.6 })
    assert.are.equal(c, c:set{ thickness = 0.002 })
    assert.is_true(sim:advance(1 / 24))
    -- the contact parameters are the simulation's, under their Lua names
    sim:set{ thickness = 0.003, friction = 0.4, ground_normal = { 0, 0, 1 }, ground_height = -1, ground_friction = 0.7 }
    assert.are.equal(0.003, sim:get("thickness"))
    assert.are.same({ 0, 0, 1 }, sim:get("ground_normal"))
    assert.are.equal(-1, sim:get("ground_height"))
    local st = sim:stats()
    for _, k in ipairs({ "contacts", "broad_pairs", "ccd_cuts", "intersecting", "contact_growths", "collider_substeps" }) do
      assert.are.equal("integer", math.type(st[k]), k)
    end
    assert.are.equal("number", type(st.min_distance))
    assert.are.equal("number", type(st.contact_seconds))
  end)

  it("refuses NaN, wrong counts, bad indices and bad values, naming the argument", function()
    local sim <close> = sheet(1)
    local p = plate(0)
    local function def(extra)
      local d = { vertices = { table.unpack(p.vertices) }, triangles = p.triangles }
      for k, v in pairs(extra or {}) do d[k] = v end
      return d
    end
    local bad = def()
    bad.vertices[5] = 0 / 0
    raises(function() sim:collider(bad) end, "bad argument #1 to 'collider' (vertices: coordinate 2 of entry 2 is not finite (NaN))")
    bad.vertices[5] = math.huge
    raises(function() sim:collider(bad) end, "vertices: coordinate 2 of entry 2 is not finite (inf)")
    raises(function() sim:collider(def{ triangles = { 1, 2, 10 } }) end, "triangles: index 10 out of range 1..9")
    raises(function() sim:collider(def{ triangles = { 0, 1, 2 } }) end, "triangles: index 0 out of range 1..9")
    raises(function() sim:collider(def{ triangles = { 1, 2 } }) end, "flat array length is not a multiple of 3")
    raises(function() sim:collider(def{ triangles = {} }) end, "a collider needs at least one triangle")
    raises(function() sim:collider(def{ vertices = { 0, 0, 0, 1, 0, 0 } }) end, "need 3 to")
    raises(function() sim:collider{ vertices = p.vertices } end, "bad argument #1 to 'collider' (field 'triangles' (a table) is required)")
    raises(function() sim:collider(def{ thickness = -0.001 }) end, "thickness")
    raises(function() sim:collider(def{ friction = -1 }) end, "friction")
    raises(function() sim:collider(def{ thickness = 0 / 0 }) end, "thickness")
    raises(function() sim:collider(def{ one_sided = 1 }) end, "one_sided: expected true or false, got number 1")
    raises(function() sim:collider(def{ thikness = 0.1 }) end, "thikness: unknown field (did you mean 'thickness'?)")
    raises(function() sim:collider(42) end, "bad argument #1 to 'collider'")
    assert.are.equal(0, sim:collider_count()) -- nothing was added by a refused call

    local c = sim:collider(def())
    local moved = { table.unpack(p.vertices) }
    moved[27] = 0 / 0
    raises(function() c:move(moved) end, "bad argument #1 to 'move' (positions: coordinate 3 of entry 9 is not finite (NaN))")
    raises(function() c:move{ 0, 0, 0, 1, 0, 0, 0, 1, 0 } end, "positions: 3 positions for a collider of 9 vertices")
    raises(function() c:move{ 0, 0 } end, "not a multiple of 3")
    raises(function() c:move(nil) end, "bad argument #1 to 'move'")
    raises(function() c:transform{ 1, 0, 0 } end, "matrix: expected 16 numbers (row-major) or 4 rows of 4, got 3 entries")
    raises(function() c:transform{ { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 } } end, "got 3 rows")
    local m = { table.unpack(IDENTITY) }
    m[4] = 0 / 0
    raises(function() c:transform(m) end, "matrix: entry (1, 4) is not a finite number")
    m[4], m[13] = 0, 1
    raises(function() c:transform(m) end, "matrix: the last row must be 0 0 0 1")
    raises(function() c:set{ thickness = -1 } end, "thickness")
    raises(function() c:set{ friction = -0.5 } end, "friction")
    raises(function() c:set{ friction = "lots" } end, "friction")
    raises(function() c:set{ frction = 1 } end, "bad argument #1 to 'set' (frction: unknown field (did you mean 'friction'?))")
    -- the binding's own checks beneath the schema's
    raises(function() core.unchecked_methods.collider(sim, def{ thikness = 1 }) end, "unknown field 'thikness'")
    raises(function() core.unchecked_methods.collider_set(c, { frction = 1 }) end, "unknown field 'frction'")
    raises(function() core.unchecked_methods.collider(sim, def{ one_sided = "yes" }) end, "one_sided")
    -- a refused set keeps the values: a later set of the other field passes the old one on
    assert.are.equal(c, c:set{ friction = 0.1 })
  end)

  it("refuses huge and lying lengths before allocating", function()
    local sim <close> = sheet(1)
    local p = plate(0)
    local c = sim:collider(p)
    for _, n in ipairs({ 2 ^ 62, math.maxinteger, 2 ^ 31, 2 ^ 32 + 3, -1 }) do
      local len = ("length %d "):format(math.tointeger(n))
      raises(function() sim:collider{ vertices = lying(n, { 0, 0, 0 }), triangles = p.triangles } end, "field 'vertices': " .. len)
      raises(function() sim:collider{ vertices = p.vertices, triangles = lying(n, { 1, 2, 3 }) } end, "field 'triangles': " .. len)
      raises(function() c:move(lying(n, { 0, 0, 0 })) end, "field 'positions': " .. len)
      raises(function() c:transform(lying(n, 1)) end, "field 'matrix': " .. len)
    end
    -- a real 16-entry table behind a __len that claims 16 for 4 entries
    raises(function() c:transform(lying(16, 1)) end, "field 'matrix': length 16 but entry 16 is nil")
    assert.are.equal(1, sim:collider_count())
  end)
end)

describe("collider lifetime", function()
  it("keeps its simulation alive while the collider is reachable", function()
    collectgarbage()
    local base = core.native_bytes()
    local c = (function()
      local sim = sheet(1) -- no other reference: only the collider holds it
      return sim:collider(plate(0))
    end)()
    collectgarbage(); collectgarbage()
    assert.is_true(core.native_bytes() > base)
    assert.are.equal(c, c:move(plate(0.01).vertices)) -- its simulation still exists
    c = nil -- luacheck: ignore
    collectgarbage(); collectgarbage()
    assert.are.equal(base, core.native_bytes())
  end)

  it("raises once its simulation is closed, by close() or <close>", function()
    local sim = sheet(1)
    local c = sim:collider(plate(0))
    sim:close()
    raises(function() c:move(plate(0).vertices) end, "calling 'move' on bad self (collider's simulation is closed)")
    raises(function() c:transform(IDENTITY) end, "collider's simulation is closed")
    raises(function() c:set{ friction = 0.1 } end, "collider's simulation is closed")
    raises(function() sim:collider(plate(0)) end, "simulation is closed")
    raises(function() sim:collider_count() end, "simulation is closed")
    assert.are.equal(1, c:id()) -- what it was stays readable
    assert.matches("simulation closed", tostring(c))
    local d
    do
      local s <close> = sheet(1)
      d = s:collider(plate(0))
    end
    raises(function() d:move(plate(0).vertices) end, "collider's simulation is closed")
    collectgarbage()
  end)

  it("is not a simulation: sim methods refuse it", function()
    local sim <close> = sheet(1)
    local c = sim:collider(plate(0))
    raises(function() sim.advance(c, 0.1) end, "tauform.sim expected")
    raises(function() getmetatable(c).__index.move(sim, {}) end, "tauform.collider expected")
  end)
end)

describe("contact", function()
  -- the lowest z of a flat position table
  local function min_z(x)
    local z = math.huge
    for i = 3, #x, 3 do z = math.min(z, x[i]) end
    return z
  end

  it("a sheet dropped on a plate rests on it, and rides up when the plate is moved up", function()
    local sim <close> = sheet(0.1)
    local p = plate(0)
    local c = sim:collider{ vertices = p.vertices, triangles = p.triangles, friction = 0.5 }
    local z = 0
    for frame = 1, 36 do
      if frame > 12 then -- the plate rises 1 cm a frame
        z = 0.01 * (frame - 12)
        c:transform{ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, z, 0, 0, 0, 1 }
      end
      assert.is_true(sim:advance(1 / 24, 2))
      local x = sim:positions()
      for i = 3, #x, 3 do
        assert.is_true(x[i] > z, ("frame %d: vertex %d at z = %g, the plate at %g"):format(frame, i // 3, x[i], z))
      end
    end
    assert.is_true(min_z(sim:positions()) < z + 0.02) -- resting on it, not floating away
    local st = sim:stats()
    assert.is_true(st.contacts > 0)
    assert.is_true(st.min_distance > 0 and st.min_distance < 0.01)
  end)

  it("the same sheet without the collider falls through where the plate was", function()
    local sim <close> = sheet(0.1)
    for _ = 1, 12 do assert.is_true(sim:advance(1 / 24, 2)) end
    assert.is_true(min_z(sim:positions()) < 0)
  end)

  it("moving a collider with move() carries the sheet like transform()", function()
    local sim <close> = sheet(0.1)
    local p = plate(0)
    local c = sim:collider(p)
    for frame = 1, 24 do
      local z = frame > 12 and 0.01 * (frame - 12) or 0
      c:move(plate(z).vertices)
      assert.is_true(sim:advance(1 / 24, 2))
      assert.is_true(min_z(sim:positions()) > z)
    end
  end)

  it("a ground plane set as parameters holds the sheet", function()
    local sim <close> = sheet(0.1)
    sim:set{ ground_normal = { 0, 0, 1 }, ground_height = 0.02 }
    for frame = 1, 24 do
      assert.is_true(sim:advance(1 / 24, 2))
      local z = min_z(sim:positions())
      assert.is_true(z > 0.02, ("frame %d: a vertex at z = %g, the ground at 0.02"):format(frame, z))
    end
  end)
end)

describe("a rig with contact", function()
  local key = tauform.key
  local function rig(extra)
    local spec = {
      mesh = tauform.mesh.grid{ width = 0.5, height = 0.5, nx = 8, ny = 8, origin = { -0.25, -0.25, 0.3 } },
      material = { density = 0.2, stretch = 2000 },
      fps = 24, frames = { 1, 8 }, substeps = 2, tau = 0.2,
      contact = { thickness = 0.003, friction = 0.4 },
      ground = { normal = { 0, 0, 1 }, height = 0, friction = 0.6 },
      colliders = {
        { mesh = box({ -0.1, -0.1, 0 }, { 0.1, 0.1, 0.1 }), one_sided = true, friction = 0.3,
          translate = key{ { 1, { 0, 0, 0 } }, { 8, { 0, 0, 0.05 } } } },
      },
    }
    for k, v in pairs(extra or {}) do spec[k] = v end
    return spec
  end

  it("is validated and runs: the ground and a moving box hold the sheet", function()
    local r = tauform.rig.load(rig{ frames = { 1, 24 } })
    local sim <close> = r:create()
    assert.are.equal(1, sim:collider_count())
    assert.are.equal(0.003, sim:get("thickness"))
    assert.are.same({ 0, 0, 1 }, sim:get("ground_normal"))
    assert.are.equal(0.6, sim:get("ground_friction"))
    local top
    for f = 2, 24 do
      r:apply(sim, f)
      assert.is_true(sim:advance(1 / 24, 2))
      top = 0.1 + 0.05 * math.min(f - 1, 7) / 7
      local x = sim:positions()
      for i = 1, #x // 3 do
        assert.is_true(x[3 * i] > 0, ("frame %d: vertex %d below the ground"):format(f, i))
        -- over the box's top (inside its footprint, well clear of the edges) a vertex stays above it
        if math.abs(x[3 * i - 2]) < 0.08 and math.abs(x[3 * i - 1]) < 0.08 then
          assert.is_true(x[3 * i] > top, ("frame %d: vertex %d at %g inside the box (top %g)"):format(f, i, x[3 * i], top))
        end
      end
    end
  end)

  it("runs headless through tauform.run with an OBJ sequence and keyed collider values", function()
    local base = os.tmpname()
    for f = 1, 4 do
      local file = assert(io.open(("%s_%04d.obj"):format(base, f), "w"))
      local z = 0.02 * f
      file:write(("v -1 -1 %g\nv 1 -1 %g\nv 1 1 %g\nv -1 1 %g\nf 1 2 3\nf 1 3 4\n"):format(z, z, z, z))
      file:close()
    end
    local spec = rig{ frames = { 1, 4 } }
    spec.colliders[2] = { sequence = base .. "_####.obj", thickness = key{ { 1, 0.001 }, { 4, 0.002 } },
                          friction = function(f) return 0.1 * f end }
    local res = assert(tauform.run(spec, { progress = false }))
    assert.is_truthy(res)
    -- a sequence file missing for a frame of the run names it
    raises(function() tauform.run(rig{ frames = { 1, 6 }, colliders = { { sequence = base .. "_####.obj" } } }, { progress = false }) end,
           "rig: colliders[1].sequence: frame 5: cannot open")
    for f = 1, 4 do os.remove(("%s_%04d.obj"):format(base, f)) end
    os.remove(base)
  end)

  it("rejects unknown keys in its collider, ground and contact tables with the path", function()
    local function refuses(spec, expected)
      raises(function() tauform.rig.load(spec) end, expected)
    end
    local c = rig().colliders[1]
    c.thikness = 0.1
    refuses(rig{ colliders = { c } }, "rig: colliders[1].thikness: unknown field (did you mean 'thickness'?)")
    refuses(rig{ ground = { normal = { 0, 0, 1 }, hieght = 0 } }, "rig: ground.hieght: unknown field (did you mean 'height'?)")
    refuses(rig{ contact = { frction = 0.1 } }, "rig: contact.frction: unknown field (did you mean 'friction'?)")
    refuses(rig{ colliders = { { mesh = plate(0), rotate = { axis = { 0, 0, 1 }, angel = 3 } } } },
            "rig: colliders[1].rotate.angel: unknown field (did you mean 'angle'?)")
    refuses(rig{ thickness = 0.01 }, "rig: thickness: unknown field here (it belongs in contact.thickness)")
    refuses(rig{ ground_height = 0.01 }, "rig: ground_height: unknown field here (it belongs in ground.height)")
    refuses(rig{ colliders = { { mesh = plate(0), transform = { 1, 2, 3 } } } },
            "rig: colliders[1].transform: expected a 4x4 matrix (16 numbers row-major, or 4 rows of 4) or a function, got {1, 2, 3}")
    refuses(rig{ colliders = { { mesh = plate(0), one_sided = "yes" } } }, "rig: colliders[1].one_sided: expected true or false")
    refuses(rig{ colliders = { plate(0) } }, "rig: colliders[1].groups: unknown field")
    refuses(rig{ colliders = { { thickness = 0.01 } } }, "rig: colliders[1] needs a mesh or a sequence")
    refuses(rig{ colliders = { { sequence = "body.obj" } } }, "rig: colliders[1].sequence: \"body.obj\" has no #### for the frame number")
    refuses(rig{ colliders = { { sequence = "/nonexistent/body_####.obj" } } }, "colliders[1].sequence: frame 1: cannot open")
    refuses(rig{ colliders = { { mesh = plate(0), transform = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1 } } } },
            "rig: colliders[1].transform: the last row must be 0 0 0 1")
    refuses(rig{ ground = { normal = { 0, 1 } } }, "rig: ground.normal: expected {x, y, z}")
  end)

  it("checks keyed values and transform functions per frame", function()
    local bad = rig{ colliders = { { mesh = plate(-0.5), transform = function(f) return f > 2 and { 1 } or IDENTITY end } } }
    local r = tauform.rig.load(bad)
    local sim <close> = r:create()
    r:apply(sim, 2)
    raises(function() r:apply(sim, 3) end, "frame 3: colliders[1].transform: the function returned a bad matrix")
    local neg = tauform.rig.load(rig{ colliders = { { mesh = plate(-0.5), friction = function(f) return f > 2 and -1 or 0.5 end } } })
    local s2 <close> = neg:create()
    raises(function() neg:apply(s2, 3) end, "rig: frame 3: colliders[1]: ")
    local g = tauform.rig.load(rig{ ground = { height = function(f) return f > 2 and "up" or 0 end } })
    local s3 <close> = g:create()
    raises(function() g:apply(s3, 3) end, "ground.height: the function returned string \"up\", expected a number")
  end)
end)

describe("self-contact", function()
  -- two 0.4 m sheets in one mesh: a flat one and an upright one through its middle
  local function crossed()
    local a = tauform.mesh.grid{ width = 0.4, height = 0.4, nx = 8, ny = 8, origin = { -0.2, -0.2, 0.3 } }
    local b = tauform.mesh.grid{ width = 0.4, height = 0.3, nx = 8, ny = 6, origin = { -0.175, 0.0125, 0.125 },
                                 u = { 1, 0, 0 }, v = { 0, 0, 1 } }
    local v, t, n = {}, {}, #a.vertices // 3
    for _, x in ipairs(a.vertices) do v[#v + 1] = x end
    for _, x in ipairs(b.vertices) do v[#v + 1] = x end
    for _, i in ipairs(a.triangles) do t[#t + 1] = i end
    for _, i in ipairs(b.triangles) do t[#t + 1] = i + n end
    return { vertices = v, triangles = t }, n
  end

  it("lists a start that crosses itself, 1-based, each edge through the other sheet", function()
    local m, n = crossed()
    local sim <close> = tauform.cloth(m)
    local list = sim:self_intersections()
    assert.is_true(#list > 0)
    local ntri_a = 8 * 8 * 2
    for _, c in ipairs(list) do
      local edge_in_a, tri_in_a = c[1] <= n and c[2] <= n, c[3] <= ntri_a
      assert.are_not.equal(edge_in_a, tri_in_a)
    end
  end)

  it("takes a per-vertex opt-out map of 0 and 1, checked entry by entry", function()
    local sim <close> = sheet(0.3)
    local map = {}
    for i = 1, 81 do map[i] = i <= 9 and 0 or 1 end
    sim:set{ self_contact = 1 }
    sim:set{ self_contact = map }
    assert.are.equal(1, sim:get("self_contact"))
    map[7] = 2
    raises(function() sim:set{ self_contact = map } end, "'self_contact'[7]")
    raises(function() sim:set{ self_contact = { 1, 0 } } end, "'self_contact' map must have one value per vertex")
  end)

  it("is a rig's contact.self, with self_exclude naming vertex groups", function()
    local m = tauform.mesh.grid{ width = 0.5, height = 0.5, nx = 8, ny = 8, origin = { -0.25, -0.25, 0.3 } }
    local spec = { mesh = m, frames = { 1, 4 }, contact = { self = 1, self_exclude = { "row0" } } }
    local r = tauform.rig.load(spec)
    local sim <close> = r:create()
    assert.are.equal(1, sim:get("self_contact"))
    for f = 2, 4 do r:apply(sim, f); assert.is_true(sim:advance(1 / 24, 1)) end
    spec.contact.self_exclude = { "collar" }
    raises(function() tauform.rig.load(spec):create() end, "contact.self_exclude[1]: no vertex group 'collar'")
    spec.contact = { self = 1, exclude = { "row0" } }
    raises(function() tauform.rig.load(spec) end, "contact.exclude")
  end)
end)

describe("tauform.mesh.merge", function()
  it("makes one mesh of layered pieces that self-contact keeps apart", function()
    local lower = tauform.mesh.grid{ width = 0.4, height = 0.4, nx = 6, ny = 6, origin = { -0.2, -0.2, 0.0024 } }
    local upper = tauform.mesh.grid{ width = 0.4, height = 0.4, nx = 6, ny = 6, origin = { -0.2, -0.2, 0.06 } }
    local m = tauform.mesh.merge({ lower, upper }, { "shirt", "jacket" })
    assert.are.equal(2 * 49 * 3, #m.vertices)
    assert.are.equal(2 * 72 * 3, #m.triangles)
    assert.are.same({ 50, 51, 52, 53, 54, 55, 56 }, m.groups["jacket.row0"])
    assert.are.equal(49, #m.groups.shirt)
    -- nested input is accepted too
    local nested = tauform.mesh.merge{ { vertices = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }, triangles = { { 1, 2, 3 } } }, lower }
    assert.are.same({ 0, 0, 0, 1, 0, 0, 0, 1, 0 }, { table.unpack(nested.vertices, 1, 9) })
    assert.are.same({ lower.triangles[1] + 3, lower.triangles[2] + 3, lower.triangles[3] + 3 }, { table.unpack(nested.triangles, 4, 6) })
    raises(function() tauform.mesh.merge({ lower, upper }, { "a", "a" }) end, "two pieces named 'a'")
    raises(function() tauform.mesh.merge({ lower, 3 }) end, "meshes[2] is not a mesh")
    -- the upper sheet falls on the lower, which lies on the floor: with self-contact it stays above
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = 0.2, stretch = 2000,
                                       tau = 0.2, thickness = 0.003 }
    sim:set{ ground_normal = { 0, 0, 1 }, ground_height = 0, self_contact = 1 }
    for _ = 1, 24 do assert.is_true(sim:advance(1 / 24)) end
    local x = sim:positions()
    for i = 50, 98 do assert.is_true(x[3 * i] > x[3 * (i - 49)] + 0.002) end
    assert.are.equal(0, #sim:self_intersections())
  end)
end)

describe("each piece its own fabric (material.stretch map, 1.15)", function()
  -- two strips hanging side by side from their top rows, one mesh of two pieces
  local function strips()
    local a = tauform.mesh.grid{ width = 0.2, height = 0.5, nx = 4, ny = 10, origin = { 0, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
    local b = tauform.mesh.grid{ width = 0.2, height = 0.5, nx = 4, ny = 10, origin = { 0.5, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
    return tauform.mesh.merge({ a, b }, { "shirt", "jacket" })
  end
  -- how far the bottom row of the strip starting at vertex off + 1 hangs below its rest length
  local function drop(x, off)
    local z = 0
    for i = 1, 5 do z = z + x[3 * (off + 50 + i)] end
    return -z / 5 - 0.5
  end

  it("is sim:set{ stretch = per-vertex map }: the stiff piece stretches a quarter as far", function()
    local m = strips()
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, tau = 0.05, stretch = 200 }
    local map = {}
    for i = 1, 110 do map[i] = i <= 55 and 200 or 800 end
    sim:set{ stretch = map }
    assert.is_true(math.abs(sim:get("stretch") - 500) < 1e-9) -- the map's mean
    local pins = {}
    for _, i in ipairs(m.groups["shirt.row0"]) do pins[#pins + 1] = i end
    for _, i in ipairs(m.groups["jacket.row0"]) do pins[#pins + 1] = i end
    sim:pin(pins)
    for _ = 1, 24 do assert.is_true(sim:advance(1 / 24)) end
    local x = sim:positions()
    local ratio = drop(x, 0) / drop(x, 55)
    assert.is_true(ratio > 3.9 and ratio < 4.1, "ratio " .. ratio)
    map[7] = 0
    raises(function() sim:set{ stretch = map } end, "'stretch'[7]")
    raises(function() sim:set{ stretch = { 1, 2 } } end, "'stretch' map must have one value per vertex")
  end)

  it("is a rig's material.stretch = { value, groups }, checked when the rig loads", function()
    local m = strips()
    local spec = { mesh = m, tau = 0.05, frames = { 1, 24 },
                   material = { stretch = { value = 200, groups = { jacket = 800 } } },
                   pins = { { group = "shirt.row0" }, { group = "jacket.row0" } } }
    local r = tauform.rig.load(spec)
    local sim <close> = r:create()
    for f = 2, 24 do r:apply(sim, f); assert.is_true(sim:advance(1 / 24, 1)) end
    local x = sim:positions()
    local ratio = drop(x, 0) / drop(x, 55)
    assert.is_true(ratio > 3.9 and ratio < 4.1, "ratio " .. ratio)
    spec.material.stretch = { value = 200, groups = { jaket = 800 } }
    raises(function() tauform.rig.load(spec) end, "material.stretch.groups: no vertex group 'jaket'")
    spec.material.stretch = { value = 200, groups = { jacket = -1 } }
    raises(function() tauform.rig.load(spec) end, "material.stretch.groups.jacket: must be in (0, 1e+09] N/m, got -1")
    spec.material.stretch = { value = 200, groups = { jacket = tauform.key{ { 1, 100 }, { 9, 200 } } } }
    raises(function() tauform.rig.load(spec) end, "material.stretch.groups.jacket: expected a number, got a keyframe curve")
    spec.material.stretch = { valeu = 200 }
    raises(function() tauform.rig.load(spec) end, "material.stretch.valeu: unknown field (did you mean 'value'?)")
  end)
end)
