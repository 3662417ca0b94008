-- SPDX-License-Identifier: MIT
-- The binding against hostile sizes and numbers (issue 14, found by fuzzing under ASan/UBSan):
-- a table whose length (#t or __len) is huge must not wrap a size computation into a small
-- buffer, an out-of-range or NaN integer option must not reach a float-to-int conversion, and
-- messages print the index a user gave, not a truncated int. Each case is a Lua error naming the
-- field, and a simulation the failing call was made on is left as it was. Run under .ci/lua-sanitize
-- these also catch the memory errors themselves; in a release build the messages tell.
local tauform = require "tauform"
local core = tauform.core

-- lengths that wrapped or overflowed a size: 2^62 (times 8, 16 or 24 bytes is 0 mod 2^64), the
-- largest integer, 2^31 (negative as an int), 2^32 + 3 (above the ABI's uint32_t counts), and -1
local HUGE = { 2 ^ 62, math.maxinteger, 2 ^ 31, 2 ^ 32 + 3, -1 }

-- a table with `first` as its only entry whose __len claims n
local function lying(n, first)
  return setmetatable({ first }, { __len = function() return n end })
end

-- the message a refused length gives: "field 'what': length n ..." (out of range, or entry n is nil)
local function length_message(what, n)
  return ("field '%s': length %d "):format(what, math.tointeger(n))
end

local function refuses(fn, expected)
  local ok, err = pcall(fn)
  assert.is_false(ok)
  assert.is_truthy(tostring(err):find(expected, 1, true), ("expected %q in: %s"):format(expected, tostring(err)))
end

local function square()
  return tauform.mesh.grid{ width = 1, height = 1, nx = 3, ny = 3, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
end

local function cloth(extra)
  local m = square()
  local def = { vertices = m.vertices, triangles = m.triangles, tau = 0.5 }
  for k, v in pairs(extra or {}) do def[k] = v end
  return core.cloth(def)
end

local TET = { vertices = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, tets = { { 1, 2, 3, 4 } } }
local function flesh(extra)
  local def = { vertices = TET.vertices, tets = TET.tets, youngs = 1e4 }
  for k, v in pairs(extra or {}) do def[k] = v end
  return core.flesh(def)
end

-- a pinned sheet, and what it does over one step: a call that failed must not change it
local function pinned()
  local sim = cloth()
  sim:pin({ 1, 2 })
  return sim
end

local function after_step(sim)
  assert.is_true(sim:advance(1 / 24))
  return sim:positions()
end

local function unchanged(sim)
  local twin <close> = pinned()
  assert.are.same(twin:velocities(), sim:velocities())
  assert.are.same(twin:get("bend"), sim:get("bend"))
  assert.are.same(after_step(twin), after_step(sim))
end

describe("binding safety", function()
  describe("a huge table length is an error naming the field, never a write", function()
    for _, n in ipairs(HUGE) do
      local label = ("%d"):format(math.tointeger(n))

      it("cloth vertices, triangles, masses: " .. label, function()
        local m = square()
        refuses(function() core.cloth{ vertices = lying(n, { 0, 0, 0 }), triangles = m.triangles } end,
                length_message("vertices", n))
        refuses(function() core.cloth{ vertices = m.vertices, triangles = lying(n, { 1, 2, 3 }) } end,
                length_message("triangles", n))
        refuses(function() core.cloth{ vertices = m.vertices, triangles = lying(n, 1) } end,
                length_message("triangles", n))
        refuses(function() core.cloth{ vertices = m.vertices, triangles = m.triangles, masses = lying(n, 1) } end,
                length_message("masses", n))
      end)

      it("pin indices and weights, pin targets: " .. label, function()
        local sim <close> = pinned()
        refuses(function() sim:pin(lying(n, 1)) end, length_message("indices", n))
        refuses(function() sim:pin({ 1, 2 }, lying(n, 1)) end, length_message("weights", n))
        refuses(function() sim:pin_targets(lying(n, { 0, 0, 1 })) end, length_message("targets", n))
        unchanged(sim)
      end)

      it("set_state, the bend map, render_sheet: " .. label, function()
        local sim <close> = pinned()
        refuses(function() sim:set_state(lying(n, { 0, 0, 0 })) end, length_message("positions", n))
        refuses(function() sim:set_state(sim:positions(), lying(n, { 0, 0, 0 })) end, length_message("velocities", n))
        refuses(function() sim:set{ bend = lying(n, 1) } end, length_message("bend", n))
        local path = os.tmpname()
        refuses(function() sim:render_sheet(path, lying(n, sim:positions())) end, length_message("shapes", n))
        os.remove(path)
        unchanged(sim)
      end)

      it("measure_settle times and distances: " .. label, function()
        refuses(function() core.measure_settle(lying(n, 0), lying(n, 1)) end, length_message("times", n))
        refuses(function() core.measure_settle({ 0, 1 }, lying(n, 1)) end, length_message("distances", n))
      end)

      it("flesh vertices, tets, surface, materials, tet_materials: " .. label, function()
        refuses(function() core.flesh{ vertices = lying(n, { 0, 0, 0 }), tets = TET.tets } end, length_message("vertices", n))
        refuses(function() core.flesh{ vertices = TET.vertices, tets = lying(n, { 1, 2, 3, 4 }) } end,
                length_message("tets", n))
        refuses(function() core.flesh{ surface = { vertices = lying(n, { 0, 0, 0 }), triangles = { 1, 2, 3 } } } end,
                length_message("surface.vertices", n))
        refuses(function() core.flesh{ surface = { vertices = TET.vertices, triangles = lying(n, { 1, 2, 3 }) } } end,
                length_message("surface.triangles", n))
        refuses(function() flesh{ materials = lying(n, { youngs = 2e4 }) } end, length_message("materials", n))
        refuses(function() flesh{ tet_materials = lying(n, 0) } end, length_message("tet_materials", n))
      end)
    end

    it("says which: out of the uint32_t range, or a length whose last entry is missing", function()
      refuses(function() core.measure_settle(lying(2 ^ 62, 0), {}) end,
              "field 'times': length 4611686018427387904 is not in 0..4294967295")
      refuses(function() core.measure_settle(lying(-1, 0), {}) end, "field 'times': length -1 is not in 0..4294967295")
      refuses(function() core.measure_settle(lying(2 ^ 31, 0), {}) end,
              "field 'times': length 2147483648 but entry 2147483648 is nil")
    end)

    it("still takes tables whose __len is honest", function()
      local t = setmetatable({ 0, 1, 2 }, { __len = function() return 3 end })
      local d = setmetatable({ 1, 0.5, 0.25 }, { __len = function() return 3 end })
      assert.is_truthy(core.measure_settle(t, d).rate)
    end)
  end)

  describe("an integer option out of range or NaN is an error naming the field and the range", function()
    it("solver.max_newton and solver.max_cg, cloth and flesh", function()
      refuses(function() cloth{ solver = { max_newton = 2 ^ 40 } } end,
              "solver.max_newton must be a whole number in 1..100000, got 1099511627776")
      refuses(function() cloth{ solver = { max_newton = 0 / 0 } } end, "solver.max_newton must be a whole number in 1..100000")
      refuses(function() cloth{ solver = { max_newton = 2.5 } } end, "solver.max_newton must be a whole number in 1..100000, got 2.5")
      refuses(function() cloth{ solver = { max_newton = 0 } } end, "solver.max_newton must be a whole number in 1..100000, got 0")
      refuses(function() cloth{ solver = { max_cg = math.huge } } end, "solver.max_cg must be a whole number in 1..10000000, got inf")
      refuses(function() cloth{ solver = { max_cg = -2 ^ 63 } } end, "solver.max_cg must be a whole number in 1..10000000")
      refuses(function() flesh{ solver = { max_newton = 1e300 } } end, "solver.max_newton must be a whole number in 1..100000")
      refuses(function() flesh{ solver = { max_cg = 0 / 0 } } end, "solver.max_cg must be a whole number in 1..10000000")
      local ok = cloth{ solver = { max_newton = 100000, max_cg = 10000000 } }
      ok:close()
    end)

    it("flesh cells", function()
      local skin = { vertices = TET.vertices, triangles = { 1, 3, 2, 1, 2, 4, 1, 4, 3, 2, 3, 4 } }
      refuses(function() core.flesh{ surface = skin, cells = 1e12 } end, "cells must be a whole number in 2..512, got 1000000000000")
      refuses(function() core.flesh{ surface = skin, cells = 0 / 0 } end, "cells must be a whole number in 2..512")
    end)

    it("render width, height and sheet columns, leaving the sim as it was", function()
      local sim <close> = pinned()
      local path = os.tmpname()
      -- the C binding's checks, beneath the Lua layer's schema (which refuses these first)
      local raw = core.unchecked_methods or sim
      refuses(function() raw.render_png(sim, path, { width = 2 ^ 40 }) end, "width must be a whole number in 1..16384, got 1099511627776")
      refuses(function() raw.render_png(sim, path, { height = 0 / 0 }) end, "height must be a whole number in 1..16384")
      refuses(function() raw.render_sheet(sim, path, { sim:positions() }, { columns = 1e12 }) end,
              "columns must be a whole number in 1..1024, got 1000000000000")
      refuses(function() raw.render_sheet(sim, path, { sim:positions() }, { columns = 0 / 0 }) end,
              "columns must be a whole number in 1..1024")
      os.remove(path)
      unchanged(sim)
    end)
  end)

  describe("messages print the value given", function()
    it("an index of 2^53 or math.mininteger is reported as such, not as 0", function()
      local m = square()
      refuses(function() core.cloth{ vertices = m.vertices, triangles = { { 1, 2, 2 ^ 53 } } } end,
              "triangles: index 9007199254740992 out of range 1..16")
      refuses(function() core.cloth{ vertices = m.vertices, triangles = { 1, 2, math.mininteger } } end,
              "triangles: index -9223372036854775808 out of range 1..16")
      local sim <close> = pinned()
      refuses(function() sim:pin({ 2 ^ 53 }) end, "indices: index 9007199254740992 out of range 1..16")
      unchanged(sim)
      refuses(function() core.flesh{ vertices = TET.vertices, tets = { { 1, 2, 3, 2 ^ 32 + 1 } } } end,
              "tets: index 4294967297 out of range 1..4")
      refuses(function() flesh{ materials = { {} }, tet_materials = { 2 ^ 40 } } end,
              "tet_materials[1] = 1099511627776 but there are 1 materials")
    end)

    it("a non-integer index is reported as not an integer, naming its entry", function()
      local m = square()
      refuses(function() core.cloth{ vertices = m.vertices, triangles = { { 1, 2, 2.5 } } } end,
              "triangles[1][3] is not an integer")
      refuses(function() core.cloth{ vertices = m.vertices, triangles = { 1, 2, 3, 1, 2, 2.5 } } end,
              "triangles: entry 6 is not an integer")
    end)
  end)
end)
