-- SPDX-License-Identifier: MIT
-- Settle time from Lua and rigs: a rig may ask for seconds to settle instead of tau, and
-- measure_settle reports what a run achieved.
local tauform = require "tauform"

describe("settle time", function()
  local function hanging(extra)
    local m = tauform.mesh.grid{ width = 1, height = 1, nx = 10, ny = 10, origin = { 0, 0, 1 }, u = { 1, 0, 0 }, v = { 0, 0, -1 } }
    local r = { mesh = m, fps = 24, frames = { 1, 72 }, material = { stretch = 1000 }, bend = 1e-4,
                pins = { { group = "row0" } } }
    for k, v in pairs(extra or {}) do r[k] = v end
    return r
  end

  it("gives tau and the slowest mode from the simulation", function()
    local rig = tauform.rig.load(hanging{ tau = 1 })
    local sim <close> = rig:create()
    local tau, lambda = sim:settle_tau(1.5, 1 / 24)
    -- a hanging sheet's slowest mode is its swing: lambda ~ 1.5 g / L
    assert.is_true(math.abs(lambda - 14.1) < 0.5, tostring(lambda))
    assert.is_true(math.abs(tau - (100 ^ ((1 / 24) / 1.5) - 1) / ((1 / 24) * lambda)) < 1e-12)
  end)

  it("lets a rig ask for seconds instead of tau, and measures what it got", function()
    local rig = tauform.rig.load(hanging{ settle = 1.5 })
    local sim <close> = rig:create()
    local eq, t, d = nil, {}, {}
    -- equilibrium first (quasi-static), then a 30 degree swing released under the rig's tau
    sim:set{ tau = 50 }
    for _ = 1, 40 do sim:advance(1 / 24) end
    eq = sim:positions()
    rig:apply(sim, 1)
    local tau = sim:get("tau")
    local x, c, s = {}, math.cos(math.pi / 6), math.sin(math.pi / 6)
    for i = 1, #eq, 3 do
      local y, z = eq[i + 1], eq[i + 2] - 1
      x[i], x[i + 1], x[i + 2] = eq[i], c * y - s * z, 1 + s * y + c * z
    end
    sim:set_state(x)
    local function dist(p)
      local acc = 0
      for i = 1, #p do acc = acc + (p[i] - eq[i]) ^ 2 end
      return math.sqrt(acc)
    end
    t[1], d[1] = 0, dist(x)
    for k = 1, 96 do
      sim:advance(1 / 24)
      t[k + 1], d[k + 1] = k / 24, dist(sim:positions(x))
    end
    local rep = tauform.measure_settle(t, d, rig.lambda, 1 / 24)
    print(("\nrig settle 1.5 s -> tau %.4f s; achieved %.3f s, effective tau %.4f s"):format(tau, rep.settle_time, rep.tau))
    assert.is_true(math.abs(rep.settle_time - 1.5) < 0.15 * 1.5)
    assert.is_true(math.abs(rep.tau - tau) < 0.05 * tau)
  end)

  it("finds the hanging mode from a sheet that starts flat", function()
    local m = tauform.mesh.grid{ width = 1, height = 1, nx = 10, ny = 10 } -- horizontal
    local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, stretch = 1000, bend = 1e-4 }
    sim:pin(m.groups.row0)
    local tau, lambda = sim:settle_tau(1.5, 1 / 24)
    assert.is_true(math.abs(lambda - 14.1) < 0.5, tostring(lambda))
    assert.is_true(tau > 0.2 and tau < 0.3)
  end)

  it("refuses tau and settle together, and a settle shorter than a step", function()
    assert.has_error(function() tauform.rig.load(hanging{ tau = 1, settle = 1 }) end, "rig: give either 'tau' or 'settle', not both")
    local rig = tauform.rig.load(hanging{ settle = 0.01 })
    assert.has_error(function() rig:create() end)
  end)
end)
