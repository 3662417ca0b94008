-- SPDX-License-Identifier: MIT
-- Palazzi (1993), "Deformable models using displacement constraints" (UBC MSc thesis), as a
-- baseline integrator in plain Lua: a (2^n+1)^2 mesh of rigid line segments tied at the grid points
-- by point-to-point displacement constraints (Gascuel & Gascuel 1992; thesis ch. 3), with the
-- multilevel force distribution of ch. 4 that gives the animator local/global control.
--   local D = dofile "examples/palazzi/displacement.lua"
--   local mesh = D.mesh{ n = 9, size = 2.0, mass = 1.44, pct = { 50, 0, 0, 50 } }
--   D.step(mesh, 0.2, { forces = { { row = 0, col = 0, force = { 0, 3, 0 } } } })
--   local xyz = D.points(mesh)   -- finest grid points, x1, y1, z1, x2, ...
-- Conventions: y is up, the floor is the plane y = 0, grid point (r, c) starts at
-- x = c L - size/2, z = r L - size/2 (L = size/(n-1) the segment length). Level 0 is the finest;
-- the last level is the 2x2 rigid one (Fig. 4.4). Every level has the same total mass.
-- A segment keeps its centre G, unit direction d and half length h rather than the thesis's
-- quaternion (App. A): spin about its own axis moves no point of a line, so d is all of its
-- orientation; rotations are still applied as quaternions (eqs A.7, B.5).
local M = {}

M.defaults = {
  n = 9, size = 2.0, mass = 1.44, height = 0.0,
  pct = nil,                -- per level percentages (sum 100); default all on level 0 (local)
  center_fraction = 0.5,    -- share of a grid-point force applied at the segment centres (Fig. 3.2)
  translation = 0.5,        -- gamma of sec. 3.2.2, scales the translations of eqs 3.3/3.4
  rotation = 0.5,           -- the user's rotation factor replacing m1 m2/(m1+m2) J^-1 (eq. 3.8)
  error = 0.004,            -- largest endpoint gap, as a fraction of a segment length (sec. 3.7)
  max_iterations = 300,
  prolongation = "offset",  -- "offset" (Fig. 4.8) or "interpolate" (Fig. 4.7)
  multilevel = true,        -- false: the original algorithm of Fig. 3.1 on level 0 alone
  gravity = 0.0,            -- m/s^2, downwards along -y
  floor = nil,              -- nil: no floor; else the floor's height (y)
  bounce = 0.1,             -- the bounce slider (App. C): scales the floor's force
  rigid_fit = true,         -- keep the rigid level its rest square (M.restrict says why)
}

---------------------------------------------------------------------------------------------
-- quaternions (App. B), only to turn a direction by a rotation vector

-- eq. A.7: the unit quaternion of rotation vector t (axis t/|t|, angle |t|)
local function quat_of(tx, ty, tz)
  local a = math.sqrt(tx * tx + ty * ty + tz * tz)
  if a < 1e-15 then return 1, 0, 0, 0 end
  local s = math.sin(a / 2) / a
  return math.cos(a / 2), tx * s, ty * s, tz * s
end

-- eq. B.5, v' = q v q^-1 for a unit q = [s, w], written as v + 2s (w x v) + 2 w x (w x v)
local function quat_rotate(s, wx, wy, wz, vx, vy, vz)
  local tx, ty, tz = 2 * (wy * vz - wz * vy), 2 * (wz * vx - wx * vz), 2 * (wx * vy - wy * vx)
  return vx + s * tx + (wy * tz - wz * ty),
         vy + s * ty + (wz * tx - wx * tz),
         vz + s * tz + (wx * ty - wy * tx)
end

-- turn segment s's direction by rotation vector t, renormalised against drift
local function turn(s, tx, ty, tz)
  local q0, q1, q2, q3 = quat_of(tx, ty, tz)
  local x, y, z = quat_rotate(q0, q1, q2, q3, s.dx, s.dy, s.dz)
  local l = math.sqrt(x * x + y * y + z * z)
  s.dx, s.dy, s.dz = x / l, y / l, z / l
end

---------------------------------------------------------------------------------------------
-- segments and levels

