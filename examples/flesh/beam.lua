-- SPDX-License-Identifier: MIT
-- Locking, measured (issue 20): a clamped beam 1 m x 0.1 m x 0.1 m of Kuhn-cut cubes, E = 100 MPa,
-- rho = 1000 kg/m^3, sagging under gravity, for both tet elements and 1..8 tets across. Writes
-- beam.svg (sag against resolution for three Poisson ratios, and the first bending frequency) and
-- prints the table behind it with each solve's cost.
--   LUA_PATH='lua/?.lua;;' LUA_CPATH='build/lua/?.so;;' lua5.4 examples/flesh/beam.lua [--quick]
-- --quick stops at 4 across (the linear tet at 8 across, 30720 tets, takes most of the time).
local tauform = require "tauform"
local plot = require "tauform.plot"

local E, RHO, G, L, H = 1e8, 1000, 9.81, 1.0, 0.1
local EB = RHO * G * L ^ 4 * 12 / (8 * E * H * H) -- Euler-Bernoulli tip sag, m
local F1 = 3.516 * math.sqrt(E * H ^ 4 / 12 / (RHO * H * H * L ^ 4)) / (2 * math.pi)
local quick = arg and arg[1] == "--quick"
local here = (arg and arg[0] or ""):match("^(.*)/") or "."

-- the beam's lattice: (10 n) x n x n cubes of six Kuhn tets; returns vertices, tets, clamp, tip
local KUHN = { { 0, 1, 3, 7 }, { 0, 1, 5, 7 }, { 0, 2, 3, 7 }, { 0, 2, 6, 7 }, { 0, 4, 5, 7 }, { 0, 4, 6, 7 } }
local function beam_mesh(n)
  local nx, h = 10 * n, H / n
  local v, t, clamp, tip = {}, {}, {}, {}
  local function id(i, j, k) return (k * (n + 1) + j) * (nx + 1) + i + 1 end
  for k = 0, n do
    for j = 0, n do
      for i = 0, nx do
        v[#v + 1], v[#v + 2], v[#v + 3] = i * L / nx, j * h, k * h
        if i == 0 then clamp[#clamp + 1] = id(i, j, k) end
        if i == nx then tip[#tip + 1] = id(i, j, k) end
      end
    end
  end
  for k = 0, n - 1 do
    for j = 0, n - 1 do
      for i = 0, nx - 1 do
        for _, q in ipairs(KUHN) do
          for _, c in ipairs(q) do
            t[#t + 1] = id(i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1))
          end
        end
      end
    end
  end
  return v, t, clamp, tip
end

local function make(n, element, nu, kappa, tau)
  local v, t, clamp, tip = beam_mesh(n)
  local sim = tauform.flesh{ vertices = v, tets = t, element = element, youngs = E, poisson = nu, density = RHO,
                             tau = tau, kappa = kappa,
                             solver = { max_newton = 50, tolerance = 1e-6, abs_tolerance = 1e-10 } }
  sim:pin(clamp)
  return sim, tip, v
end

local function tip_z(sim, tip, rest)
  local x, z = sim:positions(), 0
  for _, i in ipairs(tip) do z = z + x[3 * i] - rest[3 * i] end
  return z / #tip
end

-- the static sag: tau far above the step, so each step lands on the equilibrium
local function sag(n, element, nu)
  local sim, tip, rest = make(n, element, nu, 0, 1e4)
  local t0, last, z = os.clock(), 0, 0
  for f = 1, 40 do
    assert(sim:advance(1.0, 1))
    z = tip_z(sim, tip, rest)
    if f > 1 and math.abs(z - last) < 1e-6 * math.abs(z) then break end
    last = z
  end
  local info = sim:info()
  sim:close()
  return -z, os.clock() - t0, info
end

-- the first bending frequency: kappa = 1, let go straight under gravity, upward crossings of the
-- tip's mean; also the cost of a dynamic step
local function frequency(n, element)
  local sim, tip, rest = make(n, element, 0.3, 1, 0.1)
  local dt, z = 1 / 200, {}
  local t0 = os.clock()
  for k = 1, 124 do
    assert(sim:advance(dt, 1))
    z[k] = tip_z(sim, tip, rest)
  end
  local ms = 1e3 * (os.clock() - t0) / #z
  sim:close()
  local mean = 0
  for _, v in ipairs(z) do mean = mean + v / #z end
  local first, last, count = nil, nil, 0
  for k = 2, #z do
    if z[k - 1] < mean and z[k] >= mean then
      local t = dt * (k - 1 + (mean - z[k - 1]) / (z[k] - z[k - 1]))
      first, last, count = first or t, t, count + 1
    end
  end
  return (count - 1) / (last - first), ms
end

local NUS = { 0.3, 0.45, 0.49 }
local ACROSS = quick and { 1, 2, 4 } or { 1, 2, 4, 8 }
local COLORS = { linear = { "#1f77b4", "#2ca02c", "#d62728" }, quadratic = { "#1f77b4", "#2ca02c", "#d62728" } }
local series, rows = {}, {}
print(("Euler-Bernoulli sag %.2f mm, first frequency %.3f Hz"):format(1e3 * EB, F1))
print("| element | across | tets | nodes | nu | sag / EB | static solve s |")
print("|---|---|---|---|---|---|---|")
for _, element in ipairs({ "linear", "quadratic" }) do
  for k, nu in ipairs(NUS) do
    local xs, ys = {}, {}
    for _, n in ipairs(ACROSS) do
      if not (element == "quadratic" and n > 4) then -- 8 across quadratic: 230k nodes, not needed
        local s, secs, info = sag(n, element, nu)
        xs[#xs + 1], ys[#ys + 1] = n, s / EB
        print(("| %s | %d | %d | %d | %.2f | %.4f | %.2f |"):format(element, n, info.tets, info.nodes, nu, s / EB, secs))
        rows[#rows + 1] = { element, n, nu, s / EB, secs }
      end
    end
    series[#series + 1] = { x = xs, y = ys, label = ("%s, nu %.2f"):format(element, nu), color = COLORS[element][k],
                            dash = element == "linear" and "6 3" or nil }
  end
end
local fx, fy = { linear = {}, quadratic = {} }, { linear = {}, quadratic = {} }
print("\n| element | across | first frequency Hz | / beam theory | ms per dynamic step |")
print("|---|---|---|---|---|")
for _, element in ipairs({ "linear", "quadratic" }) do
  for _, n in ipairs({ 1, 2, 4 }) do
    if not (quick and n == 4 and element == "quadratic") then
      local f, ms = frequency(n, element)
      fx[element][#fx[element] + 1], fy[element][#fy[element] + 1] = n, f / F1
      print(("| %s | %d | %.3f | %.4f | %.1f |"):format(element, n, f, f / F1, ms))
    end
  end
end
plot.figure{ path = here .. "/beam.svg", panel_width = 480, panel_height = 360, panels = {
  { title = "Clamped beam: tip sag / Euler-Bernoulli", xlabel = "tets across the thickness", ylabel = "sag / wL^4/(8EI)",
    ymin = 0, ymax = 1.7, series = series },
  { title = "First bending frequency / 3.516 sqrt(EI/rhoAL^4)/2pi", xlabel = "tets across the thickness",
    ylabel = "f / f1 (nu 0.3)", ymin = 0, ymax = 2.4,
    series = { { x = fx.linear, y = fy.linear, label = "linear", color = "#1f77b4", dash = "6 3" },
               { x = fx.quadratic, y = fy.quadratic, label = "quadratic", color = "#d62728" } } },
} }
print("wrote " .. here .. "/beam.svg")
