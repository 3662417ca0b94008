-- SPDX-License-Identifier: MIT
-- Re-runs the multilevel figures of Palazzi (1993) with the displacement-constraints baseline in
-- displacement.lua, and draws them:
--   (a) Fig. 3.11 / 4.9: a flat 9x9 mesh (2 m side, no gravity) kicked up at one corner for one
--       0.2 s step, 90 steps, with the force shared between level 0 (local) and the rigid 2x2
--       level (global) in several mixes;
--   (b) Fig. 4.10: the mesh falling with a clockwise spin onto the floor y = 0 and bouncing off
--       it (0.1 s steps, 120 steps).
--   lua5.4 examples/palazzi/baseline.lua [--out DIR]      (default palazzi_baseline/)
-- Writes SVG plots, side-view snapshot sheets and CSVs to DIR and a short summary to stdout.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = here .. "/../.."
package.path = root .. "/lua/?.lua;" .. package.path
local plot = require "tauform.plot"
local D = dofile(here .. "/displacement.lua")

local N, SIZE, MASS = 9, 2.0, 1.44           -- the thesis's 9x9 mesh; 10 g per segment
local KICK = 2.0                             -- N, up at corner (0, 0) during the first step
local SQRT_HALF = math.sqrt(0.5)

-- mixes as the animator's level percentages, level 0 (finest) first
local MIXES = {
  { name = "all local", pct = { 100, 0, 0, 0 } },
  { name = "75/25", pct = { 75, 0, 0, 25 } },
  { name = "mixed 50/50", pct = { 50, 0, 0, 50 } },
  { name = "25/75", pct = { 25, 0, 0, 75 } },
  { name = "all global", pct = { 0, 0, 0, 100 } },
  { name = "spread 25x4", pct = { 25, 25, 25, 25 } },
}
local SHEET = { 1, 3, 5 }                    -- the mixes drawn as side views

local function parse_args(argv)
  local out = "palazzi_baseline"
  local i = 1
  while argv[i] do
    if argv[i] == "--out" then out, i = assert(argv[i + 1], "--out needs a directory"), i + 1
    else error("unknown argument " .. argv[i] .. " (usage: baseline.lua [--out DIR])") end
    i = i + 1
  end
  return out
end

---------------------------------------------------------------------------------------------
-- measures on the finest grid points (flat x, y, z lists from D.points)

local mean_point, radii, shape_change, deviation = D.mean_point, D.radii, D.shape_change, D.deviation

-- side-view coordinate: along the horizontal diagonal from corner (0, 0) to (N-1, N-1)
local function along(x, z) return (x + z) * SQRT_HALF end

-- the mesh's tilt in the side view (counter-clockwise positive): the direction of the diagonal
-- as a least-squares fit over all points, weighted by r + c - (N - 1)
local function tilt(p)
  local du, dy = 0, 0
  for r = 0, N - 1 do
    for c = 0, N - 1 do
      local i, w = 3 * (r * N + c), r + c - (N - 1)
      du, dy = du + w * along(p[i + 1], p[i + 3]), dy + w * p[i + 2]
    end
  end
  return math.atan(dy, du)
end

-- the angle change wrapped to (-pi, pi]
local function wrap(a)
  return (a + math.pi) % (2 * math.pi) - math.pi
end

