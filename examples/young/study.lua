-- SPDX-License-Identifier: MIT
-- The thesis's results, re-run: Young 2007 Examples 1 and 2 with the new (tau) method at the
-- thesis's tau values and the traditional strain-rate method with the phi, psi of Table 4.2
-- (computed by the library and printed beside the thesis's), d1 = |x - p| and d2 = max_i |x_i - p_i|
-- over time as CSV and SVG figures laid out like Figures 4.3 and 4.4, and rest time against tau
-- and dt for both methods.
--   lua5.4 examples/young/study.lua [--out DIR]        (default young_study/)
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
dofile(root .. "/examples/checkout.lua")(root)
local tauform = require "tauform"
local plot = tauform.plot

local out = "young_study"
for i = 1, #arg do if arg[i] == "--out" then out = arg[i + 1] end end
os.execute(("mkdir -p '%s'"):format(out))

local ex = { dofile(here .. "/example1.lua"), dofile(here .. "/example2.lua") }
-- Table 4.1: time step and length of each example; Table 4.2: the thesis's wavelengths and values
local SETUP = {
  { name = "Example 1", dt = 0.01, T = 5, taus = { 1, 4 }, lambda = 3, mu = 1, rho = 1,
    waves = { { 1, 0.053134, 0.22508 }, { 2, 0.10627, 0.45016 }, { 4, 0.21254, 0.90032 } } },
  { name = "Example 2", dt = 0.05, T = 5, taus = { 0.33, 1, 2 }, lambda = 2, mu = 0.5, rho = 0.1,
    waves = { { 1, 0.022622, 0.050329 }, { 8, 0.18098, 0.40263 }, { 16, 0.36196, 0.80527 } } },
}

-- d1, d2 over time; rest = the time after which d1 stays below 1 % of its start (nil: never)
local function run(spec, o)
  local m, mat = spec.mesh, spec.material
  local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, masses = mat.masses,
    stretch = mat.stretch, poisson = mat.poisson, bend = 0, gravity = { 0, 0, 0 }, tau = o.tau or 1,
    integrator = o.integrator or "tau", phi = o.phi, psi = o.psi, solver = spec.solver }
  sim:pin(m.groups.bottom)
  spec.setup(sim)
  local p, n = m.vertices, #m.vertices // 3
  local function dist(x)
    local s, mx = 0, 0
    for i = 1, n do
      local a = (x[3 * i - 2] - p[3 * i - 2]) ^ 2 + (x[3 * i - 1] - p[3 * i - 1]) ^ 2 + (x[3 * i] - p[3 * i]) ^ 2
      s = s + a
      mx = math.max(mx, math.sqrt(a))
    end
    return math.sqrt(s), mx
  end
  local x = sim:positions()
  local t, d1, d2 = { 0 }, {}, {}
  d1[1], d2[1] = dist(x)
  local last_above, stable = 0, true
  local steps = math.floor(o.T / o.dt + 0.5)
  for k = 1, steps do
    if not sim:advance(o.dt) then stable = false; break end
    sim:positions(x)
    t[k + 1] = k * o.dt
    d1[k + 1], d2[k + 1] = dist(x)
    if d1[k + 1] >= 0.01 * d1[1] then last_above = t[k + 1] end
  end
  local rest = stable and last_above < o.T and (last_above + o.dt) or nil
  return { t = t, d1 = d1, d2 = d2, rest = rest, stable = stable }
end

