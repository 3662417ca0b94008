-- SPDX-License-Identifier: MIT
-- Palazzi's pushed mesh (1993, figs. 3.11 and 4.9) on the tau step, with the library's response
-- (ABI 1.14, levels/): a 9 x 9 mesh 2 m across, free in space, kicked up at one corner for one
-- frame. All the force on level 0 (the vertices) dents the corner; all on the last level (the
-- mesh as one piece) turns the whole mesh, undeformed; half and half does both. The three side by
-- side as a contact sheet, and the response measured over the mix as plots:
--   (a) the corner's height and the mesh's mean height over time, per mix;
--   (b) the dent: the kicked corner's distance from the plane of the other three corners (a rigid
--       mesh stays flat however it turns), over time;
--   (c) Palazzi's test on a 2 m sheet held at its top (tests/c/test_response.c's scene): that dent
--       at the end of a 0.24 s poke against the global percentage (monotone, 4 % of all-local's
--       at 100 %).
--   lua5.4 examples/palazzi/pushed.lua [--out DIR]      (default palazzi_study/)
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
dofile(root .. "/examples/checkout.lua")(root)
local tauform = require "tauform"
local plot = tauform.plot

local out = "palazzi_study"
for i = 1, #arg do if arg[i] == "--out" then out = arg[i + 1] end end
os.execute(("mkdir -p '%s'"):format(out))

local FPS, FRAMES = 25, 75
local KICK = 2.0 -- N up at the corner during the first frame (Palazzi's one-step impulse)
-- 1.44 kg, as the thesis's mesh
local MATERIAL = { density = 0.36, stretch = 2000, poisson = 0.3, bend = 1e-3, tau = 0.5 }

-- n x n mesh `side` across in the x-y plane, shifted by dx; the kicked corner is vertex 1
local function mesh(n, side, dx)
  return tauform.mesh.grid{ width = side, height = side, nx = n - 1, ny = n - 1,
                            origin = { dx, 0, 0 } }
end

-- the corner's displacement less the best rigid motion (mean translation, least-squares small
-- rotation) of the mesh's vertices from x0 to x, restricted to vertices first..last
local function dent(x0, x, first, last, corner)
  local n = last - first + 1
  local c, m = { 0, 0, 0 }, { 0, 0, 0 }
  for i = first, last do
    for k = 1, 3 do
      c[k] = c[k] + x0[3 * i - 3 + k] / n
      m[k] = m[k] + (x[3 * i - 3 + k] - x0[3 * i - 3 + k]) / n
    end
  end
  -- I theta = sum r x (u - m)
  local I, L = { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, { 0, 0, 0 }
  for i = first, last do
    local r, u = {}, {}
    for k = 1, 3 do
      r[k] = x0[3 * i - 3 + k] - c[k]
      u[k] = x[3 * i - 3 + k] - x0[3 * i - 3 + k] - m[k]
    end
    L[1] = L[1] + r[2] * u[3] - r[3] * u[2]
    L[2] = L[2] + r[3] * u[1] - r[1] * u[3]
    L[3] = L[3] + r[1] * u[2] - r[2] * u[1]
    local rr = r[1] ^ 2 + r[2] ^ 2 + r[3] ^ 2
    for a = 1, 3 do
      for b = 1, 3 do I[3 * a + b - 3] = I[3 * a + b - 3] + (a == b and rr or 0) - r[a] * r[b] end
    end
  end
  -- a flat mesh's inertia is regular (its three principal moments are positive): Cramer's rule
  local function det(A)
    return A[1] * (A[5] * A[9] - A[6] * A[8]) - A[2] * (A[4] * A[9] - A[6] * A[7])
           + A[3] * (A[4] * A[8] - A[5] * A[7])
  end
  local D, th = det(I), {}
  for k = 1, 3 do
    local A = { table.unpack(I) }
    for a = 1, 3 do A[3 * a - 3 + k] = L[a] end
    th[k] = det(A) / D
  end
  local r, d = {}, 0
  for k = 1, 3 do r[k] = x0[3 * corner - 3 + k] - c[k] end
  local w = { th[2] * r[3] - th[3] * r[2], th[3] * r[1] - th[1] * r[3], th[1] * r[2] - th[2] * r[1] }
  for k = 1, 3 do d = d + (x[3 * corner - 3 + k] - x0[3 * corner - 3 + k] - m[k] - w[k]) ^ 2 end
  return math.sqrt(d)
end

-- vertex a's distance from the plane through vertices b, c, d
local function out_of_plane(x, a, b, c, d)
  local function p(i) return { x[3 * i - 2], x[3 * i - 1], x[3 * i] } end
  local pa, pb, pc, pd = p(a), p(b), p(c), p(d)
  local u = { pc[1] - pb[1], pc[2] - pb[2], pc[3] - pb[3] }
  local v = { pd[1] - pb[1], pd[2] - pb[2], pd[3] - pb[3] }
  local nx, ny, nz = u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3], u[1] * v[2] - u[2] * v[1]
  local l = math.sqrt(nx * nx + ny * ny + nz * nz)
  return math.abs((pa[1] - pb[1]) * nx + (pa[2] - pb[2]) * ny + (pa[3] - pb[3]) * nz) / l