local function solver_record(series, reports)
  local its, gap, fail = 0, 0, 0
  for _, r in ipairs(reports) do
    its, gap = its + r.iterations, math.max(gap, r.gap)
    if not r.ok then fail = fail + 1 end
  end
  series.iterations[#series.iterations + 1] = its
  series.gap = math.max(series.gap, gap)
  series.failures = series.failures + fail
end

local function new_series()
  return { t = {}, iterations = {}, gap = 0, failures = 0, frames = {} }
end

local function push(series, key, v)
  series[key] = series[key] or {}
  series[key][#series[key] + 1] = v
end

---------------------------------------------------------------------------------------------
-- (a) the corner kick, Fig. 3.11 / 4.9

local KICK_DT, KICK_STEPS = 0.2, 90

local function run_kick(mix)
  local mesh = D.mesh{ n = N, size = SIZE, mass = MASS, pct = mix.pct }
  local p0 = D.points(mesh)
  local r0 = radii(p0)
  local s = new_series()
  s.frames[0] = p0
  for step = 1, KICK_STEPS do
    local kick = step == 1 and { { row = 0, col = 0, force = { 0, KICK, 0 } } } or nil
    solver_record(s, (D.step(mesh, KICK_DT, { forces = kick })))
    local p = D.points(mesh)
    s.t[#s.t + 1] = step * KICK_DT
    push(s, "corner", p[2])
    push(s, "mean", mean_point(p)[2])
    push(s, "deviation", deviation(p, p0))
    push(s, "shape", shape_change(p, r0))
    if step % 10 == 0 and step <= 80 then s.frames[step] = p end   -- Fig. 4.9's 9 frames
  end
  return s
end

---------------------------------------------------------------------------------------------
-- (b) the bounce, Fig. 4.10

local BOUNCE_DT, BOUNCE_STEPS = 0.1, 120
local BOUNCE = { height = 1.5, gravity = 0.3, spin = 0.15, bounce = 0.1 }
local BOUNCE_MIXES = { 5, 3, 1 }

local function run_bounce(mix)
  local mesh = D.mesh{ n = N, size = SIZE, mass = MASS, pct = mix.pct, height = BOUNCE.height,
                       gravity = BOUNCE.gravity, floor = 0, bounce = BOUNCE.bounce }
  -- clockwise in the side view: the spin axis is the horizontal diagonal's normal (1, 0, -1)/sqrt2
  local w = BOUNCE.spin * SQRT_HALF
  D.set_motion(mesh, { 0, 0, 0 }, { w, 0, -w })
  local s = new_series()
  local p = D.points(mesh)
  local angle = tilt(p)
  s.frames[0] = p
  for step = 1, BOUNCE_STEPS do
    local reports, deepest = D.step(mesh, BOUNCE_DT)
    solver_record(s, reports)
    p = D.points(mesh)
    local a = tilt(p)
    s.t[#s.t + 1] = step * BOUNCE_DT
    push(s, "centre", mean_point(p)[2])
    push(s, "spin", wrap(a - angle) / BOUNCE_DT)
    push(s, "contact", deepest)
    local low = math.huge
    for i = 2, #p, 3 do low = math.min(low, p[i]) end
    push(s, "lowest", low)
    angle = a
    if step % 10 == 0 and step < BOUNCE_STEPS then s.frames[step] = p end   -- Fig. 4.10's 12
  end
  return s
end

-- the spin of each flight (steps with no point below the floor), averaged over the flight
local function flights(s)
  local list, cur = {}, nil
  for i, d in ipairs(s.contact) do
    if d == 0 then
      if not cur then cur = { first = i, sum = 0, n = 0 }; list[#list + 1] = cur end
      cur.sum, cur.n = cur.sum + s.spin[i], cur.n + 1
    else
      cur = nil
    end
  end
  for _, f in ipairs(list) do f.spin = f.sum / f.n end
  return list
end

-- the spin before the first contact and in the first flight after the floor let go of the mesh
-- for at least ten steps
local function spin_reversal(s)
  local fl = flights(s)
  local before, after = fl[1] and fl[1].spin, nil
  for k = 2, #fl do
    if fl[k].n >= 10 then after = fl[k].spin; break end
  end
  return before, after
end

---------------------------------------------------------------------------------------------
-- side-view snapshot sheets, written by hand: each frame draws the grid rows projected on the
-- vertical plane through the mesh's diagonal

local COLORS = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf" }

local function frame_steps(frames)
  local steps = {}
  for k in pairs(frames) do steps[#steps + 1] = k end
  table.sort(steps)
  return steps
end

local function y_range(runs, floor)
  local lo, hi = floor and 0 or math.huge, -math.huge
  for _, s in ipairs(runs) do
    for _, p in pairs(s.frames) do
      for i = 2, #p, 3 do lo, hi = math.min(lo, p[i]), math.max(hi, p[i]) end
    end
  end
  local pad = 0.1 * (hi - lo) + 0.05
  return lo - pad, hi + pad
end

local function sheet_frame(out, p, X, Y)
  for r = 0, N - 1 do
    local pts = {}
    for c = 0, N - 1 do
      local i = 3 * (r * N + c)
      pts[#pts + 1] = ("%.1f,%.1f"):format(X(along(p[i + 1], p[i + 3])), Y(p[i + 2]))
    end
    out[#out + 1] = ('<polyline fill="none" stroke="%s" stroke-width="1" points="%s"/>')
      :format(COLORS[r % #COLORS + 1], table.concat(pts, " "))
  end
  local cx, cy = X(along(p[1], p[3])), Y(p[2])     -- the kicked corner, (0, 0)
  out[#out + 1] = ('<circle cx="%.1f" cy="%.1f" r="2.5" fill="black"/>'):format(cx, cy)
end

-- runs: { { label =, series = }, ... } one row each, a column per stored frame
local function side_sheet(path, title, runs, dt, floor)
  local cw, ch, top, left = 150, 150, 40, 110
  local steps = frame_steps(runs[1].series.frames)
  local ser = {}
  for i, r in ipairs(runs) do ser[i] = r.series end
  local lo, hi = y_range(ser, floor)
  local span = math.max(hi - lo, 4.4)
  local W, H = left + cw * #steps + 10, top + ch * #runs + 20
  local out = { ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
    .. 'width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">'):format(W, H, W, H),
    ('<rect width="%d" height="%d" fill="white"/>'):format(W, H),
    ('<text x="%d" y="18" font-size="14">%s</text>'):format(left, title) }
  for row, run in ipairs(runs) do
    local y0 = top + (row - 1) * ch
    out[#out + 1] = ('<text x="8" y="%.1f" font-size="12">%s</text>'):format(y0 + ch / 2, run.label)
    for col, step in ipairs(steps) do
      local x0 = left + (col - 1) * cw
      local function X(u) return x0 + cw / 2 + u / span * (cw - 10) end
      local function Y(v) return y0 + ch - 5 - (v - lo) / span * (ch - 10) end
      out[#out + 1] = ('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#ccc"/>')
        :format(x0, y0, cw, ch)
      if floor then
        out[#out + 1] = ('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>')
          :format(x0, Y(floor), x0 + cw, Y(floor))
      end
      if row == 1 then
        out[#out + 1] = ('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">t=%.1fs</text>')
          :format(x0 + cw / 2, top - 6, step * dt)
      end
      sheet_frame(out, run.series.frames[step], X, Y)
    end
  end
  out[#out + 1] = "</svg>\n"
  local f = assert(io.open(path, "w"))
  f:write(table.concat(out, "\n"))
  f:close()
end

---------------------------------------------------------------------------------------------
-- plots and tables

local function series_of(runs, key)
  local list = {}
  for _, r in ipairs(runs) do
    list[#list + 1] = { x = r.series.t, y = r.series[key], label = r.label }
  end
  return list
end

local function kick_plots(out, runs)
  plot.figure{ path = out .. "/kick_heights.svg", columns = 2, panels = {
    { title = "Corner (0,0) height (Fig. 4.9)", xlabel = "time (s)", ylabel = "y (m)",
      series = series_of(runs, "corner") },
    { title = "Mesh mean height", xlabel = "time (s)", ylabel = "y (m)",
      series = series_of(runs, "mean") },
    { title = "|corner displacement - mean displacement|", xlabel = "time (s)",
      ylabel = "deviation (m)", series = series_of(runs, "deviation") },
    { title = "Bending: max change of a point's distance to the centre", xlabel = "time (s)",
      ylabel = "m", series = series_of(runs, "shape") } } }
end

-- the deviation at a few times against the share on the rigid level (the monotone mixes)
local function mix_curve(out, runs, at_steps)
  local series = {}
  for _, step in ipairs(at_steps) do
    local xs, ys = {}, {}
    for _, r in ipairs(runs) do
      if r.mix.pct[2] == 0 and r.mix.pct[3] == 0 then
        xs[#xs + 1], ys[#ys + 1] = r.mix.pct[4], r.series.deviation[step]
      end
    end
    series[#series + 1] = { x = xs, y = ys, label = ("t = %.1f s"):format(step * KICK_DT) }
  end
  plot.figure{ path = out .. "/kick_local_global.svg", panels = {
    { title = "Local/global: corner-minus-mean deviation",
      xlabel = "% of the force on the rigid level", ylabel = "deviation (m)", series = series } } }
end

local function bounce_plots(out, runs)
  plot.figure{ path = out .. "/bounce.svg", columns = 2, panels = {
    { title = "Mesh centre height (Fig. 4.10)", xlabel = "time (s)", ylabel = "y (m)",
      series = series_of(runs, "centre") },
    { title = "Spin about the horizontal axis (side view, ccw +)", xlabel = "time (s)",
      ylabel = "rad/s", ymin = -1.5, ymax = 1.5, series = series_of(runs, "spin") },
    { title = "Lowest grid point", xlabel = "time (s)", ylabel = "y (m)",
      series = series_of(runs, "lowest") } } }
end

local function csv(path, s, keys)
  local cols = { { "t", s.t }, { "iterations", s.iterations } }
  for _, k in ipairs(keys) do cols[#cols + 1] = { k, s[k] } end
  plot.csv(path, cols)
end

local function slug(name) return (name:gsub("[^%w]+", "_")) end

local function iteration_stats(s)
  local sum, top = 0, 0
  for _, v in ipairs(s.iterations) do sum, top = sum + v, math.max(top, v) end
  return sum / #s.iterations, top
end

---------------------------------------------------------------------------------------------

local function main()
  local out = parse_args(arg or {})
  os.execute(("mkdir -p '%s'"):format(out:gsub("'", "'\\''")))
  local clock = os.clock()

  local kicks = {}
  for _, mix in ipairs(MIXES) do
    kicks[#kicks + 1] = { label = mix.name, mix = mix, series = run_kick(mix) }
    csv(("%s/kick_%s.csv"):format(out, slug(mix.name)), kicks[#kicks].series,
        { "corner", "mean", "deviation", "shape" })
  end
  kick_plots(out, kicks)
  mix_curve(out, kicks, { 1, 5, 10, 20 })
  local sheet = {}
  for _, k in ipairs(SHEET) do sheet[#sheet + 1] = kicks[k] end
  side_sheet(out .. "/kick_side_view.svg", "Corner kick, side view along the diagonal "
    .. "(rows of the grid; dot: the kicked corner)", sheet, KICK_DT)
  local kick_time = os.clock() - clock

  local bounces = {}
  for _, k in ipairs(BOUNCE_MIXES) do
    local mix = MIXES[k]
    bounces[#bounces + 1] = { label = mix.name, mix = mix, series = run_bounce(mix) }
    csv(("%s/bounce_%s.csv"):format(out, slug(mix.name)), bounces[#bounces].series,
        { "centre", "spin", "lowest", "contact" })
  end
  bounce_plots(out, bounces)
  side_sheet(out .. "/bounce_side_view.svg", "Bounce off the floor, side view along the diagonal",
    bounces, BOUNCE_DT, 0)
  local total = os.clock() - clock

  print(("Corner kick (Fig. 3.11/4.9): %dx%d mesh, %.0f m, %.2f kg, %.1f N up at (0,0) for one "
    .. "%.1f s step, %d steps"):format(N, N, SIZE, MASS, KICK, KICK_DT, KICK_STEPS))
  print("  mix            dev@0.2s dev@2s  dev@4s  bend max  iters mean/max  max gap   fails")
  for _, r in ipairs(kicks) do
    local s = r.series
    local bend = 0
    for _, v in ipairs(s.shape) do bend = math.max(bend, v) end
    local mean_its, top = iteration_stats(s)
    print(("  %-13s  %6.3f  %6.3f  %6.3f  %7.4f  %6.1f / %-4d  %.2e  %d"):format(r.label,
      s.deviation[1], s.deviation[10], s.deviation[20], bend, mean_its, top, s.gap, s.failures))
  end
  print(("Bounce (Fig. 4.10): dropped from %.1f m, g = %.1f m/s^2, spin %.2f rad/s clockwise, "
    .. "bounce %.2f, %.1f s steps, %d steps"):format(BOUNCE.height, BOUNCE.gravity, BOUNCE.spin,
    BOUNCE.bounce, BOUNCE_DT, BOUNCE_STEPS))
  print("  mix            spin before  spin after  reversed  lowest point  iters max  fails")
  for _, r in ipairs(bounces) do
    local s = r.series
    local before, after = spin_reversal(s)
    local low = math.huge
    for _, v in ipairs(s.lowest) do low = math.min(low, v) end
    local _, top = iteration_stats(s)
    print(("  %-13s  %+9.3f  %10s  %-8s  %10.3f  %9d  %d"):format(r.label, before,
      after and ("%+.3f"):format(after) or "n/a",
      tostring(before < 0 and (after or 0) > 0), low, top, s.failures))
  end
  print(("Wrote %s/ (kick %.1f s, total %.1f s CPU)"):format(out, kick_time, total))
end

main()
