-- SPDX-License-Identifier: MIT
-- Tearing from Lua and rigs: tear_strain (uniform or one value per vertex) through sim:set, the
-- topology a torn sim reports (topology, origins, parents, vert_count, triangles), a rig's tear
-- table with a weak seam group, the runner's OBJ sequence whose vertex count grows, and the caches
-- and fields a tearing rig cannot have, refused by name.
local tauform = require "tauform"
local support = require "support"

-- a 1 m square in the x-y plane, 12 x 12 cells, its middle row weak (the group "seam")
local function square()
  local m = tauform.mesh.grid{ width = 1, height = 1, nx = 12, ny = 12, u = { 1, 0, 0 }, v = { 0, 1, 0 } }
  local seam = {}
  for i = 1, 13 do seam[i] = 6 * 13 + i end
  m.groups.seam = seam
  return m
end

-- the rig: bottom row held, top row pulled 10 cm up over a second
local function pull_rig(extra)
  local spec = { mesh = square(), material = { stretch = 200 }, gravity = { 0, 0, 0 }, tau = 2,
                 frames = { 1, 30 }, substeps = 2, tear = { strain = 0.5, groups = { seam = 0.03 } },
                 pins = { { group = "row0" },
                          { group = "rowN", translate = tauform.key{ { 1, { 0, 0, 0 } }, { 24, { 0, 0.1, 0 } } } } } }
  for k, v in pairs(extra or {}) do spec[k] = v end
  return tauform.rig.load(spec)
end

describe("tearing", function()
  it("splits a sim along its weak row and reports the new topology", function()
    local m = square()
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, stretch = 200,
                                       gravity = { 0, 0, 0 }, tau = 2 }
    local map = {}
    for i = 1, 169 do map[i] = 0.5 end
    for _, i in ipairs(m.groups.seam) do map[i] = 0.03 end
    sim:set{ tear_strain = map }
    local top = m.groups.rowN
    local bottom = m.groups.row0
    local pins = {}
    for _, i in ipairs(bottom) do pins[#pins + 1] = i end
    for _, i in ipairs(top) do pins[#pins + 1] = i end
    sim:pin(pins)
    local rest, targets = m.vertices, {}
    for k, i in ipairs(pins) do
      targets[3 * k - 2], targets[3 * k - 1], targets[3 * k] = rest[3 * i - 2], rest[3 * i - 1], rest[3 * i]
    end
    for f = 1, 30 do
      local s = math.min(f / 24, 1)
      for k = 14, 26 do targets[3 * k - 1] = 1 + 0.1 * s end
      sim:pin_targets(targets)
      assert(sim:advance(1 / 24, 2))
    end
    local t = sim:topology()
    assert.are.equal(169 + 13, t.vertices)
    assert.are.equal(169 + 13, sim:vert_count())
    assert.are.equal(169, t.original_vertices)
    assert.are.equal(288, t.triangles)
    assert.is_true(t.serial >= 1 and t.torn_edges >= 12)
    local origin, parent = sim:origins(), sim:parents()
    for i = 170, t.vertices do
      assert.is_true(origin[i] >= 79 and origin[i] <= 91, ("vertex %d from %d, not the seam"):format(i, origin[i]))
      assert.is_true(parent[i] < i and origin[parent[i]] == origin[i])
    end
    assert.are.equal(3 * t.vertices, #sim:positions())
    -- a per-vertex table must now have the new count
    local ok, err = pcall(sim.set, sim, { tear_strain = map })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("one value per vertex", 1, true), tostring(err))
  end)

  it("tears a rig along its seam group and writes an OBJ sequence that grows", function()
    local dir = support.tmpname("")
    os.execute("mkdir -p " .. dir)
    local res = assert(tauform.run(pull_rig(), { out = dir .. "/sheet.obj", progress = false }))
    local function verts(frame)
      local n = 0
      for line in io.lines(("%s/sheet_%04d.obj"):format(dir, frame)) do
        if line:sub(1, 2) == "v " then n = n + 1 end
      end
      return n
    end
    assert.are.equal(169, verts(1))
    assert.are.equal(182, verts(30))
    assert.is_truthy(res)
    os.execute("rm -rf " .. dir)
  end)

  it("refuses a PC2 cache, checkpoints, flesh and a misspelt field by name", function()
    local ok, err = pcall(tauform.run, pull_rig(), { out = support.tmpname(".pc2"), progress = false })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("tears", 1, true) and tostring(err):find("OBJ", 1, true), tostring(err))
    ok, err = pcall(tauform.run, pull_rig(), { out = support.tmpname(".obj"), checkpoint_every = 5, progress = false })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("checkpoints of a tearing rig", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, { flesh = { cells = 2 }, tear = { strain = 0.3 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("flesh does not tear", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, { mesh = square(), tear = { strian = 0.3 } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("tear.strian", 1, true), tostring(err))
    ok, err = pcall(tauform.rig.load, { mesh = square(), tear = { strain = 0.3, groups = { sean = 0.1 } } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("tear.groups", 1, true), tostring(err))
    local rig = pull_rig{ tear = { strain = -1 } }
    ok, err = pcall(rig.create, rig)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("tear_strain", 1, true), tostring(err))
  end)
end)
