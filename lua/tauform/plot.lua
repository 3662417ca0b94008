-- SPDX-License-Identifier: MIT
-- Small SVG line plots for studies and reports, with no external tools: one or more panels of
-- series (polylines), axes with ticks, labels and a legend.
--   plot.figure{ path = "fig.svg", width = 900, height = 360, panels = {
--     { title = "(a) New method", xlabel = "time (s)", ylabel = "d1, d2", xmax = 5,
--       series = { { x = {...}, y = {...}, label = "tau = 1, d1", color = "#1f77b4", dash = "6 3" } } },
--     ... } }
-- Each series is one <polyline>, so the file's polyline count is the number of series.
local M = {}

local PALETTE = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b" }

local function esc(s)
  return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- "nice" tick step for a range (1, 2 or 5 times a power of ten)
local function tick_step(range, count)
  local raw = range / count
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if m * p >= raw then return m * p end
  end
  return 10 * p
end

local function fmt(v)
  if v == math.floor(v) and math.abs(v) < 1e6 then return ("%d"):format(v) end
  return ("%g"):format(tonumber(("%.4g"):format(v)))
end

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

local function panel(out, p, x0, y0, w, h)
  local ml, mr, mt, mb = 60, 15, 30, 45
  local pw, ph = w - ml - mr, h - mt - mb
  -- the range: the caller's bounds where given, else the finite data's
  local xmin, xmax, ymin, ymax
  for _, s in ipairs(p.series) do
    for i = 1, #s.x do
      local x, y = s.x[i], s.y[i]
      if finite(x) and finite(y) then
        xmin = math.min(xmin or x, x); xmax = math.max(xmax or x, x)
        ymin = math.min(ymin or y, y); ymax = math.max(ymax or y, y)
      end
    end
  end
  xmin, xmax = p.xmin or xmin, p.xmax or xmax
  ymin, ymax = p.ymin or ymin, p.ymax or ymax
  xmin, xmax, ymin, ymax = xmin or 0, xmax or 1, math.min(ymin or 0, 0), ymax or 1
  if xmax == xmin then xmax = xmin + 1 end
  if ymax == ymin then ymax = ymin + 1 end
  local function X(v) return x0 + ml + (v - xmin) / (xmax - xmin) * pw end
  local function Y(v) return y0 + mt + ph - (v - ymin) / (ymax - ymin) * ph end
  out[#out + 1] = ('<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#444"/>'):format(x0 + ml, y0 + mt, pw, ph)
  -- ticks and grid
  local xs, ys = tick_step(xmax - xmin, 6), tick_step(ymax - ymin, 5)
  for v = math.ceil(xmin / xs) * xs, xmax + 1e-9 * xs, xs do
    out[#out + 1] = ('<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#ddd"/>'):format(X(v), y0 + mt, X(v), y0 + mt + ph)
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="11" text-anchor="middle">%s</text>'):format(X(v), y0 + mt + ph + 15, fmt(v))
  end
  for v = math.ceil(ymin / ys) * ys, ymax + 1e-9 * ys, ys do
    out[#out + 1] = ('<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#ddd"/>'):format(x0 + ml, Y(v), x0 + ml + pw, Y(v))
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="11" text-anchor="end">%s</text>'):format(x0 + ml - 5, Y(v) + 4, fmt(v))
  end
  if p.title then
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="13" text-anchor="middle">%s</text>'):format(x0 + ml + pw / 2, y0 + 18, esc(p.title))
  end
  if p.xlabel then
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="12" text-anchor="middle">%s</text>'):format(x0 + ml + pw / 2, y0 + h - 8, esc(p.xlabel))
  end
  if p.ylabel then
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="12" text-anchor="middle" transform="rotate(-90 %.2f %.2f)">%s</text>')
      :format(x0 + 15, y0 + mt + ph / 2, x0 + 15, y0 + mt + ph / 2, esc(p.ylabel))
  end
  -- series, clipped to the panel's x range; values beyond a given y range (a run that blew up)
  -- are drawn at its edge
  for k, s in ipairs(p.series) do
    local pts = {}
    for i = 1, #s.x do
      local x, y = s.x[i], s.y[i]
      if finite(x) and y == y and x >= xmin and x <= xmax then
        y = math.max(ymin, math.min(ymax, y))
        pts[#pts + 1] = ("%.2f,%.2f"):format(X(x), Y(y))
      end
    end
    local color = s.color or PALETTE[(k - 1) % #PALETTE + 1]
    out[#out + 1] = ('<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>')
      :format(color, s.dash and (' stroke-dasharray="%s"'):format(s.dash) or "", table.concat(pts, " "))
    -- legend
    local ly = y0 + mt + 12 + (k - 1) * 15
    out[#out + 1] = ('<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" stroke-width="2"%s/>')
      :format(x0 + ml + pw - 120, ly - 4, x0 + ml + pw - 100, ly - 4, color, s.dash and (' stroke-dasharray="%s"'):format(s.dash) or "")
    out[#out + 1] = ('<text x="%.2f" y="%.2f" font-size="11">%s</text>'):format(x0 + ml + pw - 95, ly, esc(s.label or ("series " .. k)))
  end
end

-- panels side by side (or `columns` per row); returns the SVG text and writes `path` when given
function M.figure(opt)
  local panels = opt.panels or { opt }
  local cols = opt.columns or #panels
  local rows = math.ceil(#panels / cols)
  local pw, ph = opt.panel_width or 460, opt.panel_height or 340
  local W, H = pw * cols, ph * rows
  local out = { ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">')
                  :format(W, H, W, H), ('<rect width="%d" height="%d" fill="white"/>'):format(W, H) }
  for i, p in ipairs(panels) do
    local c, r = (i - 1) % cols, (i - 1) // cols
    panel(out, p, c * pw, r * ph, pw, ph)
  end
  out[#out + 1] = "</svg>\n"
  local svg = table.concat(out, "\n")
  if opt.path then
    local f = assert(io.open(opt.path, "w"))
    f:write(svg)
    f:close()
  end
  return svg
end

-- CSV with a header row from named columns { {name, values}, ... }
function M.csv(path, columns)
  local f = assert(io.open(path, "w"))
  local names, n = {}, 0
  for i, c in ipairs(columns) do names[i] = c[1]; n = math.max(n, #c[2]) end
  f:write(table.concat(names, ","), "\n")
  for r = 1, n do
    local row = {}
    for i, c in ipairs(columns) do
      local v = c[2][r]
      row[i] = v == nil and "" or (type(v) == "number" and ("%.9g"):format(v) or tostring(v))
    end
    f:write(table.concat(row, ","), "\n")
  end
  f:close()
end

return M