end

-- one free mesh kicked with `global` % on the rigid level: corner and mean heights, dent per frame
local function kicked(global)
  local m = mesh(9, 2, 0)
  local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = MATERIAL.density,
    stretch = MATERIAL.stretch, poisson = MATERIAL.poisson, bend = MATERIAL.bend, tau = MATERIAL.tau,
    gravity = { 0, 0, 0 } }
  local L = #sim:response_levels()
  local pct = {}
  for k = 1, L do pct[k] = 0 end
  pct[1], pct[L] = 100 - global, global
  sim:set_response(pct)
  local n, x0 = sim:vert_count(), sim:positions()
  local f = {}
  for i = 1, 3 * n do f[i] = 0 end
  f[3] = KICK
  local t, corner, mean, dents = { 0 }, { 0 }, { 0 }, { 0 }
  for fr = 1, FRAMES do
    sim:set_forces(fr == 1 and f or nil)
    assert(sim:advance(1 / FPS))
    local x, s = sim:positions(), 0
    for i = 1, n do s = s + x[3 * i] / n end
    t[#t + 1], corner[#corner + 1], mean[#mean + 1] = fr / FPS, x[3], s
    dents[#dents + 1] = out_of_plane(x, 1, 9, 73, 81)
  end
  return { t = t, corner = corner, mean = mean, dent = dents }
end

-- the three side by side in one simulation (three pieces: each its own rigid level), as a sheet
local function sheet(path)
  local parts = { { 0, "all local" }, { 50, "mixed" }, { 100, "all global" } }
  local v, tri = {}, {}
  for p = 1, 3 do
    local m = mesh(9, 2, 3 * (p - 1))
    local base = #v // 3
    for _, c in ipairs(m.vertices) do v[#v + 1] = c end
    for _, i in ipairs(m.triangles) do tri[#tri + 1] = i + base end
  end
  local sim <close> = tauform.cloth{ vertices = v, triangles = tri, density = MATERIAL.density,
    stretch = MATERIAL.stretch, poisson = MATERIAL.poisson, bend = MATERIAL.bend, tau = MATERIAL.tau,
    gravity = { 0, 0, 0 } }
  local L, n = #sim:response_levels(), sim:vert_count()
  local f = {}
  for i = 1, 3 * n do f[i] = 0 end
  for p = 1, 3 do
    local ids, pct = {}, {}
    for i = 1, 81 do ids[i] = 81 * (p - 1) + i end
    for k = 1, L do pct[k] = 0 end
    pct[1], pct[L] = 100 - parts[p][1], parts[p][1] -- level 0 and the piece as one: the grid levels
    sim:set_response(pct, ids)                      -- between span all three, so they stay unused
    f[3 * (81 * (p - 1) + 1)] = KICK
  end
  local shapes = { sim:positions() }
  for fr = 1, FRAMES do
    sim:set_forces(fr == 1 and f or nil)
    assert(sim:advance(1 / FPS))
    if fr % 15 == 0 then shapes[#shapes + 1] = sim:positions() end
  end
  assert(sim:render_sheet(path, shapes, { eye = { 4.6, -5.2, 3.2 }, target = { 4, 1, 0.3 }, columns = 2,
                                          width = 560, height = 220 }))
end

-- Palazzi's test on the held sheet: the dent at the end of the poke against the mix
local function held(global)
  local m = tauform.mesh.grid{ width = 2, height = 2, nx = 16, ny = 16, u = { 1, 0, 0 }, v = { 0, 0, 1 } }
  local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = 0.2,
    stretch = 500, bend = 1e-3, tau = 0.2 }
  sim:pin(m.groups.rowN)
  local L, n = #sim:response_levels(), sim:vert_count()
  local pct = {}
  for k = 1, L do pct[k] = 0 end
  pct[1], pct[L] = 100 - global, global
  sim:set_response(pct)
  for _ = 1, 200 do assert(sim:advance(0.02)) end
  local x0, f = sim:positions(), {}
  for i = 1, 3 * n do f[i] = 0 end
  f[3 * 17 - 1] = 0.2 -- the bottom corner (16, 0), along y
  sim:set_forces(f)
  for _ = 1, 12 do assert(sim:advance(0.02)) end
  -- the free vertices: all but the top row
  return dent(x0, sim:positions(), 1, n - 17, 17)
end

local mixes = { 0, 25, 50, 75, 100 }
local runs, series_a, series_b = {}, {}, {}
for k, g in ipairs(mixes) do
  runs[k] = kicked(g)
  series_a[#series_a + 1] = { x = runs[k].t, y = runs[k].corner, label = ("corner, %d %% global"):format(g) }
  series_b[#series_b + 1] = { x = runs[k].t, y = runs[k].dent, label = ("%d %% global"):format(g) }
end
series_a[#series_a + 1] = { x = runs[1].t, y = runs[1].mean, label = "mean (every mix)", dash = "6 3" }
local gx, gy = {}, {}
for _, g in ipairs({ 0, 10, 25, 40, 50, 60, 75, 90, 100 }) do gx[#gx + 1], gy[#gy + 1] = g, held(g) end
plot.figure{ path = out .. "/pushed.svg", width = 1200, height = 360, panels = {
  { title = "(a) kicked 9 x 9 mesh: heights", xlabel = "time (s)", ylabel = "height (m)", series = series_a },
  { title = "(b) the corner off the others' plane", xlabel = "time (s)", ylabel = "dent (m)", series = series_b },
  { title = "(c) held sheet poked: dent against mix", xlabel = "global (%)", ylabel = "dent (m)",
    series = { { x = gx, y = gy, label = "end of the 0.24 s poke" } } } } }
local cols = { { "global_percent", gx }, { "held_sheet_dent_m", gy } }
plot.csv(out .. "/held_dent.csv", cols)
sheet(out .. "/pushed.png")
print(("kicked 9 x 9 mesh (%d frames at %d fps, %.1f N up at a corner for one frame):"):format(FRAMES, FPS, KICK))
for k, g in ipairs(mixes) do
  local r = runs[k]
  local worst = 0
  for _, d in ipairs(r.dent) do worst = math.max(worst, d) end
  print(("  %3d %% global: corner at %.3f m, mean %.3f m at %.1f s; largest dent %.4f m"):format(
    g, r.corner[#r.corner], r.mean[#r.mean], r.t[#r.t], worst))
end
print("held 2 m sheet poked at a corner, dent at the poke's end:")
for k = 1, #gx do print(("  %3d %% global: %.4f m (%.1f %% of all-local's)"):format(gx[k], gy[k], 100 * gy[k] / gy[1])) end
print(("wrote %s/pushed.svg, %s/pushed.png, %s/held_dent.csv"):format(out, out, out))
-- what the figures show, checked (ctest runs this script): the dent falls as the global share
-- grows, the rigid level keeps the kicked mesh flat, and the held sheet's dent on the rigid level
-- is below 5 % of all-local's
local function largest(r)
  local m = 0
  for _, d in ipairs(r.dent) do m = math.max(m, d) end
  return m
end
for k = 2, #mixes do
  assert(largest(runs[k]) < largest(runs[k - 1]), "the kicked mesh's dent does not fall with the mix")
end
assert(largest(runs[#mixes]) < 1e-6, "the rigid level bent the kicked mesh")
for k = 2, #gx do assert(gy[k] < gy[k - 1], "the held sheet's dent does not fall with the mix") end
assert(gy[#gy] < 0.05 * gy[1], "the held sheet's dent on the rigid level is not below 5 % of all-local's")