-- endpoint e (-1: the segment's first grid point, +1: its second) of segment s
local function endpoint(s, e)
  local k = e * s.h
  return s.gx + k * s.dx, s.gy + k * s.dy, s.gz + k * s.dz
end

-- place segment s on the line from point (ax, ay, az) to (bx, by, bz); keep_h keeps its length
local function fit(s, ax, ay, az, bx, by, bz, keep_h)
  local dx, dy, dz = bx - ax, by - ay, bz - az
  local l = math.sqrt(dx * dx + dy * dy + dz * dz)
  s.gx, s.gy, s.gz = (ax + bx) / 2, (ay + by) / 2, (az + bz) / 2
  s.dx, s.dy, s.dz = dx / l, dy / l, dz / l
  if not keep_h then s.h = l / 2 end
end

local function new_segment(a, b, m)
  return { a = a, b = b, m = m, h = 0, gx = 0, gy = 0, gz = 0, dx = 1, dy = 0, dz = 0,
           vx = 0, vy = 0, vz = 0, wx = 0, wy = 0, wz = 0,
           fx = 0, fy = 0, fz = 0, tx = 0, ty = 0, tz = 0 }
end

-- grid point (r, c) of an N x N level, 0-based, to its 1-based index
local function idx(N, r, c) return r * N + c + 1 end

-- the grid edges of an N x N level, plus the two cross segments when rigid (Fig. 4.4)
local function edges(N, rigid)
  local list = {}
  for r = 0, N - 1 do
    for c = 0, N - 1 do
      if c < N - 1 then list[#list + 1] = { idx(N, r, c), idx(N, r, c + 1) } end
      if r < N - 1 then list[#list + 1] = { idx(N, r, c), idx(N, r + 1, c) } end
    end
  end
  if rigid then
    list[#list + 1] = { idx(N, 0, 0), idx(N, N - 1, N - 1) }
    list[#list + 1] = { idx(N, 0, N - 1), idx(N, N - 1, 0) }
  end
  return list
end

-- per grid point, the segments whose endpoints meet there and which end (sec. 3.7)
local function endpoint_lists(npts, segs)
  local seg, sign = {}, {}
  for i = 1, npts do seg[i], sign[i] = {}, {} end
  for _, s in ipairs(segs) do
    seg[s.a][#seg[s.a] + 1], sign[s.a][#sign[s.a] + 1] = s, -1
    seg[s.b][#seg[s.b] + 1], sign[s.b][#sign[s.b] + 1] = s, 1
  end
  return seg, sign
end

-- one level: N x N points, its segments sharing the level's total mass evenly (sec. 4.2.1)
local function new_level(k, N, total_mass, rigid)
  local list = edges(N, rigid)
  local segs = {}
  for i, e in ipairs(list) do segs[i] = new_segment(e[1], e[2], total_mass / #list) end
  local ends_seg, ends_sign = endpoint_lists(N * N, segs)
  return { k = k, N = N, stride = 1 << k, segs = segs, ends_seg = ends_seg,
           ends_sign = ends_sign, rigid = rigid }
end

-- grid point i of a level: the mean of the endpoints meeting there
local function grid_point(level, i)
  local segs, signs = level.ends_seg[i], level.ends_sign[i]
  local x, y, z = 0, 0, 0
  for j = 1, #segs do
    local px, py, pz = endpoint(segs[j], signs[j])
    x, y, z = x + px, y + py, z + pz
  end
  local n = #segs
  return x / n, y / n, z / n
end

-- all grid points of a level as { {x, y, z}, ... }
local function level_points(level)
  local pts = {}
  for i = 1, level.N * level.N do pts[i] = { grid_point(level, i) } end
  return pts
end

-- put every segment of a level on the line between its grid points in pts
local function fit_level(level, pts, keep_h)
  for _, s in ipairs(level.segs) do
    local a, b = pts[s.a], pts[s.b]
    fit(s, a[1], a[2], a[3], b[1], b[2], b[3], keep_h)
  end
end

local function merge(opt)
  local o = {}
  for k, v in pairs(M.defaults) do o[k] = v end
  for k, v in pairs(opt or {}) do o[k] = v end
  return o
end

-- the number of levels of an N x N mesh: halve down to 3x3, then the 2x2 rigid level
local function level_sizes(N)
  local sizes = { N }
  while N > 3 do
    assert((N - 1) % 2 == 0, "mesh side must be 2^n + 1 points")
    N = (N - 1) // 2 + 1
    sizes[#sizes + 1] = N
  end
  if N == 3 then sizes[#sizes + 1] = 2 end
  return sizes
end

-- a flat horizontal mesh at rest (the thesis assumes zero initial velocities, sec. 4.2.1)
function M.mesh(opt)
  local o = merge(opt)
  local sizes = level_sizes(o.n)
  local mesh = { opt = o, levels = {}, L = o.size / (o.n - 1), time = 0,
                 stats = { steps = 0, failures = 0, max_iterations = 0, max_error = 0 } }
  for k, N in ipairs(sizes) do
    mesh.levels[k] = new_level(k - 1, N, o.mass, k == #sizes)
  end
  local pct = { 100 }
  for k = 2, #sizes do pct[k] = 0 end
  o.pct = table.move(o.pct or pct, 1, #(o.pct or pct), 1, {})
  assert(#o.pct == #sizes, ("need %d level percentages"):format(#sizes))
  local pts = {}
  for r = 0, o.n - 1 do
    for c = 0, o.n - 1 do
      pts[idx(o.n, r, c)] = { c * mesh.L - o.size / 2, o.height, r * mesh.L - o.size / 2 }
    end
  end
  fit_level(mesh.levels[1], pts)
  M.restrict(mesh)
  return mesh
end

---------------------------------------------------------------------------------------------
-- restriction (sec. 4.2.1)

-- the finest points under the grid points of level k: (r, c) there is (r, c) * 2^k on level 0
local function restricted_points(mesh, fine_pts, k)
  local level, N0 = mesh.levels[k + 1], mesh.levels[1].N
  local pts = {}
  for r = 0, level.N - 1 do
    for c = 0, level.N - 1 do
      pts[idx(level.N, r, c)] = fine_pts[idx(N0, r * level.stride, c * level.stride)]
    end
  end
  return pts
end

local function unit(x, y, z)
  local l = math.sqrt(x * x + y * y + z * z)
  if l < 1e-12 then return 1, 0, 0 end     -- a crumpled mesh: any direction will do
  return x / l, y / l, z / l
end

-- a unit vector across unit s, from t (t's part across s; another axis when t is along s)
local function across(sx, sy, sz, tx, ty, tz)
  local d = tx * sx + ty * sy + tz * sz
  tx, ty, tz = tx - d * sx, ty - d * sy, tz - d * sz
  if tx * tx + ty * ty + tz * tz < 1e-12 then
    tx, ty, tz = -sy, sx, 0
    if tx * tx + ty * ty < 1e-12 then tx, ty, tz = 0, -sz, sy end
  end
  return unit(tx, ty, tz)
end

-- the rigid level's rest square placed on four corner points (row-major 00, 01, 10, 11): centred
-- on their mean, its edge directions the mean row and column directions made orthogonal
-- symmetrically (through their bisectors), so neither is favoured
local function square_on(corners, side)
  local p00, p01, p10, p11 = corners[1], corners[2], corners[3], corners[4]
  local ox, oy, oz, ax, ay, az, bx, by, bz = 0, 0, 0, 0, 0, 0, 0, 0, 0
  for _, p in ipairs(corners) do ox, oy, oz = ox + p[1] / 4, oy + p[2] / 4, oz + p[3] / 4 end
  ax, ay, az = unit(p01[1] + p11[1] - p00[1] - p10[1], p01[2] + p11[2] - p00[2] - p10[2],
                    p01[3] + p11[3] - p00[3] - p10[3])
  bx, by, bz = unit(p10[1] + p11[1] - p00[1] - p01[1], p10[2] + p11[2] - p00[2] - p01[2],
                    p10[3] + p11[3] - p00[3] - p01[3])
  local sx, sy, sz = unit(ax + bx, ay + by, az + bz)
  local tx, ty, tz = across(sx, sy, sz, ax - bx, ay - by, az - bz)
  local c = math.sqrt(0.5)
  ax, ay, az = c * (sx + tx), c * (sy + ty), c * (sz + tz)    -- columns (c grows)
  bx, by, bz = c * (sx - tx), c * (sy - ty), c * (sz - tz)    -- rows (r grows)
  local out = {}
  for i, rc in ipairs({ { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 } }) do
    local u, v = (rc[2] - 0.5) * side, (rc[1] - 0.5) * side
    out[i] = { ox + u * ax + v * bx, oy + u * ay + v * by, oz + u * az + v * bz }
  end
  return out
end

-- make the rigid level exactly its rest square again (see M.restrict)
local function square_up(mesh, level)
  fit_level(level, square_on(level_points(level), mesh.opt.size))
end

-- positions and orientations of every coarser level from the finest one's grid points; a
-- coarse segment's endpoints are the fine points it spans, which also set its length
-- (eqs 4.1/4.2). Velocities are not passed: each level keeps its own.
-- The rigid level (opt.rigid_fit) is instead its rest square fitted to those points: a flat
-- square with two cross segments is rigid only to first order (a fold out of its plane changes
-- the lengths at second order), so within the error it folds a little, lengths re-taken from
-- the fine mesh keep the fold, and its velocity carries it on from step to step.
function M.restrict(mesh)
  local fine = level_points(mesh.levels[1])
  mesh.before = { fine }
  for k = 1, #mesh.levels - 1 do
    local level = mesh.levels[k + 1]
    local pts = restricted_points(mesh, fine, k)
    if level.rigid and mesh.opt.rigid_fit then pts = square_on(pts, mesh.opt.size) end
    fit_level(level, pts)
    mesh.before[k + 1] = pts
  end
end

-- the coarse neighbours of fine point (r, c): itself when coincident, else the 2 or 4 coarse
-- points it lies between (sec. 4.2.1)
local function coarse_neighbours(Nc, r, c)
  local rows = r % 2 == 0 and { r // 2 } or { r // 2, r // 2 + 1 }
  local cols = c % 2 == 0 and { c // 2 } or { c // 2, c // 2 + 1 }
  local list = {}
  for _, rr in ipairs(rows) do
    for _, cc in ipairs(cols) do list[#list + 1] = idx(Nc, rr, cc) end
  end
  return list
end

-- a level's point forces to the next coarser level, split evenly among the coarse neighbours
local function restrict_force(Nf, Nc, F)
  local out = {}
  for i = 1, Nc * Nc do out[i] = { 0, 0, 0 } end
  for r = 0, Nf - 1 do
    for c = 0, Nf - 1 do
      local f = F[idx(Nf, r, c)]
      local nb = coarse_neighbours(Nc, r, c)
      for _, j in ipairs(nb) do
        for a = 1, 3 do out[j][a] = out[j][a] + f[a] / #nb end
      end
    end
  end
  return out
end

-- the point forces each level sees, before its percentage: { [level] = { {fx, fy, fz}, ... } }
function M.restrict_forces(mesh, F0)
  local out = { F0 }
  for k = 2, #mesh.levels do
    out[k] = restrict_force(mesh.levels[k - 1].N, mesh.levels[k].N, out[k - 1])
  end
  return out
end

---------------------------------------------------------------------------------------------
-- external forces (step 1 of Fig. 3.1)

local function clear_forces(level)
  for _, s in ipairs(level.segs) do
    s.fx, s.fy, s.fz, s.tx, s.ty, s.tz = 0, 0, 0, 0, 0, 0
  end
end

-- a force at grid point i, shared by the segments meeting there: the centre fraction at their
-- centres (linear), the rest at their endpoints as a torque GP x F (Fig. 3.2(b))
local function apply_point_force(level, i, fx, fy, fz, center)
  local segs, signs = level.ends_seg[i], level.ends_sign[i]
  local share = 1 / #segs
  for j = 1, #segs do
    local s, e = segs[j], signs[j]
    local cx, cy, cz = fx * share * center, fy * share * center, fz * share * center
    local ex, ey, ez = fx * share - cx, fy * share - cy, fz * share - cz
    local rx, ry, rz = e * s.h * s.dx, e * s.h * s.dy, e * s.h * s.dz
    s.fx, s.fy, s.fz = s.fx + cx, s.fy + cy, s.fz + cz
    s.tx, s.ty, s.tz = s.tx + ry * ez - rz * ey, s.ty + rz * ex - rx * ez, s.tz + rx * ey - ry * ex
  end
end

-- gravity on a level, scaled by its share so that all levels together carry the weight once
local function apply_gravity(level, g)
  for _, s in ipairs(level.segs) do s.fy = s.fy - s.m * g end
end

-- the floor (Fig. 4.10): a point of level 0 below it gets an upward force k * depth, with
-- k = bounce * (the mesh's mass) / dt^2: bounce = 1 would lift the whole mesh by the depth in
-- one step; it is restricted to the levels like any other point force
local function floor_forces(mesh, pts, F, dt)
  local o = mesh.opt
  if not o.floor then return 0 end
  local k = o.bounce * o.mass / (dt * dt)
  local deepest = 0
  for i, p in ipairs(pts) do
    local depth = o.floor - p[2]
    if depth > 0 then
      F[i][2] = F[i][2] + k * depth
      deepest = math.max(deepest, depth)
    end
  end
  return deepest
end

-- the finest level's point forces: the caller's { row, col, force } list plus the floor's
local function point_forces(mesh, list, dt)
  local N = mesh.levels[1].N
  local F = {}
  for i = 1, N * N do F[i] = { 0, 0, 0 } end
  for _, f in ipairs(list or {}) do
    local p = F[idx(N, f.row, f.col)]
    for a = 1, 3 do p[a] = p[a] + f.force[a] end
  end
  local deepest = floor_forces(mesh, mesh.before[1], F, dt)
  return F, deepest
end

---------------------------------------------------------------------------------------------
-- dynamics (step 2 of Fig. 3.1): each segment alone, Euler-Cromer (App. A)

-- eqs A.1-A.3 for the centre, A.4-A.8 for the direction; a thin rod's inertia about its centre,
-- m (2h)^2 / 12, perpendicular to it (spin about its axis moves no point of it)
local function integrate(s, dt)
  local ax, ay, az = s.fx / s.m, s.fy / s.m, s.fz / s.m
  local vx, vy, vz = s.vx + dt * ax, s.vy + dt * ay, s.vz + dt * az
  s.gx = s.gx + dt * (s.vx + vx) / 2
  s.gy = s.gy + dt * (s.vy + vy) / 2
  s.gz = s.gz + dt * (s.vz + vz) / 2
  s.vx, s.vy, s.vz = vx, vy, vz
  local inv_i = 3 / (s.m * s.h * s.h)
  local wx, wy, wz = s.wx + dt * s.tx * inv_i, s.wy + dt * s.ty * inv_i, s.wz + dt * s.tz * inv_i
  turn(s, dt * (s.wx + wx) / 2, dt * (s.wy + wy) / 2, dt * (s.wz + wz) / 2)
  s.wx, s.wy, s.wz = wx, wy, wz
end

local function dynamics(level, dt)
  for _, s in ipairs(level.segs) do integrate(s, dt) end
end

---------------------------------------------------------------------------------------------
-- constraints (step 3 of Fig. 3.1; Fig. 3.8)

-- one point-to-point constraint between endpoint e1 of s1 and e2 of s2 (Fig. 3.3): translations
-- of eqs 3.3/3.4 scaled by gamma (they keep m1 dG1 + m2 dG2 = 0, eq. 3.1), rotations of eqs
-- 3.8/3.9 with rho / h^2 for m1 m2/(m1+m2) J^-1, so that rho is the fraction of the gap's part
-- across the segment that its endpoint's rotation closes (rho = 1.5 is eq. 3.7's rubber for equal
-- masses and J = m (2h)^2/12)
local function close_pair(s1, e1, s2, e2, gamma, rho)
  local r1x, r1y, r1z = e1 * s1.h * s1.dx, e1 * s1.h * s1.dy, e1 * s1.h * s1.dz
  local r2x, r2y, r2z = e2 * s2.h * s2.dx, e2 * s2.h * s2.dy, e2 * s2.h * s2.dz
  local gx = s2.gx + r2x - s1.gx - r1x                      -- P1P2
  local gy = s2.gy + r2y - s1.gy - r1y
  local gz = s2.gz + r2z - s1.gz - r1z
  local k1 = rho / (s1.h * s1.h)
  local k2 = -rho / (s2.h * s2.h)                           -- P2P1 = -P1P2
  local m = s1.m + s2.m
  local t1, t2 = gamma * s2.m / m, -gamma * s1.m / m
  s1.gx, s1.gy, s1.gz = s1.gx + t1 * gx, s1.gy + t1 * gy, s1.gz + t1 * gz
  s2.gx, s2.gy, s2.gz = s2.gx + t2 * gx, s2.gy + t2 * gy, s2.gz + t2 * gz
  turn(s1, k1 * (r1y * gz - r1z * gy), k1 * (r1z * gx - r1x * gz), k1 * (r1x * gy - r1y * gx))
  turn(s2, k2 * (r2y * gz - r2z * gy), k2 * (r2z * gx - r2x * gz), k2 * (r2x * gy - r2y * gx))
end

-- the widest gap between endpoints meeting at grid point i
local function point_gap(level, i)
  local segs, signs = level.ends_seg[i], level.ends_sign[i]
  local worst = 0
  for a = 1, #segs - 1 do
    local ax, ay, az = endpoint(segs[a], signs[a])
    for b = a + 1, #segs do
      local bx, by, bz = endpoint(segs[b], signs[b])
      local d2 = (bx - ax) ^ 2 + (by - ay) ^ 2 + (bz - az) ^ 2
      if d2 > worst then worst = d2 end
    end
  end
  return math.sqrt(worst)
end

-- find_error of Fig. 3.8: the widest gap at any grid point of the level
function M.max_gap(level)
  local worst = 0
  for i = 1, level.N * level.N do worst = math.max(worst, point_gap(level, i)) end
  return worst
end

-- one pass over the level's grid points, each pair of endpoints meeting there in turn
local function sweep(level, gamma, rho)
  for i = 1, level.N * level.N do
    local segs, signs = level.ends_seg[i], level.ends_sign[i]
    for a = 1, #segs - 1 do
      for b = a + 1, #segs do close_pair(segs[a], signs[a], segs[b], signs[b], gamma, rho) end
    end
  end
end

-- solve_constraints of Fig. 3.8; returns the iterations used, the gap left and whether it met
-- the error (the animator is flagged when not, sec. 3.2.2)
function M.solve(mesh, level)
  local o = mesh.opt
  local tol = o.error * mesh.L
  local gap, its = M.max_gap(level), 0
  while gap > tol and its < o.max_iterations do
    its = its + 1
    sweep(level, o.translation, o.rotation)
    gap = M.max_gap(level)
  end
  return its, gap, gap <= tol
end

---------------------------------------------------------------------------------------------
-- velocities (step 4 of Fig. 3.1) from the state before the dynamics and after the constraints

local function save_state(level)
  for _, s in ipairs(level.segs) do
    s.g0x, s.g0y, s.g0z, s.d0x, s.d0y, s.d0z = s.gx, s.gy, s.gz, s.dx, s.dy, s.dz
  end
end

-- v from the centre's move, w the smallest rotation taking the old direction to the new one
local function adjust_velocity(s, dt)
  s.vx, s.vy, s.vz = (s.gx - s.g0x) / dt, (s.gy - s.g0y) / dt, (s.gz - s.g0z) / dt
  local cx = s.d0y * s.dz - s.d0z * s.dy
  local cy = s.d0z * s.dx - s.d0x * s.dz
  local cz = s.d0x * s.dy - s.d0y * s.dx
  local sn = math.sqrt(cx * cx + cy * cy + cz * cz)
  local angle = math.atan(sn, s.d0x * s.dx + s.d0y * s.dy + s.d0z * s.dz)
  local k = sn > 1e-15 and angle / (sn * dt) or 0
  s.wx, s.wy, s.wz = cx * k, cy * k, cz * k
end

local function adjust_velocities(level, dt)
  for _, s in ipairs(level.segs) do adjust_velocity(s, dt) end
end

---------------------------------------------------------------------------------------------
-- prolongation (sec. 4.2.2)

-- the mean of a list of points (indices into pts)
local function mean_of(pts, list)
  local x, y, z = 0, 0, 0
  for _, j in ipairs(list) do x, y, z = x + pts[j][1], y + pts[j][2], z + pts[j][3] end
  return x / #list, y / #list, z / #list
end

-- level k's new grid points from level k+1's solution. "offset" keeps each fine point's offset
-- from the midpoint of its coarse neighbours before the coarse dynamics (Fig. 4.8); "interpolate"
-- puts it at that midpoint (Fig. 4.7), which flattens local detail every step. The thesis's own
-- program had only interpolation (its footnote to sec. 4.2.2); offsets are our default.
local function prolonged_points(mesh, k, solved)
  local fine, coarse = mesh.levels[k + 1], mesh.levels[k + 2]
  local before_f, before_c = mesh.before[k + 1], mesh.before[k + 2]
  local offsets = mesh.opt.prolongation == "offset"
  local pts = {}
  for r = 0, fine.N - 1 do
    for c = 0, fine.N - 1 do
      local i, nb = idx(fine.N, r, c), coarse_neighbours(coarse.N, r, c)
      local x, y, z = mean_of(solved, nb)
      if offsets then
        local bx, by, bz = mean_of(before_c, nb)
        local p = before_f[i]
        x, y, z = x + p[1] - bx, y + p[2] - by, z + p[3] - bz
      end
      pts[i] = { x, y, z }
    end
  end
  return pts
end

-- move level k's segment endpoints with their grid points' displacement, then refit each
-- (rigid) segment to its moved endpoints; a level whose coarser one did not move is untouched
local function prolong(mesh, k, solved)
  local level, before = mesh.levels[k + 1], mesh.before[k + 1]
  local pts = prolonged_points(mesh, k, solved)
  for _, s in ipairs(level.segs) do
    local pa, pb, qa, qb = before[s.a], before[s.b], pts[s.a], pts[s.b]
    local ax, ay, az = endpoint(s, -1)
    local bx, by, bz = endpoint(s, 1)
    ax, ay, az = ax + qa[1] - pa[1], ay + qa[2] - pa[2], az + qa[3] - pa[3]
    bx, by, bz = bx + qb[1] - pb[1], by + qb[2] - pb[2], bz + qb[3] - pb[3]
    fit(s, ax, ay, az, bx, by, bz, true)
  end
end

---------------------------------------------------------------------------------------------
-- one time step (Fig. 4.2/4.3; Fig. 3.1 when opt.multilevel is false)

-- a level's forces: its percentage of the restricted point forces and of gravity
local function level_forces(mesh, level, F, share)
  clear_forces(level)
  if share == 0 then return end
  local center = mesh.opt.center_fraction
  for i, f in ipairs(F) do
    if f[1] ~= 0 or f[2] ~= 0 or f[3] ~= 0 then
      apply_point_force(level, i, f[1] * share, f[2] * share, f[3] * share, center)
    end
  end
  if mesh.opt.gravity ~= 0 then apply_gravity(level, mesh.opt.gravity * share) end
end

-- dynamics, constraints and velocities of one level; returns its solver report
local function advance_level(mesh, level, F, share, dt)
  level_forces(mesh, level, F, share)
  save_state(level)
  dynamics(level, dt)
  local its, gap, ok = M.solve(mesh, level)
  if level.rigid and mesh.opt.rigid_fit then square_up(mesh, level) end
  adjust_velocities(level, dt)
  return { iterations = its, gap = gap, ok = ok }
end

local function record(mesh, reports)
  local st = mesh.stats
  st.steps = st.steps + 1
  for _, r in ipairs(reports) do
    st.max_iterations = math.max(st.max_iterations, r.iterations)
    st.max_error = math.max(st.max_error, r.gap)
    if not r.ok then st.failures = st.failures + 1 end
  end
end

-- opt: forces = { { row =, col =, force = { fx, fy, fz } }, ... } on the finest grid points, and
-- any of M.defaults to override for this step. Returns per level { iterations, gap, ok } (level 0
-- first) and the floor's deepest penetration at the step's start.
function M.step(mesh, dt, opt)
  opt = opt or {}
  local saved = mesh.opt
  mesh.opt = setmetatable({}, { __index = saved })
  for k, v in pairs(opt) do if k ~= "forces" then mesh.opt[k] = v end end
  M.restrict(mesh)
  local F0, deepest = point_forces(mesh, opt.forces, dt)
  local reports = {}
  if mesh.opt.multilevel then
    local F, pct = M.restrict_forces(mesh, F0), mesh.opt.pct
    for k = #mesh.levels, 1, -1 do
      if k < #mesh.levels then prolong(mesh, k - 1, level_points(mesh.levels[k + 1])) end
      reports[k] = advance_level(mesh, mesh.levels[k], F[k], pct[k] / 100, dt)
    end
  else
    reports[1] = advance_level(mesh, mesh.levels[1], F0, 1, dt)
  end
  mesh.opt = saved
  mesh.time = mesh.time + dt
  record(mesh, reports)
  return reports, deepest
end

---------------------------------------------------------------------------------------------
-- read-outs

-- the grid points of level k (0: finest) as a flat list x1, y1, z1, x2, ...
function M.points(mesh, k)
  local level = mesh.levels[(k or 0) + 1]
  local out = {}
  for i = 1, level.N * level.N do
    local x, y, z = grid_point(level, i)
    out[#out + 1], out[#out + 2], out[#out + 3] = x, y, z
  end
  return out
end

-- grid point (row, col) of the finest level
function M.point(mesh, row, col)
  local level = mesh.levels[1]
  return grid_point(level, idx(level.N, row, col))
end

-- the levels' sizes and percentages, level 0 first: { { N =, segments =, mass =, pct = }, ... }
function M.levels(mesh)
  local out = {}
  for k, level in ipairs(mesh.levels) do
    local mass = 0
    for _, s in ipairs(level.segs) do mass = mass + s.m end
    out[k] = { N = level.N, segments = #level.segs, mass = mass, pct = mesh.opt.pct[k] }
  end
  return out
end

-- the mass-weighted centre and linear momentum of level k's segments
function M.momentum(mesh, k)
  local level = mesh.levels[(k or 0) + 1]
  local m, c, p = 0, { 0, 0, 0 }, { 0, 0, 0 }
  for _, s in ipairs(level.segs) do
    m = m + s.m
    c[1], c[2], c[3] = c[1] + s.m * s.gx, c[2] + s.m * s.gy, c[3] + s.m * s.gz
    p[1], p[2], p[3] = p[1] + s.m * s.vx, p[2] + s.m * s.vy, p[3] + s.m * s.vz
  end
  return { c[1] / m, c[2] / m, c[3] / m }, p
end

-- level k's segments moving as one rigid body: centre velocity v, spin omega about the centre
local function rigid_motion(mesh, level, v, omega, share)
  local c = M.momentum(mesh, level.k)
  local ox, oy, oz = omega[1] * share, omega[2] * share, omega[3] * share
  for _, s in ipairs(level.segs) do
    local rx, ry, rz = s.gx - c[1], s.gy - c[2], s.gz - c[3]
    s.vx = v[1] * share + oy * rz - oz * ry
    s.vy = v[2] * share + oz * rx - ox * rz
    s.vz = v[3] * share + ox * ry - oy * rx
    local along = ox * s.dx + oy * s.dy + oz * s.dz
    s.wx, s.wy, s.wz = ox - along * s.dx, oy - along * s.dy, oz - along * s.dz
  end
end

-- start the mesh moving rigidly (centre velocity v, spin omega). Each level adds its own motion
-- to what the coarser ones pass down, so the motion is shared by the level percentages, like
-- the forces; or given whole to level k.
function M.set_motion(mesh, v, omega, k)
  for j, level in ipairs(mesh.levels) do
    local share = k and (level.k == k and 1 or 0) or mesh.opt.pct[j] / 100
    if not mesh.opt.multilevel then share = j == 1 and 1 or 0 end
    rigid_motion(mesh, level, v, omega, share)
  end
end

-- the grid points of level k as { {x, y, z}, ... }
function M.level_points(mesh, k) return level_points(mesh.levels[(k or 0) + 1]) end

-- measures on a flat point list {x1, y1, z1, ...} (from M.points), for the runner and the specs

-- the points' mean
function M.mean_point(p)
  local n, m = #p // 3, { 0, 0, 0 }
  for i = 1, #p, 3 do
    for a = 1, 3 do m[a] = m[a] + p[i + a - 1] / n end
  end
  return m
end

-- each point's distance to the mean: unchanged by rigid motion, so their change is bending
function M.radii(p)
  local m, r = M.mean_point(p), {}
  for i = 1, #p, 3 do
    r[#r + 1] = math.sqrt((p[i] - m[1]) ^ 2 + (p[i + 1] - m[2]) ^ 2 + (p[i + 2] - m[3]) ^ 2)
  end
  return r
end

-- the largest change of a point's distance to the mean from r0 (M.radii of the start)
function M.shape_change(p, r0)
  local r, worst = M.radii(p), 0
  for i = 1, #r do worst = math.max(worst, math.abs(r[i] - r0[i])) end
  return worst
end

-- |corner displacement - mean displacement| of the first point (grid point (0, 0)) from p0
function M.deviation(p, p0)
  local m, m0 = M.mean_point(p), M.mean_point(p0)
  local s = 0
  for a = 1, 3 do s = s + ((p[a] - p0[a]) - (m[a] - m0[a])) ^ 2 end
  return math.sqrt(s)
end

return M
