-- SPDX-License-Identifier: MIT
-- Young 2007, Example 1 (Figure 4.1, Table 4.1): 12 unit equilateral triangles in rows of 5, 4
-- and 3 vertices, the bottom row fixed, the top-middle vertex pushed 0.5 down into the body and
-- released; St.Venant-Kirchhoff with lambda = 3, mu = 1, mass 1 per vertex, dt = 0.01 s, in the
-- plane. At tau = 1 it rests after about 3 s (measured: 2.88 s), at tau = 4 in a quarter of that.
--   lua5.4 examples/run.lua examples/young/example1.lua --out young1.pc2
local TAU = tonumber(os.getenv("YOUNG_TAU") or "1")
local h = math.sqrt(3) / 2
local vertices, rows = {}, { 5, 4, 3 }
for r = 0, 2 do
  for i = 0, rows[r + 1] - 1 do
    for _, c in ipairs({ 0.5 * r + i, h * r, 0 }) do vertices[#vertices + 1] = c end
  end
end
local triangles = {}
local start = { 1, 6, 10 }
for r = 1, 2 do
  local a, b, n = start[r], start[r + 1], rows[r]
  for i = 0, n - 2 do for _, v in ipairs({ a + i, a + i + 1, b + i }) do triangles[#triangles + 1] = v end end
  for i = 0, n - 3 do for _, v in ipairs({ b + i, a + i + 1, b + i + 1 }) do triangles[#triangles + 1] = v end end
end
local masses = {}
for i = 1, 12 do masses[i] = 1 end

return {
  mesh = { vertices = vertices, triangles = triangles, groups = { bottom = { 1, 2, 3, 4, 5 }, top_middle = { 11 } } },
  -- Table 4.1a in plane stress form: nu = lambda / (lambda + 2 mu), E = 2 mu (1 + nu)
  material = { masses = masses, stretch = 3.2, poisson = 0.6 },
  fps = 100, frames = { 0, 500 }, substeps = 1,
  tau = TAU, kappa = 0, bend = 0, gravity = { 0, 0, 0 },
  solver = { tolerance = 1e-9, abs_tolerance = 1e-12 },
  pins = { { group = "bottom" } },
  -- the initial displacement
  setup = function(sim)
    local x = sim:positions()
    x[3 * 11 - 1] = x[3 * 11 - 1] - 0.5
    sim:set_state(x)
  end,
}
