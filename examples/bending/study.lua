-- SPDX-License-Identifier: MIT
-- The cantilever test of cantilever.lua at 10 to 80 cells along the strip, for both bending
-- energies: the chord angle against the lab's 41.5 degrees and the small-deflection tip sag against
-- the beam's q L^4 / (8 B), as a table and an SVG (examples/bending/cantilever.svg).
--   lua5.4 examples/bending/study.lua [OUT.svg]
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
dofile(root .. "/examples/checkout.lua")(root)
local tauform = require "tauform"

local L, width, density, g = 0.1, 0.02, 0.2, 9.81

-- the strip settled under gravity with q L^3 / B = lam; returns tip (x, drop) / L
local function strip(model, cells, lam)
  local h = L / cells -- the clamp: three pinned columns at x <= 0
  local m = tauform.mesh.grid{ width = h * (cells + 2), height = width, nx = cells + 2, ny = cells // 5,
                               origin = { -2 * h, 0, 0 } }
  local sim <close> = tauform.cloth{ vertices = m.vertices, triangles = m.triangles, density = density,
                                     stretch = 1000, bend = density * g * L ^ 3 / lam, bend_model = model,
                                     tau = 0.05, solver = { tolerance = 1e-6 } }
  local clamp, tipv = {}, {}
  for i = 1, #m.vertices, 3 do
    if m.vertices[i] < 0.5 * h then clamp[#clamp + 1] = (i + 2) // 3 end
    if m.vertices[i] > L - 0.5 * h then tipv[#tipv + 1] = i end
  end
  sim:pin(clamp)
  local prev, x, drop = 0, 0, 0
  for f = 1, 400 do
    assert(sim:advance(1 / 24, 1))
    local p = sim:positions()
    x, drop = 0, 0
    for _, i in ipairs(tipv) do x, drop = x + p[i] / #tipv, drop - p[i + 2] / #tipv end
    if f > 20 and math.abs(drop - prev) < 1e-7 * L then break end
    prev = drop
  end
  return x / L, drop / L
end

local cells = { 10, 20, 40, 80 }
local panels = {
  { title = "Cantilever at L = 2c (ASTM D1388)", xlabel = "cells along the overhang", ylabel = "chord angle (deg)",
    series = { { x = { 10, 80 }, y = { 41.5, 41.5 }, label = "heavy elastica 41.5", color = "#2ca02c", dash = "6 3" } } },
  { title = "Small deflection (q L^3 / B = 0.08)", xlabel = "cells along the overhang", ylabel = "tip sag / (q L^4 / 8B)",
    series = { { x = { 10, 80 }, y = { 1, 1 }, label = "beam theory", color = "#2ca02c", dash = "6 3" } } },
}
print("| model | cells | chord angle (deg) | tip sag / beam |")
print("|---|---|---|---|")
for k, model in ipairs({ "shell", "hinge" }) do
  local angle, sag = {}, {}
  for _, n in ipairs(cells) do
    local x, drop = strip(model, n, 8.0)
    angle[#angle + 1] = math.deg(math.atan(drop, x))
    local _, small = strip(model, n, 0.08)
    sag[#sag + 1] = small / (0.08 / 8)
    print(("| %s | %d | %.2f | %.4f |"):format(model, n, angle[#angle], sag[#sag]))
  end
  local color = k == 1 and "#1f77b4" or "#d62728"
  table.insert(panels[1].series, { x = cells, y = angle, label = model, color = color })
  table.insert(panels[2].series, { x = cells, y = sag, label = model, color = color })
end
local out = arg[1] or (here .. "/cantilever.svg")
tauform.plot.figure{ path = out, panels = panels }
print("wrote " .. out)
