-- SPDX-License-Identifier: MIT
-- Threads from Lua: solver.threads on the constructors and in rigs, tauform.run's threads option;
-- the result is bitwise the same for every count, and a bad count is refused by name.
local tauform = require "tauform"

-- a 40 x 40 sheet pinned along its top row, swinging: flat positions after `frames`
local function swing(threads, frames)
  local m = tauform.mesh.grid{ width = 1, height = 1, nx = 40, ny = 40, origin = { 0, 0, 1 },
                               u = { 1, 0, 0 }, v = { 0, 0.64, -0.77 } }
  local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = 0.2,
                                     stretch = 2000, tau = 0.3, solver = { threads = threads } }
  sim:pin(m.groups.row0)
  for _ = 1, frames do assert(sim:advance(1 / 24, 1)) end
  return sim:positions(), sim:stats().threads
end

describe("threads", function()
  it("give bitwise the same positions for 1, 2 and 3 threads", function()
    local one, t1 = swing(1, 4)
    local two, t2 = swing(2, 4)
    local three, t3 = swing(3, 4)
    assert.are.equal(1, t1)
    assert.are.equal(2, t2)
    assert.are.equal(3, t3)
    -- the sheet moved (equal positions of a sheet at rest would prove nothing)
    assert.is_true(math.abs(one[#one - 1] - 0.64) > 0.01)
    for i = 1, #one do
      if one[i] ~= two[i] or one[i] ~= three[i] then
        error(("coordinate %d: %.17g (1 thread), %.17g (2), %.17g (3)"):format(i, one[i], two[i], three[i]))
      end
    end
  end)

  it("default to every core on a large sheet, one thread on a small one", function()
    local p = io.popen("nproc 2>/dev/null")
    local cores = p and tonumber(p:read("l")) or 1
    if p then p:close() end
    local _, t = swing(0, 0) -- 1681 vertices: ~15k Hessian blocks, room for 3 or 4 threads
    assert.is_true(t >= math.min(cores, 2) and t <= cores, ("%d threads on %d cores"):format(t, cores))
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles }
    assert.are.equal(1, sim:stats().threads)
    -- an explicit count is taken as it is, however small the mesh
    local sim3 <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, solver = { threads = 3 } }
    assert.are.equal(3, sim3:stats().threads)
  end)

  it("refuse a bad count by name", function()
    local m = tauform.mesh.grid{ nx = 2, ny = 2 }
    for _, bad in ipairs({ 257, -1, 1.5 }) do
      local ok, err = pcall(tauform.cloth, { vertices = m.vertices, triangles = m.triangles, solver = { threads = bad } })
      assert.is_false(ok)
      assert.truthy(tostring(err):find("solver.threads", 1, true), tostring(err))
    end
    local ok, err = pcall(tauform.run, "examples/cape/cape.lua", { frames = "1-2", threads = 300, progress = false })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("threads", 1, true), tostring(err))
  end)

  it("reach a rig through tauform.run, with the same cache", function()
    local caches = {}
    for _, t in ipairs({ 1, 2 }) do
      local out = os.tmpname() .. ".pc2"
      local res = assert(tauform.run("examples/flag/flag.lua", { frames = "1-6", out = out, threads = t, progress = false,
                                                               rest_obj = false }))
      local f = assert(io.open(out, "rb"))
      caches[t] = f:read("a")
      f:close()
      os.remove(out)
      assert.are.equal(6, res.frames)
    end
    assert.is_true(#caches[1] > 1000)
    assert.is_true(caches[1] == caches[2], "the 2-thread cache differs from the 1-thread one")
  end)
end)
