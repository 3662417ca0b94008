-- SPDX-License-Identifier: MIT
-- Young 2007, Example 2 (Figure 4.2, Table 4.1b): an annulus of 414 triangles (9 rings of 23
-- segments), the vertices at the bottom fixed, pulled to the left and released; St.Venant-Kirchhoff
-- with lambda = 2, mu = 0.5, mass 0.1 per vertex, dt = 0.05 s, in the plane. The thesis gives no
-- dimensions; its Table 4.2 damps wavelengths 1, 8 and 16 named "a triangle edge", "the radius" and
-- "the diameter", so the outer radius is 8 edges: radii 2.6 to 8 (edges 0.7 to 2.2, 414 triangles
-- of mean area 0.43, the area of a unit equilateral triangle). The pull (0.55 at the top, growing
-- with the square of the height) is chosen so that d1 starts near 3.3, the top of Figure 4.4.
-- The thesis shows tau = 0.33, 1 and 2 (YOUNG_TAU picks one).
--   YOUNG_TAU=0.33 lua5.4 examples/run.lua examples/young/example2.lua --out young2.pc2
local TAU = tonumber(os.getenv("YOUNG_TAU") or "1")
local PULL = 0.55 -- at the top
local R0, R1, RINGS, SEG = 2.6, 8.0, 9, 23
local vertices, triangles, bottom = {}, {}, {}
for r = 0, RINGS do
  local rad = R0 + (R1 - R0) * r / RINGS
  for s = 0, SEG - 1 do
    -- start at the bottom (-y) so the fixed vertices are a symmetric arc
    local a = -math.pi / 2 + 2 * math.pi * s / SEG
    vertices[#vertices + 1] = rad * math.cos(a)
    vertices[#vertices + 1] = rad * math.sin(a)
    vertices[#vertices + 1] = 0
  end
end
local function id(r, s) return r * SEG + (s % SEG) + 1 end
for r = 0, RINGS - 1 do
  for s = 0, SEG - 1 do
    local a, b, c, d = id(r, s), id(r, s + 1), id(r + 1, s + 1), id(r + 1, s)
    for _, v in ipairs({ a, d, c, a, c, b }) do triangles[#triangles + 1] = v end -- counter-clockwise
  end
end
-- fixed: every vertex within 25 degrees of the bottom
for i = 1, #vertices // 3 do
  local x, y = vertices[3 * i - 2], vertices[3 * i - 1]
  if math.atan(x, -y) > -math.rad(25) and math.atan(x, -y) < math.rad(25) then bottom[#bottom + 1] = i end
end
local masses = {}
for i = 1, #vertices // 3 do masses[i] = 0.1 end

return {
  mesh = { vertices = vertices, triangles = triangles, groups = { bottom = bottom } },
  -- Table 4.1b in plane stress form: nu = lambda / (lambda + 2 mu) = 2/3, E = 2 mu (1 + nu)
  material = { masses = masses, stretch = 5 / 3, poisson = 2 / 3 },
  fps = 20, frames = { 0, 100 }, substeps = 1,
  tau = TAU, kappa = 0, bend = 0, gravity = { 0, 0, 0 },
  solver = { tolerance = 1e-9, abs_tolerance = 1e-12 },
  pins = { { group = "bottom" } },
  -- pulled to the left: a shear growing with height above the fixed vertices (which stay put:
  -- set_state would otherwise move their pins too)
  setup = function(sim)
    local x, fixed = sim:positions(), {}
    for _, i in ipairs(bottom) do fixed[i] = true end
    for i = 1, #x // 3 do
      if not fixed[i] then
        local h = (x[3 * i - 1] + R1) / (2 * R1)
        x[3 * i - 2] = x[3 * i - 2] - PULL * h * h
      end
    end
    sim:set_state(x)
  end,
}