local md = { "# Young 2007, Examples 1 and 2, re-run with tauform " .. tauform.version, "" }
local function line(s) md[#md + 1] = s; print(s) end

line("## Table 4.2: critical strain-rate damping (phi, psi) for wavelength Lambda")
line("")
line("| Example | Lambda | phi (tauform) | phi (thesis) | psi (tauform) | psi (thesis) |")
line("|---|---|---|---|---|---|")
for e, S in ipairs(SETUP) do
  S.phipsi = {}
  for _, w in ipairs(S.waves) do
    local phi, psi = tauform.critical_damping(S.lambda, S.mu, S.rho, w[1])
    S.phipsi[#S.phipsi + 1] = { w[1], phi, psi }
    line(("| %d | %g | %.5g | %.5g | %.5g | %.5g |"):format(e, w[1], phi, w[2], psi, w[3]))
  end
end

for e, S in ipairs(SETUP) do
  local spec = ex[e]
  local new, old = {}, {}
  for _, tau in ipairs(S.taus) do new[#new + 1] = { tau = tau, r = run(spec, { tau = tau, dt = S.dt, T = S.T }) } end
  for _, w in ipairs(S.phipsi) do
    old[#old + 1] = { wave = w[1], r = run(spec, { integrator = "strain_rate", phi = w[2], psi = w[3], dt = S.dt, T = S.T }) }
  end
  -- CSV and a figure laid out like Figures 4.3 / 4.4: (a) new method, (b) traditional method
  local cols, sa, sb = { { "time_s", new[1].r.t } }, {}, {}
  for _, c in ipairs(new) do
    cols[#cols + 1] = { ("tau%g_d1"):format(c.tau), c.r.d1 }
    cols[#cols + 1] = { ("tau%g_d2"):format(c.tau), c.r.d2 }
    sa[#sa + 1] = { x = c.r.t, y = c.r.d2, label = ("tau = %g, d2"):format(c.tau), dash = "6 3" }
    sa[#sa + 1] = { x = c.r.t, y = c.r.d1, label = ("tau = %g, d1"):format(c.tau) }
  end
  for _, c in ipairs(old) do
    cols[#cols + 1] = { ("lambda%g_d1"):format(c.wave), c.r.d1 }
    cols[#cols + 1] = { ("lambda%g_d2"):format(c.wave), c.r.d2 }
    sb[#sb + 1] = { x = c.r.t, y = c.r.d2, label = ("Lambda = %g, d2"):format(c.wave), dash = "6 3" }
    sb[#sb + 1] = { x = c.r.t, y = c.r.d1, label = ("Lambda = %g, d1"):format(c.wave) }
  end
  -- pair colours: d1 and d2 of one run share a colour
  for _, s in ipairs({ sa, sb }) do
    for k = 1, #s do s[k].color = ({ "#1f77b4", "#d62728", "#2ca02c" })[(k + 1) // 2] end
  end
  local base = ("%s/example%d"):format(out, e)
  plot.csv(base .. ".csv", cols)
  -- both panels on the new method's scale (an unstable traditional run is drawn at the top edge)
  local top = 0
  for _, c in ipairs(new) do top = math.max(top, c.r.d1[1], c.r.d2[1]) end
  plot.figure{ path = base .. ".svg", panels = {
    { title = "(a) New method", xlabel = "time (s)", ylabel = "d1, d2", xmin = 0, xmax = S.T, ymax = 1.1 * top, series = sa },
    { title = "(b) Traditional method", xlabel = "time (s)", ylabel = "d1, d2", xmin = 0, xmax = S.T, ymax = 1.1 * top,
      series = sb } } }
  line("")
  line(("## %s: rest time (d1 below 1 %% of its start for good), dt = %g s"):format(S.name, S.dt))
  line("")
  line("| run | rest time (s) |")
  line("|---|---|")
  for _, c in ipairs(new) do line(("| tau = %g | %s |"):format(c.tau, c.r.rest and ("%.3f"):format(c.r.rest) or "> " .. S.T)) end
  for _, c in ipairs(old) do
    line(("| traditional, Lambda = %g | %s |"):format(c.wave, c.r.stable and (c.r.rest and ("%.3f"):format(c.r.rest) or "> " .. S.T) or "unstable"))
  end
  print(("\nwrote %s.csv and %s.svg"):format(base, base))
end

-- sweeps on Example 1: the 1/tau law and dt independence of the new method; the traditional
-- method (Lambda = 2) against dt
local spec, S = ex[1], SETUP[1]
local dts = { 0.0025, 0.005, 0.01, 0.02, 0.04 }
line("")
line("## Example 1: rest time (s) against tau and dt")
line("")
local hdr = { "| method |" }
for _, dt in ipairs(dts) do hdr[#hdr + 1] = (" dt = %g |"):format(dt) end
line(table.concat(hdr))
line("|---|" .. ("---|"):rep(#dts))
for _, tau in ipairs({ 0.5, 1, 2, 4 }) do
  local row = { ("| tau = %g |"):format(tau) }
  for _, dt in ipairs(dts) do
    local r = run(spec, { tau = tau, dt = dt, T = 12 / tau })
    row[#row + 1] = (" %s |"):format(r.rest and ("%.3f"):format(r.rest) or "-")
  end
  line(table.concat(row))
end
for _, w in ipairs(S.phipsi) do
  local row = { ("| traditional, Lambda = %g |"):format(w[1]) }
  for _, dt in ipairs(dts) do
    local r = run(spec, { integrator = "strain_rate", phi = w[2], psi = w[3], dt = dt, T = 40 })
    row[#row + 1] = (" %s |"):format(not r.stable and "unstable" or (r.rest and ("%.3f"):format(r.rest) or "> 40"))
  end
  line(table.concat(row))
end

local f = assert(io.open(out .. "/study.md", "w"))
f:write(table.concat(md, "\n"), "\n")
f:close()
print("\nwrote " .. out .. "/study.md")
